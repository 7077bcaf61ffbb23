import { apply } from './core/apply.js'
import { createState } from './core/state.js'
import { generateWorkload, toEntries } from './sim/workload.js'
import { hrtime } from 'node:process'
const w = generateWorkload()
const setup = toEntries(w.setup, 1)
const entries = toEntries(w.stream, w.setup.length + 1)
for (let pass = 0; pass < 4; pass++) {
  const s = createState()
  for (const e of setup) apply(s, e)
  const t0 = hrtime.bigint()
  for (let i = 0; i < entries.length; i++) apply(s, entries[i]!)
  const ns = Number(hrtime.bigint() - t0)
  console.log(pass, Math.round(entries.length * 1e9 / ns))
}
