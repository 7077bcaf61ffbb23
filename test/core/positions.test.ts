// Position modes (one-way ⇄ hedge), position sides, and reduce-only: accepted only when it
// reduces, exempt from margin and minimum notional, capped at match time so it never flips a
// position, and expired when it meets a taker after its position is gone.

import t from 'tap'
import type { Command } from '../../core/commands.js'
import { marginView } from '../../core/margin.js'
import { ALICE, BOB, BTCPERP, BTCSPOT, CAROL, DAVE, TestExchange, USDT } from '../helpers/exchange.js'
import { fillTrail, limit, market, orderTrail, placedId, rejection, tradeEvents } from '../helpers/commands.js'

const mode = (dualSide: boolean, account = ALICE): Command => ({ type: 'ChangePositionMode', account, sub: 0, dualSide })

function setup(): TestExchange {
  const ex = new TestExchange()
  for (const a of [ALICE, BOB, CAROL]) ex.fund(a, 100_000)
  return ex
}

/** Alice long 10 lots at 50000.0, bought from Bob. */
function aliceLong(ex: TestExchange): void {
  ex.ok(limit(BOB, 'SELL', 500_000, 10))
  ex.ok(limit(ALICE, 'BUY', 500_000, 10))
}

t.test('ChangePositionMode', async (t) => {
  const fresh = new TestExchange()
  t.same(rejection(fresh, mode(false)), { code: 'POSITION_MODE_UNCHANGED', eventCount: 0, rootUnchanged: true },
    'an unknown account is one-way already')

  const ex = setup()
  t.equal(rejection(ex, { type: 'ChangePositionMode', account: ALICE, sub: 0, dualSide: 'yes' as never }).code, 'COMMAND_INVALID')
  const r = ex.ok(mode(true))
  t.match(r.events, [{ type: 'positionMode', account: ALICE, sub: 0, dualSide: true }])
  t.equal(rejection(ex, mode(true)).code, 'POSITION_MODE_UNCHANGED')
  ex.ok(mode(false))

  // Open perp orders block a change; spot orders do not.
  ex.deposit(ALICE, 'BTC', 100_000_000)
  ex.ok(limit(ALICE, 'SELL', 6_000_000, 10, { marketId: BTCSPOT }))
  t.equal(rejection(ex, mode(true)).code, 'ACCEPTED', 'a spot order does not block')
  ex.ok(mode(false))
  const id = placedId(ex.ok(limit(ALICE, 'BUY', 490_000, 10)))
  t.same(rejection(ex, mode(true)), { code: 'POSITION_MODE_OPEN_ORDERS', eventCount: 0, rootUnchanged: true })
  ex.ok({ type: 'CancelOrder', account: ALICE, sub: 0, marketId: BTCPERP, orderId: id })

  // A position blocks it until closed.
  aliceLong(ex)
  t.same(rejection(ex, mode(true)), { code: 'POSITION_MODE_OPEN_POSITION', eventCount: 0, rootUnchanged: true })
  ex.ok(limit(BOB, 'BUY', 500_000, 10))
  ex.ok(market(ALICE, 'SELL', 10))
  t.equal(ex.position(ALICE).qtyLots, 0)
  t.equal(rejection(ex, mode(true)).code, 'ACCEPTED', 'flat again')
})

