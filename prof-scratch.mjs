import { DEFAULT_WORKLOAD, generateWorkload } from './dist/sim/workload.js'
import { prepare, passOf } from './dist/bench/core.js'
const w = generateWorkload(DEFAULT_WORKLOAD)
const p = prepare(w)
const n = Number(process.env.PASSES ?? 6)
for (let i = 0; i < n; i++) { const t = passOf(p); console.log(Math.round(t.pass.wall), Math.round(t.pass.cpu)) }
