// Spot stop orders (core/spot-stops.ts): a stop waits off the book holding what it will need,
// fires when the last trade price reaches its stop (STOP BUY and TAKE_PROFIT SELL rising, the
// others falling) and is placed as the LIMIT or MARKET order it becomes; it can be canceled
// while it waits, and it survives a snapshot. BTCUSDT: price × 100 = ticks, qty × 10,000 =
// lots, 1 USDT unit per tick·lot, 10,000 BTC units per lot.

import t from 'tap'
import fc from 'fast-check'
import type { AmendKeepPriority, PlaceOrder } from '../../core/commands.js'
import { apply } from '../../core/apply.js'
import { stateRoot } from '../../core/root.js'
import type { SpotMarket } from '../../core/state.js'
import { decodeSnapshot, encodeSnapshot } from '../../core/snapshot.js'
import { stateViolations } from '../../sim/model/invariants.js'
import { ALICE, BOB, BTCSPOT, CAROL, COIN, DAVE, TestExchange, USDT } from '../helpers/exchange.js'
import { balanceEvents, cancel, limit, market, orderEvents, rejection, spotTradeEvents } from '../helpers/commands.js'
import { runs } from '../helpers/property.js'
import { spotScene, tradeAt } from '../helpers/spot-book.js'

const spot = { marketId: BTCSPOT }

function stop(account: string, side: 'BUY' | 'SELL', orderType: PlaceOrder['orderType'], stopPriceTicks: number, qtyLots: number,
  extra: Partial<PlaceOrder> = {}): PlaceOrder {
  return { type: 'PlaceOrder', account, sub: 0, marketId: BTCSPOT, side, orderType, stopPriceTicks, qtyLots, ...extra }
}

const setup = (): TestExchange => spotScene()

t.test('a stop-limit sell waits off the book holding its base, and rests as a LIMIT once the price falls to it', async (t) => {
  const ex = setup()
  // Stop 29,000.00, limit 28,900.00, 0.1 BTC: holds 1,000 lots × 10,000 = 10,000,000 BTC units.
  const placed = ex.ok(stop(BOB, 'SELL', 'STOP', 2_900_000, 1_000, { priceTicks: 2_890_000, timeInForce: 'GTC' }))
  t.match(orderEvents(placed), [{ execType: 'NEW', status: 'NEW', orderType: 'STOP', priceTicks: 2_890_000,
    cond: { origType: 'STOP', stopPriceTicks: 2_900_000, triggerTime: 0 } }])
  t.match(balanceEvents(placed), [{ asset: 'BTC', free: 90_000_000, locked: 10_000_000 }])
  const m = ex.state.markets[BTCSPOT]!
  t.equal(m.book.asks.best(), undefined, 'not on the book')
  t.equal(ex.sub(BOB).orders.get(orderEvents(placed)[0]!.clientOrderId)?.orderId, placed.orderId, 'an open order of Bob\'s')

  tradeAt(ex, 2_950_000) // 29,500: not yet
  t.equal(m.book.asks.best(), undefined)
  const r = tradeAt(ex, 2_900_000) // 29,000: fires
  const fired = orderEvents(r).find((e) => e.orderId === placed.orderId)!
  t.match(fired, { execType: 'NEW', status: 'NEW', orderType: 'LIMIT', cond: { origType: 'STOP', triggerTime: ex.time } })
  t.same([m.book.asks.best()!.priceTicks, m.book.asks.best()!.qtyLots], [2_890_000, 1_000], 'resting at its limit')
  t.same([ex.sub(BOB).spot.get('BTC')!.free, ex.sub(BOB).spot.get('BTC')!.locked], [90_000_000, 10_000_000], 'the same lock')
})

t.test('a stop-market buy holds its cost at the stop price, and buys at market once the price rises to it', async (t) => {
  const ex = setup()
  // Asks at 30,600 and 30,700 for the buy to meet.
  ex.ok(limit(DAVE, 'SELL', 3_060_000, 50, spot))
  ex.ok(limit(DAVE, 'SELL', 3_070_000, 50, spot))
  // Stop 30,500.00, 0.01 BTC: holds 100 × 3,050,000 = 305,000,000 (305 USDT).
  const before = ex.sub(ALICE).spot.get('USDT')!.free
  const placed = ex.ok(stop(ALICE, 'BUY', 'STOP_MARKET', 3_050_000, 100))
  t.equal(ex.sub(ALICE).spot.get('USDT')!.locked, 305_000_000)
  const r = tradeAt(ex, 3_050_000) // Carol lifts Dave's 30,500: the stop fires and sweeps 30,600 then 30,700
  const fills = spotTradeEvents(r).filter((e) => e.taker.orderId === placed.orderId)
  t.same(fills.map((e) => [e.priceTicks, e.qtyLots]), [[3_060_000, 50], [3_070_000, 50]])
  // Its record once, as it is placed (the fills are trade events).
  t.same(orderEvents(r).filter((e) => e.orderId === placed.orderId).map((e) => [e.execType, e.status, e.orderType]),
    [['NEW', 'NEW', 'MARKET']])
  t.same(fills.map((e) => e.taker.status), ['PARTIALLY_FILLED', 'FILLED'])
  // Paid 50 × 3,060,000 + 50 × 3,070,000 = 306,500,000; nothing left held.
  t.same([ex.sub(ALICE).spot.get('USDT')!.free, ex.sub(ALICE).spot.get('USDT')!.locked], [before - 306_500_000, 0])
})

