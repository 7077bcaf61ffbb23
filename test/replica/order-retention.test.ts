// Order history and user trades kept as Binance keeps them (replica/projections/order-retention.ts,
// prune.ts): queries hide ended orders past the venue's rule and USDⓈ-M fills past 6 months, and
// prune deletes them with their index rows, never one a query still finds, over a real LevelDB store.

import { Level } from 'level'
import { join } from 'node:path'
import t from 'tap'
import type { Command, PlaceOrder } from '../../core/commands.js'
import type { Result } from '../../core/events.js'
import { ALICE, BOB, BTCPERP, BTCSPOT, COIN } from '../helpers/exchange.js'
import { Fixture, limit } from '../helpers/projections-fixture.js'

const M = Date.UTC(2024, 2, 1, 12, 0, 0)
const DAY = 86_400_000
const alice = { account: ALICE, sub: 0 }
const bob = { account: BOB, sub: 0 }
const PERP = [{ marketId: BTCPERP, spot: false }]
const SPOT = [{ marketId: BTCSPOT, spot: true }]

function orderIdOf(r: Result): number {
  const e = r.events.find((x) => x.type === 'order')
  if (e === undefined || e.type !== 'order') throw new Error('no order event')
  return e.orderId
}

async function place(f: Fixture, at: number, cmd: PlaceOrder): Promise<number> {
  return orderIdOf(await f.at(at, cmd))
}

const cancel = (account: string, marketId: number, orderId: number): Command =>
  ({ type: 'CancelOrder', account, sub: 0, marketId, orderId })

/** An entry that moves the projections' time on (their "now"). */
const later = (f: Fixture, at: number): Promise<Result> =>
  f.at(at, { type: 'Deposit', account: BOB, sub: 0, asset: 'USDT', amount: 1, wallet: 'PERP', ref: `later-${at}` })

/** Orders pruned in `markets`, after the other rows past their windows (the deposits' income rows) went. */
async function pruneOrders(f: Fixture, markets: typeof PERP): Promise<number> {
  await f.p.prune()
  return f.p.prune(undefined, markets)
}

async function ids(f: Fixture, owner: typeof alice, marketId: number, spot?: boolean): Promise<number[]> {
  return (await f.p.allOrders(owner, marketId, { limit: 1000, ...(spot === undefined ? {} : { spot }) })).map((o) => o.orderId)
}

t.test('USDⓈ-M: an unfilled canceled or expired order is shown 3 days, any ended order 90; prune deletes them', async (t) => {
  const f = await Fixture.open(t)
  for (const a of [ALICE, BOB]) await f.fund(a, 10_000_000)
  const canceled = await place(f, M, limit(ALICE, 'SELL', 30000, 0.01, { clientOrderId: 'c1' }))
  await f.at(M + 1000, cancel(ALICE, BTCPERP, canceled))
  const expired = await place(f, M + 2000, limit(ALICE, 'BUY', 20000, 0.01, { timeInForce: 'IOC' }))
  const traded = await place(f, M + 3000, limit(ALICE, 'SELL', 30000, 0.02, { clientOrderId: 'c2' }))
  const taker = await place(f, M + 4000, limit(BOB, 'BUY', 30000, 0.01))
  await f.at(M + 5000, cancel(ALICE, BTCPERP, traded)) // half filled, then canceled
  const open = await place(f, M + 6000, limit(ALICE, 'SELL', 40000, 0.01, { clientOrderId: 'open' }))
  // The same client id again, two days on: its row names this order from then.
  const reused = await place(f, M + 2 * DAY, limit(ALICE, 'SELL', 30000, 0.01, { clientOrderId: 'c1' }))
  await f.at(M + 2 * DAY + 1000, cancel(ALICE, BTCPERP, reused))

  await later(f, M + 3 * DAY)
  t.same(await ids(f, alice, BTCPERP, false), [canceled, expired, traded, open, reused], 'exactly 3 days on: all shown')
  t.same(await pruneOrders(f, PERP), 0, 'and none pruned')

  await later(f, M + 3 * DAY + 1001)
  t.same(await ids(f, alice, BTCPERP, false), [expired, traded, open, reused], 'past 3 days from its creation: the canceled one is hidden')
  t.equal(await f.p.order(alice, BTCPERP, canceled, false), undefined)
  t.equal((await f.p.order(alice, BTCPERP, canceled))?.status, 'CANCELED', 'still stored until pruned (no rule given: every order)')
  t.equal((await f.p.order(alice, BTCPERP, expired, false))?.status, 'EXPIRED', 'the expired one, 2 s younger, not yet')
  t.equal(await pruneOrders(f, PERP), 1, 'prune deletes the canceled one')
  t.equal(await f.p.order(alice, BTCPERP, canceled), undefined, 'gone from the store')

  await later(f, M + 3 * DAY + 2001)
  t.same(await ids(f, alice, BTCPERP, false), [traded, open, reused], 'then the expired one is hidden too')
  t.equal(await f.p.order(alice, BTCPERP, expired, false), undefined)
  t.equal((await f.p.order(alice, BTCPERP, traded, false))?.status, 'CANCELED', 'one that traded stays')
  t.equal((await f.p.orderByClientId(alice, BTCPERP, 'c1', false))?.orderId, reused, 'the client id names the newer order')
  t.equal(await pruneOrders(f, PERP), 1, 'and pruned')
  t.equal(await f.p.order(alice, BTCPERP, expired), undefined)
  t.same(await ids(f, alice, BTCPERP), [traded, open, reused], 'even without the rule')
  t.equal((await f.p.orderByClientId(alice, BTCPERP, 'c1'))?.orderId, reused, 'a client id naming a newer order keeps its row')
  t.equal(await pruneOrders(f, PERP), 0, 'nothing more')

  await later(f, M + 2 * DAY + 3 * DAY + 1001)
  t.equal(await pruneOrders(f, PERP), 1, 'the reused id\'s order in its turn')
  t.equal(await f.p.orderByClientId(alice, BTCPERP, 'c1'), undefined, 'and its client id row with it')

  await later(f, M + 90 * DAY + 3000)
  t.same(await ids(f, alice, BTCPERP, false), [traded, open], 'exactly 90 days after creation: still shown')
  await later(f, M + 90 * DAY + 6001)
  t.same(await ids(f, alice, BTCPERP, false), [open], 'past 90 days: only the open order')
  t.same(await ids(f, bob, BTCPERP, false), [], 'a filled one too')
  t.equal((await f.p.order(alice, BTCPERP, open, false))?.status, 'NEW', 'an open order is always found')
  t.equal(await pruneOrders(f, PERP), 2, 'the traded one and the taker\'s')
  t.same(await ids(f, alice, BTCPERP), [open])
  t.same(await ids(f, bob, BTCPERP), [])
  t.equal((await f.p.orderByClientId(alice, BTCPERP, 'open'))?.orderId, open, 'the open order and its client id stay')
  t.equal(await f.p.order(bob, BTCPERP, taker), undefined)
  t.equal((await f.p.userTrades(bob, BTCPERP, { limit: 10 })).length, 1, 'its fill stays in the user trades')
})

