// Random spot flows for the order-list properties (test/core/order-lists.test.ts,
// oto-lists.test.ts): the orders, cancels and list cancels both draw, and the run that applies
// a flow checking every invariant after each command, then replays it from the start and from
// a snapshot halfway: the same root, and from halfway the same results byte for byte.

import fc from 'fast-check'
import type { Command } from '../../core/commands.js'
import type { Event, OrderListEvent, Result } from '../../core/events.js'
import { apply } from '../../core/apply.js'
import { stateRoot } from '../../core/root.js'
import { decodeSnapshot, encodeSnapshot } from '../../core/snapshot.js'
import { stateViolations } from '../../sim/model/invariants.js'
import { ALICE, BOB, BTCSPOT, CAROL, COIN, DAVE, type TestExchange } from './exchange.js'
import { cancel, limit, market } from './commands.js'

export const who = fc.constantFrom(ALICE, BOB, CAROL, DAVE)
export const side = fc.constantFrom('BUY' as const, 'SELL' as const)
/** A price within 500 ticks of 30,000.00, on a 10-tick grid. */
export const near = fc.integer({ min: 2_950_000, max: 3_050_000 }).map((p) => p - (p % 1_000))
/** A distance of 10 to 600 ticks. */
export const gap = fc.integer({ min: 1, max: 60 }).map((g) => g * 1_000)

/** A peg for a quarter of the orders that may take one (core/peg.ts); null for the others. */
export const peg = fc.oneof({ weight: 3, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.constantFrom('PRIMARY_PEG' as const, 'MARKET_PEG' as const) })

/**
 * Self-trade prevention by DECREMENT for a quarter of the takers (core/prevention.ts: a list's
 * orders lose lots to their own account's), the default for the others.
 */
export const stp = fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constant('DECREMENT' as const) })

/** The draws every flow has besides its lists: limits (some icebergs, some pegged), markets, cancels of an open order or list. */
export const plainOps = [
  fc.record({ kind: fc.constant('limit' as const), who, side, price: near, lots: fc.integer({ min: 2, max: 60 }),
    slice: fc.option(fc.integer({ min: 1, max: 10 }), { freq: 3 }), peg, stp }),
  fc.record({ kind: fc.constant('market' as const), who, side, lots: fc.integer({ min: 1, max: 80 }), stp }),
  fc.record({ kind: fc.constant('cancel' as const), who, pick: fc.nat({ max: 20 }) }),
  fc.record({ kind: fc.constant('cancelList' as const), who, pick: fc.nat({ max: 20 }) }),
  // An amendment keeping priority of an open order, a list's among them (an OCO pair amends together).
  fc.record({ kind: fc.constant('amend' as const), who, pick: fc.nat({ max: 20 }), keep: fc.integer({ min: 1, max: 9 }) }),
] as const

type ValueOf<A> = A extends fc.Arbitrary<infer T> ? T : never
export type PlainOp = ValueOf<(typeof plainOps)[number]>

/** A plain draw as the command it is now: cancels aim at one of the account's open orders, or lists. */
export function plainCommand(ex: TestExchange, o: PlainOp): Command {
  if (o.kind === 'limit') {
    // An iceberg's slice, at least a tenth of the order (ICEBERG_PARTS).
    const iceberg = o.slice === null ? {} : { timeInForce: 'GTC' as const, icebergLots: Math.max(o.slice, Math.ceil(o.lots / 10)) }
    const cmd = limit(o.who, o.side, o.price, o.lots, { marketId: BTCSPOT, ...iceberg, ...(o.stp ? { stp: o.stp } : {}) })
    if (o.peg === null) return cmd
    // A pegged limit takes its price from the book; half of them are sent with one, which is only checked.
    cmd.pegPriceType = o.peg
    if (o.lots % 2 === 0) delete cmd.priceTicks
    return cmd
  }
  if (o.kind === 'market') return market(o.who, o.side, o.lots, { marketId: BTCSPOT, ...(o.stp ? { stp: o.stp } : {}) })
  if (o.kind === 'cancel') {
    const open = [...ex.sub(o.who).orders.values()]
    return cancel(o.who, { marketId: BTCSPOT, orderId: open.length === 0 ? 1 : open[o.pick % open.length]!.orderId })
  }
  if (o.kind === 'amend') {
    // To `keep` tenths of its quantity as sent (some refused: unchanged, below what filled, below the minimum notional).
    const open = [...ex.sub(o.who).orders.values()]
    const x = open[o.pick % Math.max(1, open.length)]
    const sent = x === undefined ? 10 : x.origQtyLots + x.preventedLots
    return { type: 'AmendKeepPriority', account: o.who, sub: 0, marketId: BTCSPOT, orderId: x?.orderId ?? 1, qtyLots: Math.ceil(sent * o.keep / 10) }
  }
  const open = [...ex.sub(o.who).orders.values()].filter((x) => x.list !== null && !x.list.done)
  return { type: 'CancelOrderList', account: o.who, sub: 0, marketId: BTCSPOT,
    orderListId: open.length === 0 ? 1 : open[o.pick % open.length]!.list!.orderListId }
}

/** Every trader of the spot scene holding both assets, so that any of them can buy or sell. */
export function fundEveryone(ex: TestExchange): TestExchange {
  ex.deposit(ALICE, 'BTC', COIN)
  ex.deposit(CAROL, 'BTC', COIN)
  ex.fund(BOB, 10_000, 0, 'SPOT')
  ex.fund(DAVE, 10_000, 0, 'SPOT')
  return ex
}

export const listEvents = (r: Result | Event[]): OrderListEvent[] =>
  ('events' in r ? r.events : r).filter((e): e is OrderListEvent => e.type === 'orderList')

/**
 * Applies `count` commands, each built by `next` from the state then, checking every invariant
 * after each (an exception names the command); `seen` sees each result. True when the replays
 * from the start and from the snapshot halfway end at the same root (a result that differs
 * after the snapshot throws).
 */
export function runFlow(ex: TestExchange, count: number, next: (i: number) => Command, seen: (c: Command, r: Result) => void): boolean {
  const start = encodeSnapshot(ex.state)
  const entries: Parameters<typeof apply>[1][] = []
  const results: string[] = []
  let mid: Uint8Array | undefined
  const half = Math.floor(count / 2)
  for (let i = 0; i < count; i++) {
    if (i === half) mid = encodeSnapshot(ex.state)
    const command = next(i)
    const entry = { seq: ex.state.seq + 1, time: ex.time + 1, command }
    entries.push(structuredClone(entry))
    const r = apply(ex.state, entry)
    results.push(JSON.stringify(r))
    seen(command, r)
    ex.time += 1
    const v = stateViolations(ex.state)
    if (v.length > 0) throw new Error(`after ${JSON.stringify(command)}: ${v.join('; ')}`)
  }
  const again = decodeSnapshot(start)
  for (const e of entries) apply(again, e)
  const resumed = decodeSnapshot(mid!)
  for (let i = half; i < count; i++) {
    const r = JSON.stringify(apply(resumed, entries[i]!))
    if (r !== results[i]) throw new Error(`entry ${i} after a snapshot: ${r}, straight through: ${results[i]}`)
  }
  return stateRoot(again) === stateRoot(ex.state) && stateRoot(resumed) === stateRoot(ex.state)
}
