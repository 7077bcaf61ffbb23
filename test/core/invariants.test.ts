// Invariants of the core after every command of random streams (DESIGN.md §8): books never
// crossed and internally consistent, money conserved per asset, no negative balance, every
// open order owned and indexed, ids unique and increasing, open interest balanced, and a
// rejected command changing nothing.

import t from 'tap'
import fc from 'fast-check'
import { apply } from '../../core/apply.js'
import { stateLeaves } from '../../core/root.js'
import { createState } from '../../core/state.js'
import { commandStream, PROFILES, type TimedCommand } from '../../sim/model/commands.js'
import { IdMonitor, stateViolations } from '../../sim/model/invariants.js'
import { entriesOf } from '../../sim/model/run.js'
import { runs } from '../helpers/property.js'

function holdsThroughout(stream: readonly TimedCommand[]): void {
  const state = createState()
  const ids = new IdMonitor()
  for (const entry of entriesOf(stream)) {
    const before = stateLeaves(state).join('\n')
    const result = apply(state, entry)
    const problems = [...ids.see(entry, result), ...stateViolations(state)]
    if (!result.ok && stateLeaves(state).join('\n') !== before) problems.push(`rejected (${result.code}) but the state changed`)
    if (problems.length > 0) {
      throw new Error(`after seq ${entry.seq} (${JSON.stringify(entry.command)}):\n  ${problems.join('\n  ')}`)
    }
  }
}

t.test('invariants hold after every command: BTC perp and spot', async (t) => {
  fc.assert(fc.property(commandStream(), holdsThroughout), runs(60))
  t.pass()
})

t.test('invariants hold after every command: every default market, six accounts', async (t) => {
  const markets = [PROFILES.BTCPERP, PROFILES.ETHPERP, PROFILES.BTCSPOT, PROFILES.ETHSPOT]
  fc.assert(fc.property(commandStream({ markets, accounts: 6, maxLength: 300 }), holdsThroughout), runs(20))
  t.pass()
})
