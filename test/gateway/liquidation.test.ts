// Liquidation over the gateway: GET /fapi/v1/forceOrders, /fapi/v1/adlQuantile and
// /fapi/v1/insuranceBalance, the forceOrder market streams, and MARGIN_CALL, ORDER_TRADE_UPDATE
// (autoclose-…, adl_autoclose) and ACCOUNT_UPDATE (INSURANCE_CLEAR) on the user data stream,
// over real HTTP and WebSocket on loopback. The same hand-computed scenarios as
// test/core/liquidation.test.ts: BTCUSDTPERP, 100 ledger units per tick·lot, mark = last trade.
//
// A: ALICE long 0.5 at 30,000.0 (wallet 997 after her maker fee); a trade at 28,100.0 puts her
//    below maintenance (47 < 56.2); she is sold into BOB's bid at 28,050.0 (bankruptcy price
//    28,006.0), and the clearance fee takes the 22 USDT left: the fund holds 22.
// B: ERIN long 0.5 at 28,050.0 (wallet 997.195); a trade at 26,100.0 (margin 22.195 < 52.2);
//    no bids, so BOB's short (the only one with profit and size) is deleveraged at her
//    bankruptcy price ceil((14,025,000,000 − 997,195,000) / 50,000) = 260,557 ticks.

import t from 'tap'
import type { AddressInfo } from 'node:net'
import type { Command } from '../../core/commands.js'
import { attachStreams } from '../../gateway/ws/attach.js'
import { fundedTrader, gatewayRig, signedInject, type GatewayRig, type Keys } from '../helpers/gateway.js'
import { connect, sleep, type Client } from '../ws/client.js'
import { NO_BAND_GENESIS } from '../helpers/exchange.js'

const S = 'BTCUSDTPERP'

function order(account: string, side: 'BUY' | 'SELL', priceTicks: number, qtyLots: number): Command {
  return { type: 'PlaceOrder', account, sub: 0, marketId: 1, side, orderType: 'LIMIT', priceTicks, qtyLots }
}

async function ok(rig: GatewayRig, command: Command): Promise<void> {
  const r = await rig.run(command)
  if (!r.ok) throw new Error(`${command.type} rejected: ${r.code}`)
}