t.test('position side checks', async (t) => {
  const rows: [string, boolean, Command, string][] = [
    ['hedge without positionSide', true, limit(ALICE, 'BUY', 490_000, 10), 'POSITION_SIDE_INVALID'],
    ['hedge with BOTH', true, limit(ALICE, 'BUY', 490_000, 10, { positionSide: 'BOTH' }), 'POSITION_SIDE_INVALID'],
    ['hedge with reduceOnly', true, limit(ALICE, 'SELL', 510_000, 10, { positionSide: 'LONG', reduceOnly: true }), 'REDUCE_ONLY_IMPROPER'],
    ['hedge BUY LONG', true, limit(ALICE, 'BUY', 490_000, 10, { positionSide: 'LONG' }), 'ACCEPTED'],
    ['hedge SELL SHORT', true, limit(ALICE, 'SELL', 510_000, 10, { positionSide: 'SHORT' }), 'ACCEPTED'],
    ['hedge SELL LONG with no long', true, limit(ALICE, 'SELL', 510_000, 10, { positionSide: 'LONG' }), 'REDUCE_ONLY_REJECTED'],
    ['one-way with LONG', false, limit(ALICE, 'BUY', 490_000, 10, { positionSide: 'LONG' }), 'POSITION_SIDE_INVALID'],
    ['one-way with BOTH', false, limit(ALICE, 'BUY', 490_000, 10, { positionSide: 'BOTH' }), 'ACCEPTED'],
    ['reduceOnly not a boolean', false, limit(ALICE, 'BUY', 490_000, 10, { reduceOnly: 'true' as never }), 'REDUCE_ONLY_IMPROPER'],
  ]
  for (const [name, hedge, cmd, code] of rows) {
    const ex = setup()
    if (hedge) ex.ok(mode(true))
    const rej = rejection(ex, cmd)
    t.equal(rej.code, code, name)
    if (code !== 'ACCEPTED') t.ok(rej.rootUnchanged, `${name}: nothing changed`)
  }
})

t.test('hedge mode keeps a long and a short side by side and closes each on its own', async (t) => {
  const ex = setup()
  ex.ok(mode(true))
  ex.ok(limit(BOB, 'SELL', 500_000, 10))
  const open = tradeEvents(ex.ok(limit(ALICE, 'BUY', 500_000, 10, { positionSide: 'LONG' })))[0]!
  t.same([open.taker.positionSide, open.taker.positionQtyLots], ['LONG', 10])
  ex.ok(limit(ALICE, 'SELL', 510_000, 10, { positionSide: 'SHORT' }))
  ex.ok(limit(BOB, 'BUY', 510_000, 10)) // Bob closes his short 10; Alice's SHORT opens
  t.same([ex.position(ALICE, BTCPERP, 'LONG').qtyLots, ex.position(ALICE, BTCPERP, 'LONG').costTicksLots], [10, 5_000_000])
  t.same([ex.position(ALICE, BTCPERP, 'SHORT').qtyLots, ex.position(ALICE, BTCPERP, 'SHORT').costTicksLots], [-10, -5_100_000])
  t.equal(ex.position(ALICE, BTCPERP, 'BOTH').qtyLots, 0)

  // Closing needs no margin: the requirement stays at both positions at the mark 51000.0:
  // (10 + 10) × 510,000 × 100 / 20 = 51,000,000.
  const before = marginView(ex.state, ex.sub(ALICE)).initialMargin
  t.equal(before, 51_000_000)
  const rows: [string, Command, string][] = [
    ['SELL LONG 11 of 10', limit(ALICE, 'SELL', 520_000, 11, { positionSide: 'LONG' }), 'REDUCE_ONLY_REJECTED'],
    ['BUY SHORT 11 of 10', limit(ALICE, 'BUY', 490_000, 11, { positionSide: 'SHORT' }), 'REDUCE_ONLY_REJECTED'],
    ['BUY SHORT 10', limit(ALICE, 'BUY', 490_000, 10, { positionSide: 'SHORT' }), 'ACCEPTED'],
    ['SELL LONG 4', limit(ALICE, 'SELL', 520_000, 4, { positionSide: 'LONG' }), 'ACCEPTED'],
  ]
  for (const [name, cmd, code] of rows) t.equal(rejection(ex, cmd).code, code, name)
  t.equal(marginView(ex.state, ex.sub(ALICE)).initialMargin, before, 'closing orders add nothing')

  // Carol lifts the 4: Alice's LONG realizes 4 × 520,000 − 2,000,000 = 80,000 tick·lots = 8,000,000.
  const close = tradeEvents(ex.ok(limit(CAROL, 'BUY', 520_000, 4)))[0]!
  t.same([close.maker.account, close.maker.positionSide, close.maker.realizedPnl, close.maker.positionQtyLots,
    close.maker.positionCostTicksLots], [ALICE, 'LONG', 8_000_000, 6, 3_000_000])
  t.equal(ex.position(ALICE, BTCPERP, 'SHORT').qtyLots, -10, 'the short side is untouched')
})

