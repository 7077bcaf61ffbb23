// Turning generated streams into log entries: the default genesis first, then the stream,
// with seq counting from 1 as the log does. Cancels aimed at "one of my open orders" are
// resolved by running the stream once on a scratch state, so the entries are plain data.

import { apply } from '../../core/apply.js'
import type { CancelOrder, Command, Entry } from '../../core/commands.js'
import { DEFAULT_GENESIS, genesisCommands, type GenesisSpec } from '../../core/genesis-spec.js'
import { createState, type State } from '../../core/state.js'
import { START_TIME, type TimedCommand } from './commands.js'

export function genesisEntries(spec: GenesisSpec = DEFAULT_GENESIS): Entry[] {
  return genesisCommands(spec).map((command: Command, i): Entry => ({ seq: i + 1, time: START_TIME, command }))
}

/** Points a cancel at one of the issuer's open orders in its market, if it has any. */
export function resolveCancel(state: State, c: CancelOrder, pick: number): CancelOrder {
  const sub = state.accounts.get(c.account)?.subs[c.sub]
  if (sub === undefined) return c
  const open = [...sub.orders.values()].filter((o) => o.market.marketId === c.marketId)
  if (open.length === 0) return c
  const o = open[pick % open.length]!
  const { orderId: _id, clientOrderId: _cid, ...rest } = c
  return pick % 2 === 0 ? { ...rest, orderId: o.orderId } : { ...rest, clientOrderId: o.clientOrderId }
}

/** Genesis followed by the stream, every command concrete. */
export function entriesOf(stream: readonly TimedCommand[], spec: GenesisSpec = DEFAULT_GENESIS): Entry[] {
  const entries = genesisEntries(spec)
  const scratch = createState()
  for (const e of entries) apply(scratch, e)
  for (const t of stream) {
    let command = t.command
    if (t.cancelPick !== undefined && command.type === 'CancelOrder') command = resolveCancel(scratch, command, t.cancelPick)
    const entry: Entry = { seq: entries.length + 1, time: t.time, command }
    apply(scratch, entry)
    entries.push(entry)
  }
  return entries
}