t.test('a take-profit fires as the price rises to it (sell), a stop-loss as it falls (sell)', async (t) => {
  const ex = setup()
  const tp = ex.ok(stop(BOB, 'SELL', 'TAKE_PROFIT', 3_100_000, 10, { priceTicks: 3_100_000, timeInForce: 'GTC' }))
  const sl = ex.ok(stop(BOB, 'SELL', 'STOP_MARKET', 2_900_000, 10))
  const up = tradeAt(ex, 3_100_000)
  t.ok(orderEvents(up).some((e) => e.orderId === tp.orderId && e.orderType === 'LIMIT'), 'the take-profit fired')
  t.notOk(orderEvents(up).some((e) => e.orderId === sl.orderId), 'the stop-loss waits')
  const m = ex.state.markets[BTCSPOT] as SpotMarket
  t.ok(m.stops.live.has(sl.orderId!) && !m.stops.live.has(tp.orderId!))
})

t.test('refusals: would trigger, balance, the perpetual-only fields, a stop price off the filter', async (t) => {
  const ex = setup()
  const cases: [string, PlaceOrder, string][] = [
    ['a stop-loss sell above the last price', stop(BOB, 'SELL', 'STOP_MARKET', 3_100_000, 10), 'WOULD_TRIGGER'],
    ['a take-profit sell below it', stop(BOB, 'SELL', 'TAKE_PROFIT_MARKET', 2_900_000, 10), 'WOULD_TRIGGER'],
    ['at it', stop(BOB, 'SELL', 'STOP_MARKET', 3_000_000, 10), 'WOULD_TRIGGER'],
    ['more BTC than held', stop(BOB, 'SELL', 'STOP_MARKET', 2_900_000, 20_000), 'BALANCE_INSUFFICIENT'],
    ['more USDT than held at the stop', stop(ALICE, 'BUY', 'STOP_MARKET', 3_100_000, 5_000), 'BALANCE_INSUFFICIENT'],
    ['no stop price', stop(BOB, 'SELL', 'STOP_MARKET', undefined as never, 10), 'STOP_PRICE_REQUIRED'],
    ['a stop price off the tick', stop(BOB, 'SELL', 'STOP_MARKET', 2_900_000.5, 10), 'PRICE_TICK'],
    ['a trailing stop', { ...stop(BOB, 'SELL', 'TRAILING_STOP_MARKET', 0, 10), callbackPermille: 10 }, 'ORDER_TYPE_INVALID'],
    ['a working type', stop(BOB, 'SELL', 'STOP_MARKET', 2_900_000, 10, { workingType: 'MARK_PRICE' }), 'COMMAND_INVALID'],
    ['a stop-limit without price', stop(BOB, 'SELL', 'STOP', 2_900_000, 10, { timeInForce: 'GTC' }), 'PRICE_REQUIRED'],
    ['a market form under min notional at its stop (1 lot: 2.9 USDT)', stop(BOB, 'SELL', 'STOP_MARKET', 2_900_000, 1), 'NOTIONAL_TOO_SMALL'],
    ['post-only time in force', stop(BOB, 'SELL', 'STOP', 2_900_000, 10, { priceTicks: 2_900_000, timeInForce: 'GTX' }), 'TIF_INVALID'],
  ]
  for (const [what, cmd, code] of cases) t.match(rejection(ex, cmd), { code, eventCount: 0, rootUnchanged: true }, what)
})

