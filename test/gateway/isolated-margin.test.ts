// Isolated margin over REST and the user data stream: POST /fapi/v1/marginType, POST
// /fapi/v1/positionMargin, GET /fapi/v1/positionMargin/history, the isolated and cross fields
// of positionRisk, account and balance, and ACCOUNT_UPDATE with `mt` and `iw`.
// BTCUSDTPERP: 0.010 at 50000.0 is 500 USDT; at 20x 25 USDT of margin; taker fee 0.05 %.

import t from 'tap'
import { createHmac } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import type { Result } from '../../core/events.js'
import type { CommittedBatch } from '../../gateway/context.js'
import { UserEvents, type Payload } from '../../gateway/user-data/events.js'
import { signaturePayload } from '../../gateway/ws-api/signing.js'
import { attachStreams } from '../../gateway/ws/attach.js'
import { fundedTrader, gatewayRig, signedInject } from '../helpers/gateway.js'
import { ORACLE, signedPrice } from '../helpers/oracle.js'
import { connect } from '../ws/client.js'

const SYMBOL = 'BTCUSDTPERP'

t.test('margin type, position margin, history, position fields, user stream', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const alice = await fundedTrader(rig, 10_000)
  const bob = await fundedTrader(rig, 10_000)

  // The user data stream of every committed entry, as the gateway's streams build it.
  const users = new UserEvents()
  users.seed(rig.ex.state)
  const got: Record<string, unknown>[] = []
  rig.ctx.onCommitted!((c: CommittedBatch) => {
    c.entries.forEach((entry, i) => users.entry(rig.ex.state, entry.time, c.results[i]!.events,
      (account) => account === alice.address, (_a, _s, payload: Payload) => got.push(payload)))
  })
  const updates = (): Record<string, any>[] => got.splice(0).filter((p) => p.e === 'ACCOUNT_UPDATE')

  const post = (keys = alice.keys, params: Record<string, string>, path = '/fapi/v1/positionMargin') =>
    signedInject(rig, keys, 'POST', path, { symbol: SYMBOL, ...params })
  const body = async (r: ReturnType<typeof post>) => (await r).json()

  // Margin type.
  t.same(await body(post(alice.keys, { marginType: 'CROSSED' }, '/fapi/v1/marginType')),
    { code: -4046, msg: 'No need to change margin type.' })
  t.same(await body(post(alice.keys, { marginType: 'cross' }, '/fapi/v1/marginType')),
    { code: -1130, msg: "Data sent for parameter 'marginType' is not valid." })
  t.same(await body(post(alice.keys, { symbol: 'BTCUSDT', marginType: 'ISOLATED' }, '/fapi/v1/marginType')),
    { code: -1121, msg: 'Invalid symbol.' })
  await rig.run({ type: 'PlaceOrder', account: alice.address, sub: 0, marketId: 1, side: 'BUY', orderType: 'LIMIT',
    priceTicks: 400_000, qtyLots: 10, clientOrderId: 'resting' })
  const busy = await post(alice.keys, { marginType: 'ISOLATED' }, '/fapi/v1/marginType')
  t.equal(busy.statusCode, 400)
  t.same(busy.json(), { code: -4047, msg: 'Margin type cannot be changed if there exists open orders.' })
  await rig.run({ type: 'CancelAll', account: alice.address, sub: 0, marketId: 1 })
  got.splice(0)

  const changed = await post(alice.keys, { marginType: 'ISOLATED' }, '/fapi/v1/marginType')
  t.equal(changed.statusCode, 200)
  t.same(changed.json(), { code: 200, msg: 'success' })
  const tType = rig.ex.time
  t.same(updates(), [{ e: 'ACCOUNT_UPDATE', E: tType, T: tType, a: { m: 'MARGIN_TYPE_CHANGE',
    B: [{ a: 'USDT', wb: '10000.00000000', cw: '10000.00000000', bc: '0.00000000' }],
    P: [{ s: SYMBOL, pa: '0.000', ep: '0.0', bep: '0.0', cr: '0.00000000', up: '0.00000000', mt: 'isolated', iw: '0.00000000', ps: 'BOTH' }] } }])
  t.match((await signedInject(rig, alice.keys, 'GET', '/fapi/v1/symbolConfig', { symbol: SYMBOL })).json(),
    [{ symbol: SYMBOL, marginType: 'ISOLATED', leverage: 20 }])

  // Position margin needs an isolated position.
  t.same(await body(post(alice.keys, { amount: '1', type: '1' })), { code: -4054, msg: 'Cannot add position margin: position is 0.' })
  t.same(await body(post(bob.keys, { amount: '1', type: '1' })), { code: -4049, msg: 'Add margin only support for isolated position.' })

  // ALICE opens 0.010 long at 50000.0 against BOB's ask: 25 USDT in, 0.25 fee from it.
  await rig.run({ type: 'PlaceOrder', account: bob.address, sub: 0, marketId: 1, side: 'SELL', orderType: 'LIMIT',
    priceTicks: 500_000, qtyLots: 10 })
  const bought = await signedInject(rig, alice.keys, 'POST', '/fapi/v1/order',
    { symbol: SYMBOL, side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.010', price: '50000.0' })
  t.equal(bought.statusCode, 200)
  // wb is the whole wallet (cross + isolated), cw the cross part.
  t.match(updates(), [{ a: { m: 'ORDER', B: [{ wb: '9999.75000000', cw: '9975.00000000' }],
    P: [{ s: SYMBOL, pa: '0.010', ep: '50000.0', mt: 'isolated', iw: '24.75000000', ps: 'BOTH' }] } }])

  for (const v of ['v1', 'v2', 'v3']) {
    const risk = (await signedInject(rig, alice.keys, 'GET', `/fapi/${v}/positionRisk`, { symbol: SYMBOL })).json()
    t.match(risk, [{ symbol: SYMBOL, positionSide: 'BOTH', positionAmt: '0.010', entryPrice: '50000.0', markPrice: '50000.0',
      unRealizedProfit: '0.00000000', marginType: 'isolated', isolatedMargin: '24.75000000', isolatedWallet: '24.75000000',
      // (24.75 − 0.01 × 50000) / (0.01 × 0.004 − 0.01) = 47715.863453815…
      liquidationPrice: '47715.86345382', maintMargin: '2.00000000', initialMargin: '25.00000000',
      positionInitialMargin: '25.00000000', openOrderInitialMargin: '0.00000000', notional: '500.00000000', leverage: '20' }],
    `positionRisk ${v}`)
  }
  // BOB's cross short, wallet 9999.9: (9999.9 + 0.01 × 50000) / (0.01 × 0.004 + 0.01) = 1045806.772908366…
  t.match((await signedInject(rig, bob.keys, 'GET', '/fapi/v2/positionRisk', { symbol: SYMBOL })).json(),
    [{ marginType: 'cross', isolatedMargin: '0.00000000', isolatedWallet: '0.00000000', liquidationPrice: '1045806.77290837' }])

  const account = (await signedInject(rig, alice.keys, 'GET', '/fapi/v2/account')).json()
  t.match(account, { totalWalletBalance: '9999.75000000', totalCrossWalletBalance: '9975.00000000', availableBalance: '9975.00000000',
    totalInitialMargin: '25.00000000', totalMaintMargin: '2.00000000', totalMarginBalance: '9999.75000000', maxWithdrawAmount: '9975.00000000',
    assets: [{ walletBalance: '9999.75000000', crossWalletBalance: '9975.00000000' }] })
  t.match(account.positions.find((p: { symbol: string }) => p.symbol === SYMBOL),
    { isolated: true, isolatedWallet: '24.75000000', positionAmt: '0.010', initialMargin: '25.00000000', maintMargin: '2.00000000' })
  // v3's position rows name isolatedMargin, as positionRisk's (wallet plus unrealized PnL).
  t.match((await signedInject(rig, alice.keys, 'GET', '/fapi/v3/account')).json().positions, [{ symbol: SYMBOL, isolatedMargin: '24.75000000' }])
  t.match((await signedInject(rig, alice.keys, 'GET', '/fapi/v2/balance')).json(),
    [{ asset: 'USDT', balance: '9999.75000000', crossWalletBalance: '9975.00000000', availableBalance: '9975.00000000' }])

  // Add and reduce. At the mark the position needs its 25 USDT: nothing is removable yet.
  t.same(await body(post(alice.keys, { amount: '0.01', type: '2' })), { code: -4051, msg: 'Isolated balance insufficient.' })
  const added = await post(alice.keys, { amount: '10.5', type: '1' })
  t.same(added.json(), { amount: 10.5, code: 200, msg: 'Successfully modify position margin.', type: 1 })
  const tAdd = rig.ex.time
  t.same(updates(), [{ e: 'ACCOUNT_UPDATE', E: tAdd, T: tAdd, a: { m: 'MARGIN_TRANSFER',
    B: [{ a: 'USDT', wb: '9999.75000000', cw: '9964.50000000', bc: '-10.50000000' }],
    P: [{ s: SYMBOL, pa: '0.010', ep: '50000.0', bep: '50000.0', cr: '0.00000000', up: '0.00000000', mt: 'isolated', iw: '35.25000000', ps: 'BOTH' }] } }])
  // Removable: min(35.25, 35.25 + 0 − 25) = 10.25.
  t.same(await body(post(alice.keys, { amount: '10.250001', type: '2' })), { code: -4051, msg: 'Isolated balance insufficient.' })
  t.same(await body(post(alice.keys, { amount: '10.25', type: '2' })), { amount: 10.25, code: 200, msg: 'Successfully modify position margin.', type: 2 })
  const tReduce = rig.ex.time
  t.match(updates(), [{ a: { m: 'MARGIN_TRANSFER', B: [{ wb: '9999.75000000', cw: '9974.75000000', bc: '10.25000000' }], P: [{ iw: '25.00000000' }] } }])

  const bad: [Record<string, string>, number, string][] = [
    [{ amount: '0', type: '1' }, -4055, 'Amount must be positive.'],
    [{ amount: '-5', type: '1' }, -4055, 'Amount must be positive.'],
    [{ amount: '0.0000001', type: '1' }, -1111, 'Precision is over the maximum defined for this asset.'],
    [{ amount: 'x', type: '1' }, -1100, "Illegal characters found in parameter 'amount'; legal range is '^([0-9]{1,20})(\\.[0-9]{1,20})?$'."],
    [{ amount: '1', type: '3' }, -1130, "Data sent for parameter 'type' is not valid."],
    [{ amount: '1' }, -1102, "Mandatory parameter 'type' was not sent, was empty/null, or malformed."],
    [{ amount: '1', type: '1', positionSide: 'UP' }, -4060, 'Invalid position side.'],
    [{ amount: '1', type: '1', positionSide: 'LONG' }, -4061, "Order's position side does not match user's setting."],
    [{ amount: '9974.750001', type: '1' }, -4050, 'Cross balance insufficient.'],
  ]
  for (const [params, code, msg] of bad) {
    const r = await post(alice.keys, params)
    t.equal(r.statusCode, 400, JSON.stringify(params))
    t.same(r.json(), { code, msg }, JSON.stringify(params))
  }
  t.same(updates(), [], 'a refused request changes nothing')

  // History, as Binance prints it.
  const history = (params: Record<string, string | number> = {}) =>
    signedInject(rig, alice.keys, 'GET', '/fapi/v1/positionMargin/history', { symbol: SYMBOL, ...params })
  const addRow = { symbol: SYMBOL, type: 1, deltaType: 'USER_ADJUST', amount: '10.5', asset: 'USDT', time: tAdd, positionSide: 'BOTH' }
  const reduceRow = { symbol: SYMBOL, type: 2, deltaType: 'USER_ADJUST', amount: '10.25', asset: 'USDT', time: tReduce, positionSide: 'BOTH' }
  t.same((await history()).json(), [addRow, reduceRow])
  t.same((await history({ type: 1 })).json(), [addRow])
  t.same((await history({ limit: 1 })).json(), [reduceRow], 'without startTime: the newest')
  t.same((await history({ startTime: tAdd, limit: 1 })).json(), [addRow], 'from startTime: the oldest')
  t.same((await history({ startTime: tReduce + 1 })).json(), [])
  t.same((await signedInject(rig, bob.keys, 'GET', '/fapi/v1/positionMargin/history', { symbol: SYMBOL })).json(), [], 'per account')
  t.equal((await history({ type: 0 })).json().code, -1130)
  t.equal((await history({ startTime: tAdd, endTime: tAdd + 31 * 86_400_000 })).json().code, -1127, 'at most 30 days')
  t.equal((await history({ limit: 1001 })).json().code, -1130)
  t.equal((await signedInject(rig, alice.keys, 'GET', '/fapi/v1/positionMargin/history')).json().code, -1102)

  // History reaches back 30 days (as of the projections' time); older rows are pruned.
  const DAYS_30 = 30 * 86_400_000
  const owner = { account: alice.address, sub: 0 }
  const at = (now: number) => rig.projections.positionMargins(owner, 1, { limit: 500 }, now)
  t.same((await at(tAdd + DAYS_30)).map((r) => r.time), [tAdd, tReduce], 'exactly 30 days old: still there')
  t.same((await at(tAdd + DAYS_30 + 1)).map((r) => r.time), [tReduce], 'a millisecond more: gone')
  t.equal(await rig.projections.prune(tReduce + DAYS_30), 1, 'the add row is pruned')
  t.same((await history()).json(), [reduceRow])

  // Closing returns the isolated wallet; the market may go back to cross.
  t.same(await body(post(alice.keys, { marginType: 'CROSSED' }, '/fapi/v1/marginType')),
    { code: -4048, msg: 'Margin type cannot be changed if there exists position.' })
  await rig.run({ type: 'PlaceOrder', account: bob.address, sub: 0, marketId: 1, side: 'BUY', orderType: 'LIMIT',
    priceTicks: 500_000, qtyLots: 10 })
  await signedInject(rig, alice.keys, 'POST', '/fapi/v1/order', { symbol: SYMBOL, side: 'SELL', type: 'MARKET', quantity: '0.010' })
  // 25 − 0.25 fee = 24.75 back: 9974.75 + 24.75.
  t.match(updates(), [{ a: { m: 'ORDER', B: [{ wb: '9999.50000000', cw: '9999.50000000' }], P: [{ pa: '0.000', mt: 'isolated', iw: '0.00000000' }] } }])
  t.same((await post(alice.keys, { marginType: 'CROSSED' }, '/fapi/v1/marginType')).json(), { code: 200, msg: 'success' })
  t.match((await signedInject(rig, alice.keys, 'GET', '/fapi/v2/positionRisk', { symbol: SYMBOL })).json(),
    [{ marginType: 'cross', isolatedWallet: '0.00000000', liquidationPrice: '0' }])
})

t.test('the WebSocket API account.position shows the isolated fields REST shows', async (t) => {
  const rig = await gatewayRig()
  attachStreams(rig.app, rig.ctx)
  await rig.app.listen({ port: 0, host: '127.0.0.1' })
  const ws = await connect(`ws://127.0.0.1:${(rig.app.server.address() as AddressInfo).port}/ws-fapi/v1`)
  t.teardown(async () => { ws.close(); await rig.close() })
  const alice = await fundedTrader(rig, 10_000)
  const bob = await fundedTrader(rig, 10_000)
  await rig.run({ type: 'ChangeMarginType', account: alice.address, sub: 0, marketId: 1, marginType: 'ISOLATED' })
  await rig.run({ type: 'PlaceOrder', account: bob.address, sub: 0, marketId: 1, side: 'SELL', orderType: 'LIMIT', priceTicks: 500_000, qtyLots: 10 })
  await rig.run({ type: 'PlaceOrder', account: alice.address, sub: 0, marketId: 1, side: 'BUY', orderType: 'LIMIT', priceTicks: 500_000, qtyLots: 10 })

  const params: Record<string, string | number> = { apiKey: alice.keys.apiKey, symbol: SYMBOL, timestamp: rig.ex.time }
  const text = signaturePayload(new Map(Object.entries(params).map(([k, v]) => [k, String(v)])))
  ws.send({ id: 1, method: 'account.position', params: { ...params, signature: createHmac('sha256', alice.keys.secretKey).update(text).digest('hex') } })
  const answer = await ws.next((m) => m.id === 1)
  t.equal(answer.status, 200)
  t.same(answer.result, (await signedInject(rig, alice.keys, 'GET', '/fapi/v2/positionRisk', { symbol: SYMBOL })).json())
  t.match(answer.result, [{ marginType: 'isolated', isolatedWallet: '24.75000000', liquidationPrice: '47715.86345382' }])
})

t.test("an isolated position's funding: ACCOUNT_UPDATE FUNDING_FEE with the position and its iw", async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const [alice, bob, carol, dave] = [await fundedTrader(rig), await fundedTrader(rig), await fundedTrader(rig), await fundedTrader(rig)]
  const users = new UserEvents()
  users.seed(rig.ex.state)
  const got: Record<string, any>[] = []
  const feed = (r: Result): void => users.entry(rig.ex.state, rig.ex.time, r.events, (a) => a === alice.address,
    (_a, _s, payload) => got.push(payload))
  await rig.run({ type: 'SetOracle', pair: 'BTCUSDT', oracle: ORACLE.address })
  await rig.run(await signedPrice(rig.ex, '30000'))
  await rig.run({ type: 'ChangeMarginType', account: alice.address, sub: 0, marketId: 1, marginType: 'ISOLATED' })
  const order = (who: string, side: 'BUY' | 'SELL', priceTicks: number, qtyLots: number) =>
    rig.run({ type: 'PlaceOrder', account: who, sub: 0, marketId: 1, side, orderType: 'LIMIT', priceTicks, qtyLots })
  await order(bob.address, 'SELL', 300_000, 6)
  await order(alice.address, 'BUY', 300_000, 6)
  // Quotes 30023.9 / 30100: the rate is 0.029666 % (test/core/funding.test.ts).
  await order(carol.address, 'BUY', 300_239, 1000)
  await order(dave.address, 'SELL', 301_000, 1000)
  await rig.run({ type: 'Tick' }, 5_000)
  const EIGHT_H = 8 * 3_600_000
  feed(await rig.run({ type: 'Tick' }, Math.floor(rig.ex.time / EIGHT_H) * EIGHT_H + EIGHT_H - rig.ex.time))
  // 9 USDT went in and 0.09 fee came out; funding 6 × 30000 × 0.001 × 0.029666 % = 0.0533988 → 0.053399.
  const time = rig.ex.time
  t.same(got, [{ e: 'ACCOUNT_UPDATE', E: time, T: time, a: { m: 'FUNDING_FEE',
    B: [{ a: 'USDT', wb: '99999.85660100', cw: '99991.00000000', bc: '-0.05339900' }],
    P: [{ s: SYMBOL, pa: '0.006', ep: '30000.0', bep: '30000.0', cr: '0.00000000', up: '0.00000000', mt: 'isolated', iw: '8.85660100', ps: 'BOTH' }] } }])
})
