import { Session } from 'node:inspector/promises'
import { writeFileSync } from 'node:fs'
import { DEFAULT_WORKLOAD, generateWorkload } from './dist/sim/workload.js'
import { prepare, passOf } from './dist/bench/core.js'
const w = generateWorkload(DEFAULT_WORKLOAD)
const p = prepare(w)
passOf(p)
const s = new Session(); s.connect()
await s.post('HeapProfiler.startSampling', { samplingInterval: 1024, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true })
passOf(p)
const { profile } = await s.post('HeapProfiler.stopSampling')
writeFileSync('/tmp/hprof/a.heapprofile', JSON.stringify(profile))
