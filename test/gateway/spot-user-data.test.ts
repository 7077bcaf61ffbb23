// The spot user data stream's REST side and payloads: /api/v3/userDataStream keys (a second
// key of the session, apart from the futures one), and the executionReport,
// outboundAccountPosition and balanceUpdate events a scripted sequence produces (an amendment
// keeping priority among them), exactly;
// the futures stream no longer carries the spot wallet's balanceUpdate.

import t from 'tap'
import type { Result } from '../../core/events.js'
import { UserEvents, type Payload } from '../../gateway/user-data/events.js'
import { SpotUserEvents } from '../../gateway/user-data/spot-events.js'
import { RULES_VERSION } from '../../core/rules.js'
import { gatewayRig, signedInject, spotRig, spotStreamOf, spotTraders, type GatewayRig, type Keys } from '../helpers/gateway.js'

const keyed = (rig: GatewayRig, keys: Keys | undefined, method: 'POST' | 'PUT' | 'DELETE', query = '') =>
  rig.app.inject({ method, url: '/api/v3/userDataStream' + query, headers: keys ? { 'x-mbx-apikey': keys.apiKey } : {} })

t.test('spot listen keys: create, extend, close; apart from the futures key', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const { seller: alice, buyer: bob } = await spotTraders(rig)

  t.same((await keyed(rig, undefined, 'POST')).json(), { code: -2014, msg: 'API-key format invalid.' })
  const key = (await keyed(rig, alice, 'POST')).json().listenKey as string
  t.match(key, /^[0-9a-f]{64}$/)
  t.equal((await keyed(rig, alice, 'POST')).json().listenKey, key, 'a live key is returned again')
  const futuresKey = (await rig.app.inject({ method: 'POST', url: '/fapi/v1/listenKey', headers: { 'x-mbx-apikey': alice.apiKey } })).json().listenKey
  t.not(futuresKey, key, 'the futures key is another key')
  t.equal(rig.app.spotListenKeys.live(key)?.stream, 'SPOT')
  t.equal(rig.app.spotListenKeys.live(futuresKey), undefined, 'nor is the futures key a spot key')

  t.same((await keyed(rig, alice, 'PUT')).json(), { code: -1102, msg: "Mandatory parameter 'listenKey' was not sent, was empty/null, or malformed." },
    'spot wants the key on PUT, as Binance does')
  t.same((await keyed(rig, alice, 'PUT', `?listenKey=${key}`)).json(), {}, 'and answers {}')
  t.same((await keyed(rig, alice, 'PUT', `?listenKey=${futuresKey}`)).json(), { code: -1125, msg: 'This listenKey does not exist.' })
  t.same((await keyed(rig, bob, 'DELETE', `?listenKey=${key}`)).json(), { code: -1125, msg: 'This listenKey does not exist.' },
    'another session cannot close it')

  t.same((await keyed(rig, alice, 'DELETE', `?listenKey=${key}`)).json(), {})
  t.equal(rig.app.spotListenKeys.live(key), undefined)
  t.ok(rig.app.listenKeys.live(futuresKey), 'closing the spot key leaves the futures key live')
  t.equal((await keyed(rig, alice, 'PUT', `?listenKey=${key}`)).json().code, -1125)
  t.equal((await keyed(rig, alice, 'POST')).json().listenKey, key, 'opened again, the same name')
})