t.test('reduce-only placement', async (t) => {
  const rows: [string, Command, string][] = [
    ['sell the whole long', limit(ALICE, 'SELL', 510_000, 10, { reduceOnly: true }), 'ACCEPTED'],
    ['sell more than the long', limit(ALICE, 'SELL', 510_000, 11, { reduceOnly: true }), 'REDUCE_ONLY_REJECTED'],
    ['buy onto the long', limit(ALICE, 'BUY', 490_000, 2, { reduceOnly: true }), 'REDUCE_ONLY_REJECTED'],
    ['no position at all', limit(CAROL, 'SELL', 510_000, 10, { reduceOnly: true }), 'REDUCE_ONLY_REJECTED'],
    // 1 lot at 50000.0 = 50 USDT, under the 100 USDT minimum: reduce-only is exempt.
    ['small reduce-only limit', limit(ALICE, 'SELL', 500_000, 1, { reduceOnly: true }), 'ACCEPTED'],
    ['small plain limit', limit(ALICE, 'SELL', 500_000, 1), 'NOTIONAL_TOO_SMALL'],
    ['small reduce-only market', market(ALICE, 'SELL', 1, { reduceOnly: true }), 'ACCEPTED'],
    ['small plain market (mark 50000.0)', market(ALICE, 'SELL', 1), 'NOTIONAL_TOO_SMALL'],
    ['reduce-only market larger than the long', market(ALICE, 'SELL', 11, { reduceOnly: true }), 'REDUCE_ONLY_REJECTED'],
  ]
  for (const [name, cmd, code] of rows) {
    const ex = setup()
    aliceLong(ex)
    ex.ok(limit(BOB, 'BUY', 490_000, 20)) // liquidity for the market rows
    const rej = rejection(ex, cmd)
    t.equal(rej.code, code, name)
    if (code !== 'ACCEPTED') t.ok(rej.rootUnchanged, `${name}: nothing changed`)
  }
})

t.test('reduce-only needs no margin; a plain order that only closes counts nothing', async (t) => {
  const ex = new TestExchange()
  ex.ok({ type: 'Deposit', account: ALICE, sub: 0, asset: 'USDT', amount: 25_250_000, wallet: 'PERP', ref: 'a' })
  ex.fund(BOB, 100_000)
  aliceLong(ex) // wallet 25,250,000 − 250,000 fee = 25,000,000; IM of the long 25,000,000
  t.equal(marginView(ex.state, ex.sub(ALICE)).available, 0)
  const rows: [string, Command, string][] = [
    ['reduce-only sell 10', limit(ALICE, 'SELL', 510_000, 10, { reduceOnly: true }), 'ACCEPTED'],
    ['plain sell 10', limit(ALICE, 'SELL', 510_000, 10), 'ACCEPTED'],
    ['plain sell 12 opens 2', limit(ALICE, 'SELL', 510_000, 12), 'MARGIN_INSUFFICIENT'],
  ]
  for (const [name, cmd, code] of rows) t.equal(rejection(ex, cmd).code, code, name)
})

t.test('resting reduce-only orders are capped so they never flip the position', async (t) => {
  const rows: { name: string, makers: number[], take: number, fills: number[], trail: [string, string, number][], carolRests: number }[] = [
    {
      name: 'two 6-lot closes of a 10 long: 6, then 4 and the second expires',
      makers: [6, 6], take: 12, fills: [6, 4],
      trail: [[CAROL, 'NEW', 0], [ALICE, 'EXPIRED', 4]], carolRests: 2,
    },
    {
      name: 'two 10-lot closes: the second expires untouched',
      makers: [10, 10], take: 20, fills: [10],
      trail: [[CAROL, 'NEW', 0], [ALICE, 'EXPIRED', 0]], carolRests: 10,
    },
    {
      name: 'a close that exactly empties the position just fills',
      makers: [4, 6], take: 10, fills: [4, 6],
      trail: [[CAROL, 'NEW', 0]], carolRests: 0,
    },
  ]
  for (const r of rows) {
    const ex = setup()
    aliceLong(ex)
    for (const lots of r.makers) ex.ok(limit(ALICE, 'SELL', 510_000, lots, { reduceOnly: true }))
    const res = ex.ok(limit(CAROL, 'BUY', 510_000, r.take))
    t.same(fillTrail(res).map((f) => f[1]), r.fills, r.name)
    t.same(orderTrail(res).map(([who, , , status, exec]) => [who, status, exec]), r.trail, r.name)
    t.equal(ex.position(ALICE).qtyLots, 0, `${r.name}: flat, never short`)
    t.equal(ex.sub(ALICE).orders.size, 0, `${r.name}: no reduce-only order left`)
    const carol = [...ex.sub(CAROL).orders.values()]
    t.equal(carol.length ? carol[0]!.origQtyLots - carol[0]!.executedQtyLots : 0, r.carolRests, `${r.name}: Carol's rest`)
  }
})

