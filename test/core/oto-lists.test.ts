// OTO and OTOCO order lists (core/oto-lists.ts): the working order placed at once, the pending
// orders waiting as PENDING_NEW and holding nothing until it fills in full, then checked again
// and placed (an OTOCO's pair as an OCO under the same list id) or expired; the working order
// ending otherwise, or a pending one canceled, ends the list. BTCUSDT spot as in
// order-lists.test.ts: price × 100 = ticks, qty × 10,000 = lots.

import t from 'tap'
import fc from 'fast-check'
import type { Command, ListLeg, PlaceOtoList } from '../../core/commands.js'
import { stateRoot } from '../../core/root.js'
import { ORDER_STRATEGIES } from '../../core/rules.js'
import { decodeSnapshot, encodeSnapshot } from '../../core/snapshot.js'
import type { SpotMarket } from '../../core/state.js'
import { stateViolations } from '../../sim/model/invariants.js'
import { ALICE, BOB, BTCSPOT, CAROL, COIN, DAVE, TestExchange } from '../helpers/exchange.js'
import { cancel, limit, market, orderEvents, rejection } from '../helpers/commands.js'
import { runs } from '../helpers/property.js'
import { restoredAlike, spotScene } from '../helpers/spot-book.js'
import { fundEveryone, gap, listEvents, near, peg, plainCommand, plainOps, runFlow, side, who } from '../helpers/list-flow.js'

const spot = { marketId: BTCSPOT }

function oto(account: string, working: PlaceOtoList['working'], pendingSide: 'BUY' | 'SELL', pendingQtyLots: number,
  pending: { pending?: ListLeg; pendingAbove?: ListLeg; pendingBelow?: ListLeg }, extra: Partial<PlaceOtoList> = {}): PlaceOtoList {
  return { type: 'PlaceOtoList', account, sub: 0, marketId: BTCSPOT, working, pendingSide, pendingQtyLots, ...pending, ...extra }
}
const buyAt = (priceTicks: number, qtyLots: number, timeInForce: 'GTC' | 'IOC' = 'GTC'): PlaceOtoList['working'] =>
  ({ orderType: 'LIMIT', side: 'BUY', priceTicks, qtyLots, timeInForce })
const maker = (priceTicks: number): ListLeg => ({ orderType: 'POST_ONLY', priceTicks })
const stopMarket = (stopPriceTicks: number): ListLeg => ({ orderType: 'STOP_MARKET', stopPriceTicks })

/**
 * Alice and Carol hold 10,000 USDT and 0.01 BTC (a buy's fee is taken from the base it brings,
 * so an exit selling all of it needs a little more), Bob and Dave 1 BTC; one trade at 30,000.00
 * sets the last price.
 */
function setup(): TestExchange {
  const ex = spotScene(CAROL)
  ex.deposit(ALICE, 'BTC', COIN / 100)
  ex.deposit(CAROL, 'BTC', COIN / 100)
  return ex
}

const bal = (ex: TestExchange, who: string, asset: string) => [ex.sub(who).spot.get(asset)?.free ?? 0, ex.sub(who).spot.get(asset)?.locked ?? 0]