t.test('executionReport, outboundAccountPosition and balanceUpdate for a scripted sequence', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const { sellerWallet, buyerWallet } = await spotTraders(rig)
  const alice = sellerWallet.address
  const bob = buyerWallet.address
  const spot = new SpotUserEvents()
  const futures = new UserEvents()
  spot.seed(rig.ex.state)
  futures.seed(rig.ex.state)
  const got: { who: string; payload: Payload }[] = []
  const futuresGot: Payload[] = []
  const names = new Map([[alice, 'alice'], [bob, 'bob']])
  const feed = (r: Result): void => {
    spot.entry(rig.ex.state, rig.ex.time, r.events, (account) => names.has(account),
      (account, sub, payload) => got.push({ who: `${names.get(account)}/${sub}`, payload }))
    futures.entry(rig.ex.state, rig.ex.time, r.events, () => true, (_a, _s, payload) => futuresGot.push(payload))
  }
  const take = (): Record<string, any>[] => got.splice(0).map((g) => ({ who: g.who, ...g.payload }))
  const kinds = (all: Record<string, any>[]): string[] => all.map((g) => `${g.who} ${g.e} ${g.x ?? ''}`.trim())

  // Alice offers 0.1 BTC at 50000: the order, then her balances with 0.1 BTC locked.
  feed(await rig.run({ type: 'PlaceOrder', account: alice, sub: 0, marketId: 3, side: 'SELL', orderType: 'LIMIT',
    timeInForce: 'GTC', priceTicks: 5_000_000, qtyLots: 1000, clientOrderId: 'ask-1' }))
  const t1 = rig.ex.time
  t.same(take(), [
    { who: 'alice/0', e: 'executionReport', E: t1, s: 'BTCUSDT', c: 'ask-1', S: 'SELL', o: 'LIMIT', f: 'GTC', q: '0.1000',
      p: '50000.00', P: '0.00', F: '0.0000', g: -1, C: '', x: 'NEW', X: 'NEW', r: 'NONE', i: 1, l: '0.0000', z: '0.0000',
      L: '0.00', n: '0', N: null, T: t1, t: -1, w: true, m: false, M: false, O: t1, Z: '0.000000', Y: '0.000000',
      Q: '0.00000000', W: t1, V: 'EXPIRE_MAKER' },
    { who: 'alice/0', e: 'outboundAccountPosition', E: t1, u: t1, B: [{ a: 'BTC', f: '0.90000000', l: '0.10000000' }] },
  ])

  // Bob buys 0.05 at market: 2500 USDT. Fees 0.1 %: Alice pays 2.5 USDT, Bob 0.00005 BTC.
  feed(await rig.run({ type: 'PlaceOrder', account: bob, sub: 0, marketId: 3, side: 'BUY', orderType: 'MARKET', qtyLots: 500,
    clientOrderId: 'take-1' }))
  const t2 = rig.ex.time
  const fill = take()
  t.same(kinds(fill), [
    'bob/0 executionReport NEW',
    'alice/0 executionReport TRADE',
    'bob/0 executionReport TRADE',
    // One per sub-account, in the order their balances first moved (Bob's lock came first).
    'bob/0 outboundAccountPosition',
    'alice/0 outboundAccountPosition',
  ])
  t.match(fill[0], { c: 'take-1', o: 'MARKET', S: 'BUY', q: '0.0500', X: 'NEW', w: false })
  t.same(fill[1], { who: 'alice/0', e: 'executionReport', E: t2, s: 'BTCUSDT', c: 'ask-1', S: 'SELL', o: 'LIMIT', f: 'GTC',
    q: '0.1000', p: '50000.00', P: '0.00', F: '0.0000', g: -1, C: '', x: 'TRADE', X: 'PARTIALLY_FILLED', r: 'NONE', i: 1,
    l: '0.0500', z: '0.0500', L: '50000.00', n: '2.500000', N: 'USDT', T: t2, t: 1, w: true, m: true, M: false, O: t1,
    Z: '2500.000000', Y: '2500.000000', Q: '0.00000000', W: t1, V: 'EXPIRE_MAKER' })
  t.match(fill[2], { c: 'take-1', x: 'TRADE', X: 'FILLED', l: '0.0500', z: '0.0500', L: '50000.00', n: '0.00005000', N: 'BTC',
    t: 1, m: false, w: false, Z: '2500.000000', Y: '2500.000000' })
  t.same(fill[3]!.B, [{ a: 'USDT', f: '7500.00000000', l: '0.00000000' }, { a: 'BTC', f: '0.04995000', l: '0.00000000' }])
  t.same(fill[4]!.B, [{ a: 'BTC', f: '0.90000000', l: '0.05000000' }, { a: 'USDT', f: '2497.50000000', l: '0.00000000' }])

  // Alice cuts her ask to 0.08 keeping its place, under a new client id: REPLACED, C the id before; 0.02 BTC unlocked.
  feed(await rig.run({ type: 'AmendKeepPriority', account: alice, sub: 0, marketId: 3, orderId: 1, qtyLots: 800,
    newClientOrderId: 'ask-1b' }))
  const t3 = rig.ex.time
  t.same(take(), [
    { who: 'alice/0', e: 'executionReport', E: t3, s: 'BTCUSDT', c: 'ask-1b', S: 'SELL', o: 'LIMIT', f: 'GTC', q: '0.0800',
      p: '50000.00', P: '0.00', F: '0.0000', g: -1, C: 'ask-1', x: 'REPLACED', X: 'PARTIALLY_FILLED', r: 'NONE', i: 1,
      l: '0.0000', z: '0.0500', L: '0.00', n: '0', N: null, T: t3, t: -1, w: true, m: false, M: false, O: t1,
      Z: '2500.000000', Y: '0.000000', Q: '0.00000000', W: t1, V: 'EXPIRE_MAKER' },
    { who: 'alice/0', e: 'outboundAccountPosition', E: t3, u: t3, B: [{ a: 'BTC', f: '0.92000000', l: '0.03000000' }] },
  ])

  // Alice cancels the rest, naming the cancel: c is the cancel's id, C the order's; 0.03 BTC unlocked.
  feed(await rig.run({ type: 'CancelOrder', account: alice, sub: 0, marketId: 3, orderId: 1, cancelClientOrderId: 'undo-1' }))
  const canceled = take()
  t.same(kinds(canceled), ['alice/0 executionReport CANCELED', 'alice/0 outboundAccountPosition'])
  t.match(canceled[0], { c: 'undo-1', C: 'ask-1b', X: 'CANCELED', q: '0.0800', z: '0.0500', Z: '2500.000000', w: false, n: '0', N: null })
  t.same(canceled[1]!.B, [{ a: 'BTC', f: '0.95000000', l: '0.00000000' }])

  // Money in and out of the spot wallet: balanceUpdate (signed), then the balance.
  feed(await rig.run({ type: 'Deposit', account: alice, sub: 0, asset: 'USDT', amount: 100_000_000, wallet: 'SPOT', ref: 'd2' }))
  const t4 = rig.ex.time
  const deposited = take()
  // The deposit's record first (as on the futures stream), then the money.
  t.match(deposited.shift(), { e: 'depositUpdate', coin: 'USDT', amount: '100', status: 1, txId: 'd2' })
  t.same(deposited, [
    { who: 'alice/0', e: 'balanceUpdate', E: t4, a: 'USDT', d: '100.00000000', T: t4 },
    { who: 'alice/0', e: 'outboundAccountPosition', E: t4, u: t4, B: [{ a: 'USDT', f: '2597.50000000', l: '0.00000000' }] },
  ])
  feed(await rig.run({ type: 'Transfer', account: alice, sub: 0, amount: 50_000_000, direction: 'SPOT_TO_PERP' }))
  t.match(take(), [{ e: 'balanceUpdate', a: 'USDT', d: '-50.00000000' },
    { e: 'outboundAccountPosition', B: [{ a: 'USDT', f: '2547.50000000', l: '0.00000000' }] }])

  // Self-trade prevention: Alice's resting ask expires as her bid meets it (EXPIRE_MAKER).
  feed(await rig.run({ type: 'PlaceOrder', account: alice, sub: 0, marketId: 3, side: 'SELL', orderType: 'LIMIT',
    timeInForce: 'GTC', priceTicks: 5_000_000, qtyLots: 100, clientOrderId: 'ask-2' }))
  take()
  feed(await rig.run({ type: 'PlaceOrder', account: alice, sub: 0, marketId: 3, side: 'BUY', orderType: 'LIMIT',
    timeInForce: 'GTC', priceTicks: 5_000_000, qtyLots: 100, clientOrderId: 'bid-2' }))
  const stp = take()
  t.match(stp.find((g) => g.c === 'ask-2'), { e: 'executionReport', x: 'TRADE_PREVENTION', X: 'EXPIRED_IN_MATCH', w: false })
  t.match(stp.find((g) => g.c === 'bid-2'), { x: 'NEW', X: 'NEW', w: true }, 'the bid rests')
  // A LIMIT_MAKER on the book is working (w), as a GTC limit is.
  feed(await rig.run({ type: 'PlaceOrder', account: alice, sub: 0, marketId: 3, side: 'SELL', orderType: 'POST_ONLY',
    timeInForce: 'GTX', priceTicks: 5_100_000, qtyLots: 100, clientOrderId: 'maker-1' }))
  t.match(take().find((g) => g.c === 'maker-1'), { e: 'executionReport', o: 'LIMIT_MAKER', f: 'GTC', x: 'NEW', X: 'NEW', w: true },
    'a LIMIT_MAKER rests')

  // Perp trading is not on the spot stream.
  await rig.run({ type: 'Deposit', account: bob, sub: 0, asset: 'USDT', amount: 10_000_000_000, wallet: 'PERP', ref: 'd3' })
  take()
  feed(await rig.run({ type: 'PlaceOrder', account: bob, sub: 0, marketId: 1, side: 'BUY', orderType: 'LIMIT',
    timeInForce: 'GTC', priceTicks: 400_000, qtyLots: 10 }))
  t.same(take(), [], 'a perp order: nothing on the spot stream')

  // The futures stream saw the transfer (its own wallet) but none of the spot wallet's balanceUpdates.
  t.same(futuresGot.filter((p) => p.e === 'balanceUpdate'), [])
  t.same(futuresGot.filter((p) => p.e === 'ACCOUNT_UPDATE').map((p) => (p.a as { m: string }).m), ['DEPOSIT'],
    'the transfer into the perp wallet')
})