t.test('a waiting stop cancels by orderId or client id, giving back what it held', async (t) => {
  const ex = setup()
  const a = ex.ok(stop(BOB, 'SELL', 'STOP_MARKET', 2_900_000, 100, { clientOrderId: 'sl-1' }))
  ex.ok(stop(BOB, 'SELL', 'STOP_MARKET', 2_800_000, 100, { clientOrderId: 'sl-2' }))
  t.equal(ex.sub(BOB).spot.get('BTC')!.locked, 2_000_000)
  const byId = ex.ok(cancel(BOB, { orderId: a.orderId!, marketId: BTCSPOT }))
  t.match(orderEvents(byId), [{ status: 'CANCELED', orderType: 'STOP_MARKET', clientOrderId: 'sl-1' }])
  t.match(balanceEvents(byId), [{ asset: 'BTC', locked: 1_000_000 }])
  ex.ok(cancel(BOB, { clientOrderId: 'sl-2', marketId: BTCSPOT }))
  t.same([ex.sub(BOB).spot.get('BTC')!.free, ex.sub(BOB).spot.get('BTC')!.locked], [COIN, 0])
  t.equal((ex.state.markets[BTCSPOT] as SpotMarket).stops.live.size, 0)
  tradeAt(ex, 2_800_000)
  t.equal(ex.sub(BOB).orders.size, 0, 'nothing fires after')
  t.same(stateViolations(ex.state), [])
})

t.test('a market-form buy whose cost grew past the balance expires at its trigger', async (t) => {
  const ex = setup()
  ex.ok(limit(DAVE, 'SELL', 9_000_000, 100, spot)) // the only ask left after the trigger: 90,000
  // Alice spends all but 500 USDT on a resting bid, then places a stop holding 305 of the rest.
  ex.ok(limit(ALICE, 'BUY', 1_000_000, 9_200, spot))
  const free = ex.sub(ALICE).spot.get('USDT')!.free
  t.ok(free < 1_000 * USDT)
  const placed = ex.ok(stop(ALICE, 'BUY', 'STOP_MARKET', 3_050_000, 100))
  const r = tradeAt(ex, 3_050_000)
  t.match(orderEvents(r).filter((e) => e.orderId === placed.orderId), [{ execType: 'EXPIRED', status: 'EXPIRED',
    cond: { reason: 'BALANCE_INSUFFICIENT' } }])
  t.equal(ex.sub(ALICE).spot.get('USDT')!.free, free, 'what it held is back')
  t.same(stateViolations(ex.state), [])
})

t.test('a waiting stop is in the state root and survives a snapshot, then fires alike', async (t) => {
  const ex = setup()
  const before = stateRoot(ex.state)
  ex.ok(stop(BOB, 'SELL', 'STOP', 2_900_000, 100, { priceTicks: 2_890_000, timeInForce: 'GTC' }))
  t.not(stateRoot(ex.state), before)
  const restored = decodeSnapshot(encodeSnapshot(ex.state))
  t.equal(stateRoot(restored), stateRoot(ex.state))
  const cmds = [limit(DAVE, 'SELL', 2_900_000, 10, spot), limit(CAROL, 'BUY', 2_900_000, 10, spot), market(CAROL, 'BUY', 50, spot)]
  for (const [i, command] of cmds.entries()) {
    const entry = { seq: ex.state.seq + 1, time: ex.time + 1 + i, command }
    t.same(apply(restored, structuredClone(entry)), apply(ex.state, entry), `command ${i}: same result`)
  }
  ex.time += cmds.length
  t.equal(stateRoot(restored), stateRoot(ex.state), 'same root after the stop fired and traded')
  t.same(stateViolations(ex.state), [], 'books, ownership, money and locks consistent')
})