t.test('OTO: the pending sell waits holding nothing, and is placed once the working buy fills in full', async (t) => {
  const ex = setup()
  // Buy 0.1 at 29,900.00; then sell it at 31,000.00 (LIMIT_MAKER).
  const r = ex.ok(oto(ALICE, buyAt(2_990_000, 1_000), 'SELL', 1_000, { pending: maker(3_100_000) }, { listClientOrderId: 'entry' }))
  const [working, pending] = orderEvents(r)
  t.match(pending, { execType: 'NEW', status: 'PENDING_NEW', side: 'SELL', orderType: 'POST_ONLY', orderListId: 1 })
  t.match(working, { execType: 'NEW', status: 'NEW', side: 'BUY', orderType: 'LIMIT', orderListId: 1 })
  t.ok(working!.orderId < pending!.orderId, 'the working order has the lower id')
  t.match(listEvents(r), [{ contingencyType: 'OTO', listStatusType: 'EXEC_STARTED', listClientOrderId: 'entry',
    orders: [{ orderId: working!.orderId }, { orderId: pending!.orderId }] }])
  t.same(bal(ex, ALICE, 'USDT')[1], 2_990_000_000, 'only the working order holds')
  t.same(ex.state.markets[BTCSPOT]!.book.asks.best(), undefined, 'the pending order is on no book')
  t.equal(ex.sub(ALICE).orders.get(pending!.clientOrderId)?.status, 'PENDING_NEW', 'an open order of Alice\'s')

  const half = ex.ok(market(DAVE, 'SELL', 500, spot))
  t.same(listEvents(half), [], 'a partial fill places nothing')
  const rest = ex.ok(market(DAVE, 'SELL', 500, spot))
  const placed = orderEvents(rest).filter((e) => e.orderId === pending!.orderId)
  t.match(placed, [{ execType: 'NEW', status: 'NEW', orderType: 'POST_ONLY', priceTicks: 3_100_000 }])
  t.match(listEvents(rest), [{ listStatusType: 'ALL_DONE' }])
  t.same([ex.state.markets[BTCSPOT]!.book.asks.best()!.priceTicks, ex.state.markets[BTCSPOT]!.book.asks.best()!.qtyLots], [3_100_000, 1_000])
  t.equal(bal(ex, ALICE, 'BTC')[1], 10_000_000, 'the bought 0.1 BTC now held by the sell')
  t.same(orderEvents(rest).filter((e) => e.orderId === working!.orderId).map((e) => e.status), [], 'the fill is a trade event')
  t.same(stateViolations(ex.state), [])
})

t.test('OTOCO: filled at once, the pair is placed as an OCO under the same id; the stop then ends it', async (t) => {
  const ex = setup()
  ex.ok(limit(DAVE, 'SELL', 3_000_000, 1_000, spot))
  const r = ex.ok(oto(ALICE, buyAt(3_000_000, 1_000), 'SELL', 1_000, { pendingAbove: maker(3_100_000), pendingBelow: stopMarket(2_900_000) }))
  const ids = listEvents(r)[0]!.orders.map((o) => o.orderId)
  t.equal(ids.length, 3)
  t.same(listEvents(r).map((e) => [e.contingencyType, e.listStatusType]), [['OTO', 'EXEC_STARTED'], ['OTO', 'EXEC_STARTED']],
    'placed, then the pair placed in the same command')
  t.same(orderEvents(r).filter((e) => e.orderId !== ids[0]).map((e) => [e.orderId, e.status]),
    [[ids[1], 'PENDING_NEW'], [ids[2], 'PENDING_NEW'], [ids[1], 'NEW'], [ids[2], 'NEW']])
  t.equal(bal(ex, ALICE, 'BTC')[1], 10_000_000, 'held once for both')
  const fired = ex.ok(limit(DAVE, 'SELL', 2_900_000, 10, spot)) && ex.ok(limit(CAROL, 'BUY', 2_900_000, 10, spot))
  t.match(orderEvents(fired).filter((e) => e.orderId === ids[2]), [{ execType: 'EXPIRED' }], 'the maker expired')
  t.match(listEvents(fired), [{ orderListId: 1, listStatusType: 'ALL_DONE' }])
  t.same(stateViolations(ex.state), [])
})

