// The user data stream's REST side and payloads: listen keys (API key only; create, extend,
// close, 60-minute expiry, never another session's), and the ORDER_TRADE_UPDATE,
// ACCOUNT_UPDATE and ACCOUNT_CONFIG_UPDATE events a scripted sequence produces, exactly.

import t from 'tap'
import type { Result } from '../../core/events.js'
import { UserEvents, type Payload } from '../../gateway/user-data/events.js'
import { gatewayRig, type GatewayRig, type Keys, fundedTrader } from '../helpers/gateway.js'

const trader = (rig: GatewayRig, usdt: number) => fundedTrader(rig, usdt)

const keyed = (rig: GatewayRig, keys: Keys | undefined, method: 'POST' | 'PUT' | 'DELETE', query = '') =>
  rig.app.inject({ method, url: '/fapi/v1/listenKey' + query, headers: keys ? { 'x-mbx-apikey': keys.apiKey } : {} })

t.test('listen keys: create, extend, close, expire', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const alice = await trader(rig, 1000)
  const bob = await trader(rig, 1000)

  t.same((await keyed(rig, undefined, 'POST')).json(), { code: -2014, msg: 'API-key format invalid.' })
  const made = await keyed(rig, alice.keys, 'POST')
  t.equal(made.statusCode, 200)
  const key = made.json().listenKey as string
  t.match(key, /^[0-9a-f]{64}$/)
  t.equal((await keyed(rig, alice.keys, 'POST')).json().listenKey, key, 'a live key is returned again')
  t.not((await keyed(rig, bob.keys, 'POST')).json().listenKey, key, 'each session has its own')
  t.same((await keyed(rig, alice.keys, 'PUT')).json(), { listenKey: key }, 'PUT works without the parameter')
  t.same((await keyed(rig, bob.keys, 'DELETE', `?listenKey=${key}`)).json(),
    { code: -1125, msg: 'This listenKey does not exist.' }, 'another session cannot close it')
  t.same(rig.app.listenKeys.live(key)?.account, alice.address)

  t.same((await keyed(rig, alice.keys, 'DELETE')).json(), {})
  t.equal(rig.app.listenKeys.live(key), undefined)
  const gone = await keyed(rig, alice.keys, 'PUT')
  t.equal(gone.statusCode, 400)
  t.same(gone.json(), { code: -1125, msg: 'This listenKey does not exist.' })

  // 60 minutes without a keep-alive: the key ends, and its stream hears listenKeyExpired.
  const again = (await keyed(rig, alice.keys, 'POST')).json().listenKey as string
  const ended: string[] = []
  rig.app.listenKeys.onEnd((e, why) => ended.push(`${e.listenKey === again ? 'alice' : 'bob'}:${why}`))
  await rig.run({ type: 'Tick' }, 59 * 60_000)
  t.same((await keyed(rig, alice.keys, 'PUT')).json(), { listenKey: again }, 'extended at 59 minutes')
  await rig.run({ type: 'Tick' }, 59 * 60_000)
  t.ok(rig.app.listenKeys.live(again), 'still live 59 minutes after the extension')
  await rig.run({ type: 'Tick' }, 2 * 60_000)
  rig.app.listenKeys.sweep()
  t.same(ended.sort(), ['alice:expired', 'bob:expired'], 'both keys ended; the stream hears why')
  t.equal((await keyed(rig, alice.keys, 'PUT')).json().code, -1125)
})

