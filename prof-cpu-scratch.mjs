import { Session } from 'node:inspector/promises'
import { writeFileSync, mkdirSync } from 'node:fs'
import { DEFAULT_WORKLOAD, generateWorkload } from './dist/sim/workload.js'
import { prepare, passOf } from './dist/bench/core.js'
const w = generateWorkload(DEFAULT_WORKLOAD)
const p = prepare(w)
passOf(p); passOf(p)
const s = new Session(); s.connect()
await s.post('Profiler.enable'); await s.post('Profiler.setSamplingInterval', { interval: 100 })
await s.post('Profiler.start')
for (let i = 0; i < 4; i++) console.log(Math.round(passOf(p).pass.wall))
const { profile } = await s.post('Profiler.stop')
mkdirSync('/tmp/prof', { recursive: true })
writeFileSync('/tmp/prof/a.cpuprofile', JSON.stringify(profile))