t.test('executionReport: j and J, the strategyId and strategyType an order was sent with, on each of its reports and only then', async (t) => {
  const { rig, seller, buyer, post } = await spotRig()
  t.teardown(() => rig.close())
  await rig.run({ type: 'SetRules', version: RULES_VERSION, leafSeed: '0x' + '74'.repeat(32) })
  const seen = spotStreamOf(rig)
  const reports = (who: string) => seen.filter((p) => p.e === 'executionReport' && p.i !== undefined)
    .filter((p) => (who === 'seller') === (p.S === 'SELL'))
  const ask = (await post(seller, { side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0100', price: '50000.00',
    strategyId: '5', strategyType: '1000005', newOrderRespType: 'RESULT' })).json()
  await post(buyer, { side: 'BUY', type: 'MARKET', quantity: '0.0040', strategyId: '6' })
  await signedInject(rig, seller, 'DELETE', '/api/v3/order', { symbol: 'BTCUSDT', orderId: ask.orderId })
  t.same(reports('seller').map((p) => [p.x, p.j, p.J]), [['NEW', 5, 1000005], ['TRADE', 5, 1000005], ['CANCELED', 5, 1000005]])
  t.same(reports('buyer').map((p) => [p.x, p.j, 'J' in p]), [['NEW', 6, false], ['TRADE', 6, false]], 'a strategyId alone: no J')
  const first = reports('seller')[0]!
  t.same(Object.keys(first).slice(-3), ['V', 'j', 'J'], 'after the fields every report has')

  // A trailing stop (trailing from placement: d and D) first, then j; an order sent without them has neither.
  seen.length = 0
  await post(seller, { side: 'SELL', type: 'STOP_LOSS', quantity: '0.0010', trailingDelta: '100', strategyId: '7' })
  await post(seller, { side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0010', price: '51000.00' })
  const [stop, plain] = reports('seller')
  t.same(Object.keys(stop!).slice(-3), ['d', 'D', 'j'])
  t.notOk('j' in plain! || 'J' in plain!)
})