t.test('ORDER_TRADE_UPDATE, ACCOUNT_UPDATE and ACCOUNT_CONFIG_UPDATE for a scripted sequence', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const alice = await trader(rig, 100_000)
  const bob = await trader(rig, 100_000)
  const carol = await trader(rig, 100_000)
  const users = new UserEvents()
  users.seed(rig.ex.state)
  const got: { who: string; payload: Payload }[] = []
  const names = new Map([[alice.address, 'alice'], [bob.address, 'bob']])
  const feed = (r: Result): void => users.entry(rig.ex.state, rig.ex.time, r.events,
    (account) => names.has(account), (account, sub, payload) => got.push({ who: `${names.get(account)}/${sub}`, payload }))
  const take = (): Record<string, any>[] => got.splice(0).map((g) => ({ who: g.who, ...g.payload }))

  feed(await rig.run({ type: 'ChangeLeverage', account: alice.address, sub: 0, marketId: 1, leverage: 10 }))
  const t1 = rig.ex.time
  t.same(take(), [{ who: 'alice/0', e: 'ACCOUNT_CONFIG_UPDATE', E: t1, T: t1, ac: { s: 'BTCUSDTPERP', l: 10 } }])

  feed(await rig.run({ type: 'PlaceOrder', account: alice.address, sub: 0, marketId: 1, side: 'SELL', orderType: 'LIMIT',
    timeInForce: 'GTC', priceTicks: 500_000, qtyLots: 10, clientOrderId: 'ask-1' }))
  const t2 = rig.ex.time
  const newAsk = take()
  t.match(newAsk, [{ who: 'alice/0', e: 'ORDER_TRADE_UPDATE', E: t2, T: t2, o: {
    s: 'BTCUSDTPERP', c: 'ask-1', S: 'SELL', o: 'LIMIT', f: 'GTC', q: '0.010', p: '50000.0', ap: '0.0', x: 'NEW', X: 'NEW',
    i: 1, l: '0.000', z: '0.000', L: '0.0', t: 0, m: false, R: false, ps: 'BOTH', rp: '0.00000000', V: 'EXPIRE_MAKER',
    // Her open orders' notional in the symbol: 0.010 × 50000 asked, no bids.
    b: '0.00000000', a: '500.00000000' } }])
  t.notOk('n' in (newAsk[0]!.o as object), 'no commission before a trade')

  // Carol is not listened to: nothing for her; Bob takes 0.004 of Alice's ask.
  feed(await rig.run({ type: 'PlaceOrder', account: carol.address, sub: 0, marketId: 1, side: 'BUY', orderType: 'LIMIT',
    timeInForce: 'GTC', priceTicks: 400_000, qtyLots: 10 }))
  t.same(take(), [])
  const taken = await rig.run({ type: 'PlaceOrder', account: bob.address, sub: 0, marketId: 1, side: 'BUY', orderType: 'MARKET',
    qtyLots: 4, clientOrderId: 'take-1' })
  t.ok(taken.ok, JSON.stringify(taken))
  feed(taken)
  const t3 = rig.ex.time
  const events = take()
  t.same(events.map((e) => `${e.who} ${e.e} ${(e.o as { x?: string } | undefined)?.x ?? (e.a as { m: string } | undefined)?.m ?? ''}`), [
    'bob/0 ORDER_TRADE_UPDATE NEW',
    'alice/0 TRADE_LITE ',
    'alice/0 ORDER_TRADE_UPDATE TRADE',
    'bob/0 TRADE_LITE ',
    'bob/0 ORDER_TRADE_UPDATE TRADE',
    'alice/0 ACCOUNT_UPDATE ORDER',
    'bob/0 ACCOUNT_UPDATE ORDER',
  ])
  // The short form of each fill first: the order's original quantity and price, the fill's own.
  t.same(events[1], { who: 'alice/0', e: 'TRADE_LITE', E: t3, T: t3, s: 'BTCUSDTPERP', q: '0.010', p: '50000.0', m: true,
    c: 'ask-1', S: 'SELL', L: '50000.0', l: '0.004', t: 1, i: 1 })
  t.same(events[3], { who: 'bob/0', e: 'TRADE_LITE', E: t3, T: t3, s: 'BTCUSDTPERP', q: '0.004', p: '0.0', m: false,
    c: 'take-1', S: 'BUY', L: '50000.0', l: '0.004', t: 1, i: 3 })
  // 0.004 × 50000 = 200 USDT: maker fee 0.02% = 0.04, taker fee 0.05% = 0.10.
  t.match(events[2], { o: { c: 'ask-1', x: 'TRADE', X: 'PARTIALLY_FILLED', l: '0.004', z: '0.004', L: '50000.0',
    ap: '50000.0', N: 'USDT', n: '0.04000000', T: t3, t: 1, m: true, rp: '0.00000000', b: '0.00000000', a: '300.00000000' } })
  t.match(events[4], { o: { c: 'take-1', o: 'MARKET', x: 'TRADE', X: 'FILLED', l: '0.004', z: '0.004', L: '50000.0',
    n: '0.10000000', m: false } })
  t.same(events[5], { who: 'alice/0', e: 'ACCOUNT_UPDATE', E: t3, T: t3, a: { m: 'ORDER',
    B: [{ a: 'USDT', wb: '99999.96000000', cw: '99999.96000000', bc: '0.00000000' }],
    P: [{ s: 'BTCUSDTPERP', pa: '-0.004', ep: '50000.0', bep: '50000.0', cr: '0.00000000', up: '0.00000000',
      mt: 'cross', iw: '0.00000000', ps: 'BOTH' }] } })
  t.match(events[6], { who: 'bob/0', a: { B: [{ wb: '99999.90000000' }], P: [{ pa: '0.004', ep: '50000.0' }] } })

  // A wallet change that is not a fill: a transfer out of the perp wallet.
  feed(await rig.run({ type: 'Transfer', account: alice.address, sub: 0, amount: 1_500_000, direction: 'PERP_TO_SPOT' }))
  t.match(take(), [{ who: 'alice/0', e: 'ACCOUNT_UPDATE', a: { m: 'WITHDRAW',
    B: [{ a: 'USDT', wb: '99998.46000000', bc: '-1.50000000' }], P: [] } }])

  // Cancel: the rest of the ask, with its fill so far.
  feed(await rig.run({ type: 'CancelOrder', account: alice.address, sub: 0, marketId: 1, orderId: 1 }))
  t.match(take(), [{ who: 'alice/0', e: 'ORDER_TRADE_UPDATE', o: { i: 1, x: 'CANCELED', X: 'CANCELED', z: '0.004', ap: '50000.0' } }])

  // Closing fills: `cr`, the position's accumulated realized PnL before fees, adds up.
  // Alice (short 0.004 at 50000) buys 0.002 back at 50100: −0.20 each time; Bob the opposite.
  // `bep`, the break-even price: (entry cost − realized since open) / size. After the first
  // close Alice (short 0.002, cost −100, realized −0.20) is at (−100 + 0.20) / −0.002
  // = 49900.0, and Bob's long (100 − 0.20) / 0.002 = 49900.0 too; flat after the second.
  const beps = [['49900.0', '49900.0'], ['0.0', '0.0']]
  for (const [price, expected] of [[501_000, ['-0.20000000', '0.20000000']], [501_000, ['-0.40000000', '0.40000000']]] as const) {
    feed(await rig.run({ type: 'PlaceOrder', account: alice.address, sub: 0, marketId: 1, side: 'BUY', orderType: 'LIMIT',
      timeInForce: 'GTC', priceTicks: price, qtyLots: 2 }))
    feed(await rig.run({ type: 'PlaceOrder', account: bob.address, sub: 0, marketId: 1, side: 'SELL', orderType: 'MARKET', qtyLots: 2 }))
    const all = take()
    const cr = (who: string): string[] => all.filter((g) => g.who === who && g.e === 'ACCOUNT_UPDATE')
      .map((g) => (g.a as { P: { cr: string }[] }).P[0]!.cr)
    t.same([cr('alice/0'), cr('bob/0')], [[expected[0]], [expected[1]]], `cr after closing 0.002 at 50100.0: ${expected.join(', ')}`)
    const bep = (who: string): string[] => all.filter((g) => g.who === who && g.e === 'ACCOUNT_UPDATE')
      .map((g) => (g.a as { P: { bep: string }[] }).P[0]!.bep)
    const want = beps.shift()!
    t.same([bep('alice/0'), bep('bob/0')], [[want[0]], [want[1]]], `bep after closing 0.002 at 50100.0: ${want.join(', ')}`)
  }
})