t.test('spot: an unfilled ended order is shown 90 days, one that traded for good', async (t) => {
  const f = await Fixture.open(t)
  await f.ok({ type: 'Deposit', account: ALICE, sub: 0, asset: 'BTC', amount: COIN, wallet: 'SPOT', ref: 'b:1' })
  await f.fund(BOB, 10_000, 'SPOT')
  const spot = (account: string, side: 'BUY' | 'SELL', qtyLots: number): PlaceOrder => ({
    type: 'PlaceOrder', account, sub: 0, marketId: BTCSPOT, side, orderType: 'LIMIT', timeInForce: 'GTC', priceTicks: 3_000_000, qtyLots,
  })
  const canceled = await place(f, M, spot(ALICE, 'SELL', 100))
  await f.at(M + 1000, cancel(ALICE, BTCSPOT, canceled))
  const maker = await place(f, M + 2000, spot(ALICE, 'SELL', 100))
  await place(f, M + 3000, spot(BOB, 'BUY', 100))

  await later(f, M + 4 * DAY)
  t.same(await ids(f, alice, BTCSPOT, true), [canceled, maker], 'past 3 days: spot still shows an unfilled one')
  t.same(await ids(f, alice, BTCSPOT, false), [maker], 'which the USDⓈ-M rule would hide')
  t.equal(await pruneOrders(f, SPOT), 0)

  await later(f, M + 90 * DAY + 1001)
  t.same(await ids(f, alice, BTCSPOT, true), [maker], 'past 90 days: the unfilled one is hidden, the filled one stays')
  t.equal(await pruneOrders(f, SPOT), 1)
  await later(f, M + 400 * DAY)
  t.same(await ids(f, alice, BTCSPOT, true), [maker], 'a year on, the filled one is still there')
  t.equal(await pruneOrders(f, SPOT), 0)
  t.equal(await pruneOrders(f, PERP), 0, 'another market\'s rule does not reach it')
  t.equal((await f.p.userTrades(alice, BTCSPOT, { limit: 10, spot: true })).length, 1, 'spot fills are kept for good')
})