t.test('rules 7: the working and pending orders keep their own strategy tags, the pending ones as they are placed', async (t) => {
  const ex = setup()
  ex.ok({ type: 'SetRules', version: ORDER_STRATEGIES, leafSeed: '0x' + '7d'.repeat(32) })
  const r = ex.ok(oto(ALICE, { ...buyAt(2_990_000, 1_000), strategyId: 10, strategyType: 1_000_010 }, 'SELL', 1_000,
    { pendingAbove: { ...maker(3_100_000), strategyId: 11 }, pendingBelow: { ...stopMarket(2_900_000), strategyType: 1_000_012 } }))
  const [working, below, above] = orderEvents(r)
  t.match([working, below, above], [{ status: 'NEW', strategyId: 10, strategyType: 1_000_010 },
    { status: 'PENDING_NEW', strategyType: 1_000_012 }, { status: 'PENDING_NEW', strategyId: 11 }])
  t.notOk('strategyId' in below! || 'strategyType' in above!, 'only what each sent')
  // Restored while they wait, then the working order fills: the pair is placed, each with its tags.
  const { restored, results } = restoredAlike(ex, [market(DAVE, 'SELL', 1_000, spot)])
  t.same(results[0]![1], results[0]![0])
  t.equal(stateRoot(restored), stateRoot(ex.state))
  t.match(orderEvents(results[0]![0]).filter((e) => e.status === 'NEW' && e.orderId !== working!.orderId && e.account === ALICE), [
    { orderId: below!.orderId, strategyType: 1_000_012 }, { orderId: above!.orderId, strategyId: 11 }])
  t.same(rejection(ex, oto(ALICE, buyAt(2_990_000, 10), 'SELL', 10, { pending: { ...maker(3_100_000), strategyType: 999_999 } })),
    { code: 'STRATEGY_TYPE_INVALID', eventCount: 0, rootUnchanged: true })
  t.same(stateViolations(ex.state), [])
})

t.test('canceling a pending order cancels the list; a working order that expires unfilled takes the pending with it', async (t) => {
  const ex = setup()
  const r = ex.ok(oto(ALICE, buyAt(2_990_000, 1_000), 'SELL', 1_000, { pending: maker(3_100_000) }))
  const pendingId = orderEvents(r)[1]!.orderId
  const c = ex.ok(cancel(ALICE, { marketId: BTCSPOT, orderId: pendingId }))
  t.same(orderEvents(c).map((e) => [e.orderId === pendingId ? 'pending' : 'working', e.status]), [['pending', 'CANCELED'], ['working', 'CANCELED']])
  t.match(listEvents(c), [{ listStatusType: 'ALL_DONE' }])
  t.same(bal(ex, ALICE, 'USDT')[1], 0)

  const ioc = ex.ok(oto(ALICE, buyAt(2_990_000, 1_000, 'IOC'), 'SELL', 1_000, { pending: maker(3_100_000) }))
  t.same(orderEvents(ioc).map((e) => e.status), ['NEW', 'PENDING_NEW', 'EXPIRED', 'EXPIRED'], 'nothing to buy: both expire')
  t.match(listEvents(ioc).map((e) => e.listStatusType), ['EXEC_STARTED', 'ALL_DONE'])
  t.equal(ex.sub(ALICE).orders.size, 0)
  t.same(stateViolations(ex.state), [])
})

t.test('a pending order refused as it is placed expires', async (t) => {
  const ex = setup()
  // Sell the bought 0.1 with a stop at 29,950: once the buy at 29,950 trades, the last price is
  // the stop's, so it would trigger at once.
  ex.ok(oto(ALICE, buyAt(2_995_000, 1_000), 'SELL', 1_000, { pending: stopMarket(2_995_000) }))
  const r = ex.ok(market(DAVE, 'SELL', 1_000, spot))
  t.match(orderEvents(r).filter((e) => e.orderType === 'STOP_MARKET'), [{ status: 'EXPIRED', cond: { reason: 'WOULD_TRIGGER' } }])
  t.match(listEvents(r), [{ listStatusType: 'ALL_DONE' }])
  t.same(stateViolations(ex.state), [])
})