t.test('random spot flow with stops and amendments: every state consistent, replay and snapshot alike', async (t) => {
  const who = fc.constantFrom(ALICE, BOB, CAROL, DAVE)
  const price = fc.integer({ min: 2_950_000, max: 3_050_000 }).map((p) => p - (p % 1_000))
  const op = fc.oneof(
    fc.record({ kind: fc.constant('limit' as const), who, side: fc.constantFrom('BUY' as const, 'SELL' as const), price, lots: fc.integer({ min: 2, max: 60 }) }),
    fc.record({ kind: fc.constant('market' as const), who, side: fc.constantFrom('BUY' as const, 'SELL' as const), lots: fc.integer({ min: 2, max: 80 }) }),
    fc.record({ kind: fc.constant('stop' as const), who, side: fc.constantFrom('BUY' as const, 'SELL' as const),
      type: fc.constantFrom('STOP' as const, 'STOP_MARKET' as const, 'TAKE_PROFIT' as const, 'TAKE_PROFIT_MARKET' as const),
      stop: price, offset: fc.integer({ min: -20_000, max: 20_000 }).map((o) => o - (o % 1_000)), lots: fc.integer({ min: 2, max: 60 }) }),
    fc.record({ kind: fc.constant('cancel' as const), who, pick: fc.nat({ max: 20 }) }),
    fc.record({ kind: fc.constant('amend' as const), who, pick: fc.nat({ max: 20 }), keep: fc.integer({ min: 1, max: 99 }) }),
  )
  let placed = 0
  let fired = 0
  fc.assert(fc.property(fc.array(op, { minLength: 20, maxLength: 150 }), (ops) => {
    const ex = setup()
    ex.deposit(ALICE, 'BTC', COIN)
    ex.deposit(CAROL, 'BTC', COIN)
    ex.fund(BOB, 10_000, 0, 'SPOT')
    ex.fund(DAVE, 10_000, 0, 'SPOT')
    const start = { seq: ex.state.seq, snapshot: encodeSnapshot(ex.state) }
    const entries: Parameters<typeof apply>[1][] = []
    for (const o of ops) {
      let command: PlaceOrder | ReturnType<typeof cancel> | AmendKeepPriority
      if (o.kind === 'limit') command = limit(o.who, o.side, o.price, o.lots, { ...spot, timeInForce: 'GTC' })
      else if (o.kind === 'market') command = market(o.who, o.side, o.lots, spot)
      else if (o.kind === 'stop') {
        const limitForm = o.type === 'STOP' || o.type === 'TAKE_PROFIT'
        command = stop(o.who, o.side, o.type, o.stop, o.lots, limitForm ? { priceTicks: o.stop + o.offset, timeInForce: 'GTC' } : {})
      } else if (o.kind === 'cancel') {
        const open = [...ex.sub(o.who).orders.values()]
        command = cancel(o.who, { marketId: BTCSPOT, orderId: open.length === 0 ? 1 : open[o.pick % open.length]!.orderId })
      } else {
        // Cut an open order (resting or a waiting stop) to `keep` % of it, at least above its fills.
        const open = [...ex.sub(o.who).orders.values()]
        const target = open[o.pick % Math.max(1, open.length)]
        const qtyLots = target === undefined ? 1 : Math.max(target.executedQtyLots + 1, Math.floor(target.origQtyLots * o.keep / 100))
        command = { type: 'AmendKeepPriority', account: o.who, sub: 0, marketId: BTCSPOT, orderId: target?.orderId ?? 1, qtyLots }
      }
      const entry = { seq: ex.state.seq + 1, time: ex.time + 1, command }
      entries.push(structuredClone(entry))
      const r = apply(ex.state, entry)
      for (const e of r.events) {
        if (e.type !== 'order' || e.cond === undefined) continue
        if (e.execType === 'NEW' && e.cond.triggerTime === 0) placed++
        if (e.cond.triggerTime > 0 && (e.execType === 'NEW' || e.execType === 'EXPIRED')) fired++
      }
      ex.time += 1
      const v = stateViolations(ex.state)
      if (v.length > 0) throw new Error(`after ${JSON.stringify(command)}: ${v.join('; ')}`)
    }
    // The same entries on the state restored from before them: the same root.
    const again = decodeSnapshot(start.snapshot)
    for (const e of entries) apply(again, e)
    return stateRoot(again) === stateRoot(ex.state)
  }), runs(40))
  t.comment(`stops placed ${placed}, fired ${fired}`)
  t.ok(placed > 80 && fired > 30, 'the flow places stops and fires many of them')
})

t.test('a waiting stop amended keeping priority: its quantity and what it holds cut, off any book', async (t) => {
  const ex = setup()
  // A market-form sell (holds base) and a market-form buy (holds its cost at the stop price).
  const sell = ex.ok(stop(BOB, 'SELL', 'STOP_MARKET', 2_900_000, 100, { clientOrderId: 'sl' }))
  const buy = ex.ok(stop(ALICE, 'BUY', 'STOP_MARKET', 3_100_000, 100))
  const r = ex.ok({ type: 'AmendKeepPriority', account: BOB, sub: 0, marketId: BTCSPOT, clientOrderId: 'sl', qtyLots: 40 })
  t.match(orderEvents(r), [{ execType: 'REPLACED', orderType: 'STOP_MARKET', origQtyLots: 40, cond: { stopPriceTicks: 2_900_000 } }])
  t.equal(ex.sub(BOB).spot.get('BTC')!.locked, 400_000, '40 lots of base')
  const before = ex.sub(ALICE).spot.get('USDT')!.locked
  ex.ok({ type: 'AmendKeepPriority', account: ALICE, sub: 0, marketId: BTCSPOT, orderId: buy.orderId!, qtyLots: 30 })
  t.equal(before - ex.sub(ALICE).spot.get('USDT')!.locked, 70 * 3_100_000, 'the cut lots\' cost at the stop price')
  t.match(rejection(ex, { type: 'AmendKeepPriority', account: BOB, sub: 0, marketId: BTCSPOT, orderId: sell.orderId!, qtyLots: 1 }),
    { code: 'NOTIONAL_TOO_SMALL', rootUnchanged: true }, 'min notional at the stop price')
  // It still fires, for what is left.
  const fired = tradeAt(ex, 2_900_000)
  t.match(orderEvents(fired).filter((e) => e.orderId === sell.orderId), [{ execType: 'NEW', orderType: 'MARKET', origQtyLots: 40 }])
  t.same(stateViolations(ex.state), [])
})
