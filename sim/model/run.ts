// Turning generated streams into log entries: the default genesis first, then the stream,
// with seq counting from 1 as the log does. Cancels aimed at "one of my open orders" (on spot
// markets now and then amendments) are resolved by running the stream once on a scratch
// state, so the entries are plain data.

import { apply } from '../../core/apply.js'
import type { AmendKeepPriority, CancelOrder, Command, Entry } from '../../core/commands.js'
import { DEFAULT_GENESIS, genesisCommands, type GenesisSpec } from '../../core/genesis-spec.js'
import { createState, type Order, type State } from '../../core/state.js'
import { START_TIME, type TimedCommand } from './commands.js'

export function genesisEntries(spec: GenesisSpec = DEFAULT_GENESIS): Entry[] {
  return genesisCommands(spec).map((command: Command, i): Entry => ({ seq: i + 1, time: START_TIME, command }))
}

/** Points a cancel at one of the issuer's open orders in its market, if it has any. */
export function resolveCancel(state: State, c: CancelOrder, pick: number): CancelOrder {
  const o = pickedOrder(state, c, pick)
  if (o === undefined) return c
  const { orderId: _id, clientOrderId: _cid, ...rest } = c
  return pick % 2 === 0 ? { ...rest, orderId: o.orderId } : { ...rest, clientOrderId: o.clientOrderId }
}

function pickedOrder(state: State, c: CancelOrder, pick: number): Order | undefined {
  const sub = state.accounts.get(c.account)?.subs[c.sub]
  if (sub === undefined) return undefined
  const open = [...sub.orders.values()].filter((o) => o.market.marketId === c.marketId)
  return open.length === 0 ? undefined : open[pick % open.length]!
}

/** Client ids an amendment sometimes takes: some of the generator's own. */
const AMEND_IDS = ['a', 'b', 'x-3-2']

/**
 * A cancel aimed at an open spot order, or for an odd pick (a cancel by client id otherwise;
 * the generator's own client ids still cancel spot orders) an amendment keeping priority,
 * picked from the same draw: cut to about half of what is left, to one lot less under the
 * order's own client id, under another client id (another open order's: refused), or refused
 * (down to what has filled, or up).
 */
export function resolveOpenOrderCommand(state: State, c: CancelOrder, pick: number): CancelOrder | AmendKeepPriority {
  const o = pickedOrder(state, c, pick)
  if (o === undefined || o.market.kind !== 'SPOT' || pick % 2 === 0) return resolveCancel(state, c, pick)
  const amend: AmendKeepPriority = { type: 'AmendKeepPriority', account: c.account, sub: c.sub, marketId: c.marketId,
    orderId: o.orderId, qtyLots: o.executedQtyLots + Math.ceil((o.origQtyLots - o.executedQtyLots) / 2) }
  switch (pick >> 2) {
    case 1:
      amend.qtyLots = o.origQtyLots - 1
      amend.newClientOrderId = o.clientOrderId
      break
    case 2:
      amend.qtyLots = o.executedQtyLots > 0 && o.orderId % 2 === 0 ? o.executedQtyLots : o.origQtyLots + 1
      break
    case 3: {
      // Another open order's client id when the account has one (refused), else one of the generator's.
      const other = [...o.owner.orders.values()].find((x) => x !== o)
      amend.newClientOrderId = other !== undefined && o.orderId % 2 === 0 ? other.clientOrderId : AMEND_IDS[o.orderId % AMEND_IDS.length]!
      break
    }
  }
  return amend
}

/** Genesis followed by the stream, every command concrete. */
export function entriesOf(stream: readonly TimedCommand[], spec: GenesisSpec = DEFAULT_GENESIS): Entry[] {
  const entries = genesisEntries(spec)
  const scratch = createState()
  for (const e of entries) apply(scratch, e)
  for (const t of stream) {
    let command = t.command
    if (t.cancelPick !== undefined && command.type === 'CancelOrder') command = resolveOpenOrderCommand(scratch, command, t.cancelPick)
    const entry: Entry = { seq: entries.length + 1, time: t.time, command }
    apply(scratch, entry)
    entries.push(entry)
  }
  return entries
}