t.test('refusals: working type, duplicate ids, pending shape; nothing changes', async (t) => {
  const ex = setup()
  const cases: [string, Command, string][] = [
    ['a market working order', oto(ALICE, { orderType: 'MARKET', side: 'BUY', qtyLots: 10 }, 'SELL', 10, { pending: maker(3_100_000) }), 'LIST_LEG_TYPE'],
    ['both pending forms', oto(ALICE, buyAt(2_990_000, 100), 'SELL', 100, { pending: maker(3_100_000), pendingAbove: maker(3_100_000) }), 'COMMAND_INVALID'],
    ['a trailing pending order', oto(ALICE, buyAt(2_990_000, 100), 'SELL', 100, { pending: { orderType: 'TRAILING_STOP_MARKET' } }), 'LIST_LEG_TYPE'],
    ['an OTOCO pair the wrong way round', oto(ALICE, buyAt(2_990_000, 100), 'SELL', 100, { pendingAbove: stopMarket(3_100_000), pendingBelow: maker(2_900_000) }), 'LIST_STOP_BELOW'],
    ['one client id twice', oto(ALICE, { ...buyAt(2_990_000, 100), clientOrderId: 'a' }, 'SELL', 100, { pending: { ...maker(3_100_000), clientOrderId: 'a' } }), 'CLIENT_ID_DUPLICATE'],
    ['a working order beyond the balance', oto(ALICE, buyAt(2_990_000, 40_000), 'SELL', 100, { pending: maker(3_100_000) }), 'BALANCE_INSUFFICIENT'],
    ['a pending order off the tick', oto(ALICE, buyAt(2_990_000, 100), 'SELL', 100, { pending: maker(3_100_000.5) }), 'PRICE_TICK'],
  ]
  for (const [name, command, code] of cases) t.match(rejection(ex, command), { code, eventCount: 0, rootUnchanged: true }, name)
  // The pending sell needs no BTC now: it is checked as it is placed.
  t.match(rejection(ex, oto(ALICE, buyAt(2_990_000, 100), 'SELL', 100, { pending: maker(3_100_000) })), { code: 'ACCEPTED' })
})

t.test('amending an OTO list\'s orders: the working and a pending order alone, an OTOCO\'s pending pair together', async (t) => {
  const ex = setup()
  const amend = (orderId: number, qtyLots: number) => ({ type: 'AmendKeepPriority' as const, account: ALICE, sub: 0, marketId: BTCSPOT, orderId, qtyLots })
  const one = ex.ok(oto(ALICE, buyAt(2_990_000, 1_000), 'SELL', 1_000, { pending: maker(3_100_000) }))
  const [working, pending] = orderEvents(one)
  const w = ex.ok(amend(working!.orderId, 800))
  t.same(orderEvents(w).map((e) => [e.orderId, e.origQtyLots]), [[working!.orderId, 800]], 'the working order alone')
  t.same(bal(ex, ALICE, 'USDT')[1], 800 * 2_990_000)
  t.match(listEvents(w), [{ listStatusType: 'UPDATED' }], 'its generated client id is the list\'s news')
  const p = ex.ok(amend(pending!.orderId, 600))
  t.same(orderEvents(p).map((e) => [e.orderId, e.status, e.origQtyLots]), [[pending!.orderId, 'PENDING_NEW', 600]])
  t.same(bal(ex, ALICE, 'USDT')[1], 800 * 2_990_000, 'a pending order holds nothing to give back')
  // Filled, the working order places the pending one with its amended quantity.
  const filled = ex.ok(limit(DAVE, 'SELL', 2_990_000, 800, spot))
  t.match(orderEvents(filled).find((e) => e.orderId === pending!.orderId && e.status === 'NEW'), { origQtyLots: 600 })

  const pair = ex.ok(oto(ALICE, buyAt(2_950_000, 500), 'SELL', 500, { pendingAbove: maker(3_100_000), pendingBelow: stopMarket(2_800_000) }))
  const [, below, above] = orderEvents(pair)
  const cut = ex.ok(amend(above!.orderId, 300))
  t.same(orderEvents(cut).map((e) => [e.orderId, e.origQtyLots]), [[above!.orderId, 300], [below!.orderId, 300]], 'one quantity for the pair')
  t.same(stateViolations(ex.state), [])
})