t.test('a store written before the closed orders\' index gets it at open, and prunes as one written since', async (t) => {
  const f = await Fixture.open(t)
  await f.fund(ALICE, 10_000_000)
  const placed: number[] = []
  for (let i = 0; i < 5; i++) {
    const id = await place(f, M + i * 1000, limit(ALICE, 'SELL', 30000 + i, 0.01))
    if (i < 4) await f.at(M + i * 1000 + 1, cancel(ALICE, BTCPERP, id))
    placed.push(id)
  }
  // As an older store: no index rows, no mark that they were built.
  await f.p.close()
  const db = new Level<Buffer, Buffer>(join(f.dir, 'db'), { keyEncoding: 'buffer', valueEncoding: 'buffer' })
  const base = db.sublevel<Buffer, Buffer>('projections', { keyEncoding: 'buffer', valueEncoding: 'buffer' })
  const closed = base.sublevel<Buffer, Buffer>('closedOrders', { keyEncoding: 'buffer', valueEncoding: 'buffer' })
  t.equal((await closed.keys().all()).length, 4, 'the index held the four ended orders')
  await closed.clear()
  await base.sublevel<Buffer, Buffer>('meta', { keyEncoding: 'buffer', valueEncoding: 'buffer' }).del(Buffer.from('o'))
  await db.close()

  await f.reopen()
  await later(f, M + 4 * DAY)
  t.equal(await pruneOrders(f, PERP), 4, 'the index was rebuilt: all four pruned')
  t.same(await ids(f, alice, BTCPERP), [placed[4]], 'the open one stays')
})

t.test('USDⓈ-M user trades reach back 6 months; prune deletes older ones with their rows by order', async (t) => {
  const f = await Fixture.open(t)
  for (const a of [ALICE, BOB]) await f.fund(a, 10_000_000)
  const oldAsk = await place(f, M, limit(ALICE, 'SELL', 30000, 0.01))
  const oldBid = await place(f, M + 1, limit(BOB, 'BUY', 30000, 0.01))
  await place(f, M + 100 * DAY, limit(ALICE, 'SELL', 31000, 0.01))
  const newBid = await place(f, M + 100 * DAY + 1, limit(BOB, 'BUY', 31000, 0.01))
  const fills = async (q: { orderId?: number; fromId?: number; spot?: boolean } = {}) =>
    (await f.p.userTrades(bob, BTCPERP, { limit: 100, ...q })).map((r) => [r.tradeId, r.orderId])

  await later(f, M + 180 * DAY + 1)
  t.same(await fills({ spot: false }), [[1, oldBid], [2, newBid]], 'exactly 180 days on: both')
  await later(f, M + 180 * DAY + 2)
  t.same(await fills({ spot: false }), [[2, newBid]], 'past 6 months: the older fill is hidden')
  t.same(await fills({ spot: false, fromId: 1 }), [[2, newBid]], 'from a trade id too')
  t.same(await fills({ spot: false, orderId: oldBid }), [], 'and by its order')
  t.same(await fills(), [[1, oldBid], [2, newBid]], 'still stored until pruned')

  // The two orders of the old trade (ended past 90 days) and its two user trade rows.
  t.equal(await pruneOrders(f, PERP), 4)
  t.same(await fills(), [[2, newBid]], 'gone from the store')
  t.same(await fills({ orderId: oldBid }), [], 'its rows by order with it (a left row would name a missing fill)')
  t.same(await fills({ orderId: newBid }), [[2, newBid]])
  t.same((await f.p.userTrades(alice, BTCPERP, { limit: 100 })).map((r) => r.tradeId), [2], 'the maker\'s side too')
  t.equal(await f.p.order(alice, BTCPERP, oldAsk), undefined)
  t.equal(await pruneOrders(f, PERP), 0, 'nothing more')
})

t.test('conditional orders (allAlgoOrders): hidden ones do not use up the page', async (t) => {
  const f = await Fixture.open(t)
  await f.fund(ALICE, 10_000_000)
  const stop = (at: number): Promise<number> => place(f, at, { type: 'PlaceOrder', account: ALICE, sub: 0, marketId: BTCPERP, side: 'SELL',
    orderType: 'STOP_MARKET', qtyLots: 10, stopPriceTicks: 250_000 })
  const gone: number[] = []
  for (let i = 0; i < 3; i++) {
    gone.push(await stop(M + i))
    await f.at(M + i, cancel(ALICE, BTCPERP, gone[i]!))
  }
  const waiting = await stop(M + 2 * DAY)
  await later(f, M + 4 * DAY)
  const algo = async (q: { orderId?: number; limit: number }) =>
    (await f.p.allOrders(alice, BTCPERP, { ...q, conditionalOnly: true, spot: false })).map((o) => o.orderId)
  t.same(await algo({ orderId: 1, limit: 1 }), [waiting], 'from an id on: the first shown, past three hidden')
  t.same(await algo({ limit: 2 }), [waiting], 'the newest: the one shown')
  t.same(await algo({ orderId: 1, limit: 2 }), [waiting])
  t.same((await f.p.allOrders(alice, BTCPERP, { orderId: 1, limit: 1, conditionalOnly: true })).map((o) => o.orderId), [gone[0]],
    'without the rule, every one')
})