t.test('forced orders, ADL quantiles, the insurance fund, forceOrder streams and the user stream', async (t) => {
  // The mark falls over 5 % in one trade to reach maintenance: without the price band.
  const rig = await gatewayRig(NO_BAND_GENESIS)
  attachStreams(rig.app, rig.ctx)
  await rig.app.listen({ port: 0, host: '127.0.0.1' })
  const base = `ws://127.0.0.1:${(rig.app.server.address() as AddressInfo).port}`
  const clients: Client[] = []
  t.teardown(async () => { for (const c of clients) c.close(); await rig.close() })
  const open = async (path: string): Promise<Client> => { const c = await connect(base + path); clients.push(c); return c }
  const listenKey = async (keys: Keys): Promise<string> =>
    (await rig.app.inject({ method: 'POST', url: '/fapi/v1/listenKey', headers: { 'x-mbx-apikey': keys.apiKey } })).json().listenKey

  const alice = await fundedTrader(rig, 1_000)
  const bob = await fundedTrader(rig, 100_000)
  const carol = await fundedTrader(rig, 10_000)
  const dave = await fundedTrader(rig, 10_000)
  const erin = await fundedTrader(rig, 1_000)
  const aliceStream = await open(`/ws/${await listenKey(alice.keys)}`)
  const bobStream = await open(`/ws/${await listenKey(bob.keys)}`)
  const market = await open(`/stream?streams=${S.toLowerCase()}@forceOrder/!forceOrder@arr`)
  await sleep(20)
  const tradeAt = async (priceTicks: number): Promise<void> => {
    await ok(rig, order(carol.address, 'SELL', priceTicks, 5))
    await ok(rig, order(dave.address, 'BUY', priceTicks, 5))
  }

  // ---- A ----------------------------------------------------------------------------------
  await ok(rig, order(alice.address, 'BUY', 300_000, 500))
  await ok(rig, order(bob.address, 'SELL', 300_000, 500))
  const quantiles = await signedInject(rig, alice.keys, 'GET', '/fapi/v1/adlQuantile')
  t.same(quantiles.json(), [{ symbol: S, adlQuantile: { LONG: 0, SHORT: 0, BOTH: 4 } }], 'the only long: first in the queue')
  await ok(rig, order(bob.address, 'BUY', 280_500, 500))
  await tradeAt(281_000)
  const timeA = rig.ex.time

  t.same(await aliceStream.next((m) => m.e === 'MARGIN_CALL'), {
    e: 'MARGIN_CALL', E: timeA, cw: '997.00000000',
    p: [{ s: S, ps: 'BOTH', pa: '0.500', mt: 'CROSSED', iw: '0.00000000', mp: '28100.0', up: '-950.00000000', mm: '56.20000000' }],
  })
  const autoclose = (m: any): boolean => m.e === 'ORDER_TRADE_UPDATE' && m.o.c.startsWith('autoclose-')
  t.match(await aliceStream.next((m) => autoclose(m) && m.o.x === 'NEW'),
    { o: { c: 'autoclose-1-6', S: 'SELL', o: 'LIQUIDATION', f: 'IOC', q: '0.500', p: '28006.0', x: 'NEW', X: 'NEW', R: true } })
  t.match(await aliceStream.next((m) => autoclose(m) && m.o.x === 'TRADE'),
    { o: { c: 'autoclose-1-6', x: 'TRADE', X: 'FILLED', l: '0.500', L: '28050.0', n: '0.00000000', rp: '-975.00000000' } })
  t.same(await aliceStream.next((m) => m.e === 'ACCOUNT_UPDATE' && m.a.m === 'INSURANCE_CLEAR'), {
    e: 'ACCOUNT_UPDATE', E: timeA, T: timeA,
    a: { m: 'INSURANCE_CLEAR', B: [{ a: 'USDT', wb: '0.00000000', cw: '0.00000000', bc: '-22.00000000' }], P: [] },
  })
  const liquidation = { s: S, S: 'SELL', o: 'LIMIT', f: 'IOC', q: '0.500', p: '28006.0', ap: '28050.0', X: 'FILLED', l: '0.500', z: '0.500', T: timeA }
  t.same(await market.next((m) => m.stream === `${S.toLowerCase()}@forceOrder`), {
    stream: `${S.toLowerCase()}@forceOrder`, data: { e: 'forceOrder', E: timeA, o: liquidation } })
  t.same(await market.next((m) => m.stream === '!forceOrder@arr'), { stream: '!forceOrder@arr', data: { e: 'forceOrder', E: timeA, o: liquidation } })

  const forced = await signedInject(rig, alice.keys, 'GET', '/fapi/v1/forceOrders', { symbol: S })
  t.same(forced.json(), [{
    orderId: 6, symbol: S, status: 'FILLED', clientOrderId: 'autoclose-1-6', price: '28006.0', avgPrice: '28050.0', origQty: '0.500',
    executedQty: '0.500', cumQuote: '14025.0000', timeInForce: 'IOC', type: 'LIMIT', reduceOnly: true, closePosition: false,
    side: 'SELL', positionSide: 'BOTH', stopPrice: '0.0', workingType: 'CONTRACT_PRICE', origType: 'LIMIT', time: timeA, updateTime: timeA,
  }])
  t.same((await signedInject(rig, alice.keys, 'GET', '/fapi/v1/forceOrders', { autoCloseType: 'ADL' })).json(), [])
  const income = (await signedInject(rig, alice.keys, 'GET', '/fapi/v1/income', { incomeType: 'INSURANCE_CLEAR' })).json()
  t.match(income, [{ symbol: S, incomeType: 'INSURANCE_CLEAR', income: '-22', asset: 'USDT', info: 'LIQUIDATION_FEE', time: timeA }])
  const fund = await rig.app.inject({ method: 'GET', url: `/fapi/v1/insuranceBalance?symbol=${S}` })
  t.same(fund.json(), { symbols: [S, 'ETHUSDTPERP'], assets: [{ asset: 'USDT', marginBalance: '22', updateTime: rig.ex.time }] })

  // ---- B ----------------------------------------------------------------------------------
  await ok(rig, order(erin.address, 'BUY', 280_500, 500))
  await ok(rig, order(bob.address, 'SELL', 280_500, 500))
  const bobShort = await signedInject(rig, bob.keys, 'GET', '/fapi/v1/adlQuantile', { symbol: S })
  // Shorts at the mark 28,050.0: CAROL (0.005 from 28,100.0, +0.25) and BOB (0.5 from 28,050.0, PnL 0, score 0): BOB is
  // 2nd of 2, ceil(5 × 1 / 2) − 1 = 2.
  t.same(bobShort.json(), [{ symbol: S, adlQuantile: { LONG: 0, SHORT: 0, BOTH: 2 } }])
  await tradeAt(261_000)
  const timeB = rig.ex.time
  t.match(await bobStream.next((m) => m.e === 'ORDER_TRADE_UPDATE' && m.o.c === 'adl_autoclose' && m.o.x === 'TRADE'),
    { o: { c: 'adl_autoclose', S: 'BUY', o: 'LIQUIDATION', p: '26055.7', x: 'TRADE', X: 'FILLED', l: '0.500', L: '26055.7',
      n: '0.00000000', rp: '997.15000000' } })
  const adl = await signedInject(rig, bob.keys, 'GET', '/fapi/v1/forceOrders', { autoCloseType: 'ADL' })
  t.match(adl.json(), [{ symbol: S, status: 'FILLED', clientOrderId: 'adl_autoclose', price: '26055.7', avgPrice: '26055.7',
    origQty: '0.500', executedQty: '0.500', side: 'BUY', time: timeB }])
  t.same((await signedInject(rig, bob.keys, 'GET', '/fapi/v1/forceOrders', { autoCloseType: 'LIQUIDATION' })).json(), [])
  t.match(await market.next((m) => m.stream === '!forceOrder@arr'),
    { data: { o: { S: 'SELL', p: '26055.7', ap: '26055.7', X: 'FILLED', z: '0.500' } } }, 'ERIN\'s liquidation; no stream for the ADL order')
  await sleep(20)
  t.notOk(market.messages.some((m: any) => m.data?.o?.S === 'BUY'), 'ADL orders are not liquidations on the stream')
  const trades = (await rig.app.inject({ method: 'GET', url: `/fapi/v1/trades?symbol=${S}` })).json()
  t.notOk(trades.some((x: { price: string }) => x.price === '26055.7'), 'the ADL fill is not a public trade')
  // Its id comes from the market's trade counter though: myTrades from it starts at it.
  const mine = (await signedInject(rig, bob.keys, 'GET', '/fapi/v1/userTrades', { symbol: S })).json() as { id: number; price: string }[]
  const adlFill = mine.find((x) => x.price === '26055.7')
  t.ok(adlFill, 'the ADL fill is among BOB\'s trades')
  const fromAdl = (await signedInject(rig, bob.keys, 'GET', '/fapi/v1/userTrades', { symbol: S, fromId: String(adlFill!.id) })).json()
  t.same(fromAdl.map((x: { id: number }) => x.id), mine.filter((x) => x.id >= adlFill!.id).map((x) => x.id),
    'fromId naming the ADL fill (not on the tape) starts at it')
  t.equal(rig.ex.state.accounts.get(erin.address)!.subs[0]!.perpWallet, 45_000, 'ERIN keeps 0.045 (the bankruptcy price rounds up)')
  // The ADL fill closed a long and a short: the projections' open interest (openInterestHist) follows.
  const m = rig.ex.state.markets.find((x) => x?.symbol === S)!
  t.equal((await rig.projections.openInterest(m.marketId))?.openInterestLots, m.kind === 'PERP' ? m.openInterestLots : -1,
    'the open interest history agrees with the core after ADL')
})

t.test('bad forceOrders parameters are refused', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const { keys } = await fundedTrader(rig, 1_000)
  t.same((await signedInject(rig, keys, 'GET', '/fapi/v1/forceOrders', { limit: 101 })).json(),
    { code: -1130, msg: "Data sent for parameter 'limit' is not valid." })
  t.same((await signedInject(rig, keys, 'GET', '/fapi/v1/forceOrders', { startTime: 10, endTime: 5 })).json(),
    { code: -1130, msg: "Data sent for parameter 'startTime' is not valid." })
  t.same((await signedInject(rig, keys, 'GET', '/fapi/v1/forceOrders', { symbol: 'BTCUSDT' })).json(),
    { code: -1121, msg: 'Invalid symbol.' })
})