t.test('a list with pending orders survives a snapshot: same root, and the same results after', async (t) => {
  const ex = setup()
  ex.ok(oto(ALICE, buyAt(2_990_000, 1_000), 'SELL', 1_000, { pending: maker(3_100_000) }))
  ex.ok(oto(CAROL, buyAt(2_980_000, 500), 'SELL', 500, { pendingAbove: maker(3_100_000), pendingBelow: stopMarket(2_900_000) }))
  const copy = decodeSnapshot(encodeSnapshot(ex.state))
  t.equal(stateRoot(copy), stateRoot(ex.state))
  t.equal((copy.markets[BTCSPOT] as SpotMarket).stops.pending.size, 3)
  const { restored, results } = restoredAlike(ex, [market(DAVE, 'SELL', 1_500, spot), limit(BOB, 'SELL', 2_900_000, 10, spot),
    market(ALICE, 'BUY', 10, spot)])
  for (const [straight, resumed] of results) t.same(resumed, straight)
  t.equal(stateRoot(restored), stateRoot(ex.state))
  t.same(stateViolations(restored), [])
})

t.test('property: random spot flows with OTO and OTOCO lists (OPO and OPOCO among them) keep every invariant and replay from a snapshot to the same root', async (t) => {
  const op = fc.oneof(...plainOps,
    fc.record({ kind: fc.constant('oto' as const), who, side, price: near, lots: fc.integer({ min: 2, max: 60 }), up: gap, down: gap,
      pair: fc.boolean(), pendingType: fc.constantFrom('maker', 'limit', 'market', 'stop'), ioc: fc.boolean(), opo: fc.boolean(), peg }))
  let lists = 0
  let opoLists = 0
  let activated = 0
  fc.assert(fc.property(fc.array(op, { minLength: 20, maxLength: 120 }), (ops) => {
    const ex = fundEveryone(setup())
    return runFlow(ex, ops.length, (i) => {
      const o = ops[i]!
      if (o.kind !== 'oto') return plainCommand(ex, o)
      // Enter at `price`, then exit the other way: a profit leg past the entry, a stop loss short of it.
      const exit = o.side === 'BUY' ? 'SELL' : 'BUY'
      const profit = exit === 'SELL' ? o.price + o.up : o.price - o.up
      const loss = exit === 'SELL' ? o.price - o.down : o.price + o.down
      const working = { orderType: 'LIMIT' as const, side: o.side, priceTicks: o.price, qtyLots: o.lots, timeInForce: o.ioc ? 'IOC' as const : 'GTC' as const }
      const single: ListLeg = o.pendingType === 'maker' ? maker(profit) : o.pendingType === 'limit' ? { orderType: 'LIMIT', priceTicks: profit, timeInForce: 'GTC' }
        : o.pendingType === 'market' ? { orderType: 'MARKET' } : stopMarket(loss)
      // A buy's exits now and then sell just what it brings (OPO, OPOCO).
      const opo = o.opo && o.side === 'BUY' ? { opo: true, pendingQtyLots: 0 } : {}
      // Now and then the limit exits are pegged: priced from the book as they are placed, once the working order has filled.
      const exitMaker = maker(profit)
      if (o.peg !== null) for (const leg of [single, exitMaker]) if (leg.priceTicks !== undefined) leg.pegPriceType = o.peg
      if (!o.pair) return oto(o.who, working, exit, o.lots, { pending: single }, opo)
      return oto(o.who, working, exit, o.lots, exit === 'SELL' ? { pendingAbove: exitMaker, pendingBelow: stopMarket(loss) }
        : { pendingAbove: stopMarket(loss), pendingBelow: exitMaker }, opo)
    }, (c, r) => {
      if (c.type === 'PlaceOtoList' && r.ok) lists++
      if (c.type === 'PlaceOtoList' && r.ok && c.opo === true) opoLists++
      // Pending orders placed once their working order filled: NEW records of list orders in other commands.
      if (c.type !== 'PlaceOtoList') activated += orderEvents(r).filter((e) => e.orderListId !== undefined && e.execType === 'NEW').length
    })
  }), runs(40))
  t.comment(`lists placed ${lists} (OPO ${opoLists}), pending orders placed later ${activated}`)
  t.ok(lists > 100 && activated > 15 && opoLists > 20, 'the flow places lists (OPO among them) and activates many of them')
})