t.test('ORDER_TRADE_UPDATE carries Binance\'s expiry reason (er): why an order expired, "0" otherwise', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const alice = await trader(rig, 100_000)
  const bob = await trader(rig, 100_000)
  const users = new UserEvents()
  users.seed(rig.ex.state)
  const reasons: string[] = []
  const place = async (who: typeof alice, o: Record<string, unknown>): Promise<void> => {
    const r = await rig.run({ type: 'PlaceOrder', account: who.address, sub: 0, marketId: 1, ...o } as never)
    t.ok(r.ok, JSON.stringify(r))
    users.entry(rig.ex.state, rig.ex.time, r.events, (a) => a === alice.address, (_a, _s, p) => {
      const o = (p as { e: string; o?: { c: string; x: string; X: string; er: string } }).o
      if ((p as { e: string }).e === 'ORDER_TRADE_UPDATE' && o !== undefined) reasons.push(`${o.c} ${o.x} ${o.X} ${o.er}`)
    })
  }
  // Bob's asks, 0.004 at 50000.0 and 0.004 at 50050.0, are all the book has.
  await place(bob, { side: 'SELL', orderType: 'LIMIT', timeInForce: 'GTC', priceTicks: 500_000, qtyLots: 4 })
  await place(bob, { side: 'SELL', orderType: 'LIMIT', timeInForce: 'GTC', priceTicks: 500_500, qtyLots: 4 })
  await place(alice, { side: 'BUY', orderType: 'LIMIT', timeInForce: 'IOC', priceTicks: 500_000, qtyLots: 2, clientOrderId: 'ioc-fills' })
  await place(alice, { side: 'BUY', orderType: 'LIMIT', timeInForce: 'IOC', priceTicks: 500_000, qtyLots: 10, clientOrderId: 'ioc-rest' })
  await place(alice, { side: 'BUY', orderType: 'MARKET', qtyLots: 10, clientOrderId: 'market' })
  // Her own ask, then a GTC bid and an IOC bid meeting it with EXPIRE_TAKER.
  await place(alice, { side: 'SELL', orderType: 'LIMIT', timeInForce: 'GTC', priceTicks: 510_000, qtyLots: 10, clientOrderId: 'own-ask' })
  await place(alice, { side: 'BUY', orderType: 'LIMIT', timeInForce: 'GTC', priceTicks: 510_000, qtyLots: 10, clientOrderId: 'stp-gtc', stp: 'EXPIRE_TAKER' })
  await place(alice, { side: 'BUY', orderType: 'LIMIT', timeInForce: 'IOC', priceTicks: 510_000, qtyLots: 10, clientOrderId: 'stp-ioc', stp: 'EXPIRE_TAKER' })
  t.same(reasons, [
    'ioc-fills NEW NEW 0', 'ioc-fills TRADE FILLED 0',
    'ioc-rest NEW NEW 0', 'ioc-rest TRADE PARTIALLY_FILLED 0', 'ioc-rest EXPIRED EXPIRED 2',
    'market NEW NEW 0', 'market TRADE PARTIALLY_FILLED 0', 'market EXPIRED EXPIRED 9',
    'own-ask NEW NEW 0',
    'stp-gtc NEW NEW 0', 'stp-gtc EXPIRED EXPIRED_IN_MATCH 1',
    'stp-ioc NEW NEW 0', 'stp-ioc EXPIRED EXPIRED_IN_MATCH 3',
  ])
})