t.test('a resting reduce-only order expires in the command that closes or flips its position', async (t) => {
  for (const [name, sold, position] of [['closed', 10, 0], ['flipped short', 15, -5]] as const) {
    const ex = setup()
    aliceLong(ex)
    const id = placedId(ex.ok(limit(ALICE, 'SELL', 520_000, 10, { reduceOnly: true })))
    ex.ok(limit(BOB, 'BUY', 500_000, sold))
    const closing = ex.ok(market(ALICE, 'SELL', sold))
    t.equal(ex.position(ALICE).qtyLots, position, name)
    t.same(orderTrail(closing).at(-1), [ALICE, id, 'EXPIRED', 'EXPIRED', 0], `${name}: expired by the close`)
    const r = ex.ok(limit(CAROL, 'BUY', 520_000, 10))
    t.same(tradeEvents(r), [], `${name}: no trade`)
    t.same(orderTrail(r), [[CAROL, id + 3, 'NEW', 'NEW', 0]], name)
    t.equal(ex.position(ALICE).qtyLots, position, `${name}: position unchanged`)
    t.equal(ex.state.markets[BTCPERP]!.book.bids.best()!.qtyLots, 10, `${name}: Carol rests`)
  }
})

t.test('FOK counts only what capped reduce-only makers can fill', async (t) => {
  for (const [lots, code] of [[10, 'ACCEPTED'], [11, 'FOK_UNFILLED']] as const) {
    const ex = setup()
    aliceLong(ex)
    ex.ok(limit(ALICE, 'SELL', 510_000, 6, { reduceOnly: true }))
    ex.ok(limit(ALICE, 'SELL', 510_000, 6, { reduceOnly: true }))
    t.equal(rejection(ex, limit(CAROL, 'BUY', 510_000, lots, { timeInForce: 'FOK' })).code, code, `${lots} lots`)
  }
})

t.test('a reduce-only taker', async (t) => {
  const ex = setup()
  aliceLong(ex)
  ex.ok(limit(BOB, 'BUY', 500_000, 4))
  ex.ok(limit(CAROL, 'BUY', 499_000, 20))
  const r = ex.ok(market(ALICE, 'SELL', 10, { reduceOnly: true }))
  t.same(fillTrail(r), [[500_000, 4, BOB, 3, ALICE], [499_000, 6, CAROL, 4, ALICE]])
  // Realized: 4 × 500,000 + 6 × 499,000 − 5,000,000 = −6,000 tick·lots = −600,000 units.
  t.same(tradeEvents(r).map((e) => e.taker.realizedPnl), [0, -600_000])
  t.equal(ex.position(ALICE).qtyLots, 0)
  t.equal(ex.sub(ALICE).perpWallet, 100_000 * USDT - 250_000 - 100_000 - 149_700 - 600_000,
    'open fee 250,000; close fees 4 × 500,000 × 100 × 5e-4 = 100,000 and 6 × 499,000 × 100 × 5e-4 = 149,700')
})

t.test('a reduce-only order from an account that holds nothing has nothing to reduce', async (t) => {
  const ex = new TestExchange()
  const r = ex.run({ type: 'PlaceOrder', account: DAVE, sub: 0, marketId: BTCPERP, side: 'SELL', orderType: 'MARKET',
    qtyLots: 10, reduceOnly: true })
  t.same(r.ok ? 'ACCEPTED' : r.code, 'REDUCE_ONLY_REJECTED')
  const plain = ex.run({ type: 'PlaceOrder', account: DAVE, sub: 0, marketId: BTCPERP, side: 'SELL', orderType: 'MARKET', qtyLots: 10 })
  t.same(plain.ok ? 'ACCEPTED' : plain.code, 'MARGIN_INSUFFICIENT')
})
