// What a key and its account may do, over signed REST: the key's permissions from its
// session, the account's status and features, coin terms, spot commission rates, the order
// limits with the caller's counts, and the empty lists of features this exchange lacks.

import t from 'tap'
import { Wallet } from 'ethers'
import { gatewayRig, openSession, signedInject, spotTraders, type Keys } from '../helpers/gateway.js'

async function setup(t: { teardown(fn: () => unknown): void }) {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const all = (await openSession(rig, Wallet.createRandom(), { permissions: 'TRADE,USER_DATA,WITHDRAW' })).json() as Keys
  const reader = (await openSession(rig, Wallet.createRandom(), { permissions: 'USER_DATA' })).json() as Keys
  return { rig, all, reader }
}

t.test("apiRestrictions: the session's permissions", async (t) => {
  const { rig, all, reader } = await setup(t)
  const createdAt = (k: Keys) => rig.ex.state.sessions.get(k.apiKey)!.createdAt
  const off = {
    ipRestrict: false, enableReversal: false, enableInternalTransfer: false, enableVanillaOptions: false, enableFixApiTrade: false,
    enableFixReadOnly: false, enableMargin: false, enablePortfolioMarginTrading: false,
  }
  t.same((await signedInject(rig, all, 'GET', '/sapi/v1/account/apiRestrictions')).json(), {
    ...off, createTime: createdAt(all), enableWithdrawals: true, permitsUniversalTransfer: true, enableSpotAndMarginTrading: true,
    enableFutures: true, enableReading: true,
  })
  const r = (await signedInject(rig, reader, 'GET', '/sapi/v1/account/apiRestrictions')).json()
  t.match(r, { createTime: createdAt(reader), enableWithdrawals: false, permitsUniversalTransfer: false, enableSpotAndMarginTrading: false,
    enableFutures: false, enableReading: true }, 'a read-only key')
  const unsigned = await rig.app.inject({ method: 'GET', url: '/sapi/v1/account/apiRestrictions', headers: { 'x-mbx-apikey': all.apiKey } })
  t.equal(unsigned.statusCode, 400)
  t.equal(unsigned.json().code, -1102, 'no timestamp, no answer')
})

t.test('status, trading status, account features, coin terms, empty features', async (t) => {
  const { rig, all } = await setup(t)
  const get = async (path: string, params: Record<string, string> = {}) => (await signedInject(rig, all, 'GET', path, params)).json()
  t.same(await get('/sapi/v1/account/status'), { data: 'Normal' })
  t.same(await get('/sapi/v1/account/apiTradingStatus'), { data: { isLocked: false, plannedRecoverTime: 0, triggerCondition: {}, updateTime: 0 } })
  t.same(await get('/sapi/v1/account/info'),
    { vipLevel: 0, isMarginEnabled: false, isFutureEnabled: true, isOptionsEnabled: false, isPortfolioMarginRetailEnabled: false })
  const usdt = { minWithdrawAmount: '0.000001', depositStatus: true, withdrawFee: 0, withdrawStatus: true, depositTip: '' }
  const every = await get('/sapi/v1/asset/assetDetail')
  t.same(Object.keys(every).sort(), [...rig.ex.state.assets.keys()].sort())
  t.same(every.USDT, usdt)
  t.same(await get('/sapi/v1/asset/assetDetail', { asset: 'USDT' }), { USDT: usdt })
  t.same(await get('/sapi/v1/asset/assetDetail', { asset: 'NOPE' }), { code: -1130, msg: "Data sent for parameter 'asset' is not valid." })
  t.same(await get('/sapi/v1/asset/dribblet'), { total: 0, userAssetDribblets: [] })
  t.same((await signedInject(rig, all, 'POST', '/sapi/v1/asset/get-funding-asset')).json(), [])
  t.same((await rig.app.inject({ method: 'GET', url: '/sapi/v1/spot/delist-schedule' })).json(), [])
})

t.test('spot commission rates and the order limits with their counts', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const { buyer } = await spotTraders(rig)
  t.same((await signedInject(rig, buyer, 'GET', '/api/v3/account/commission', { symbol: 'BTCUSDT' })).json(), {
    symbol: 'BTCUSDT', standardCommission: { maker: '0.001', taker: '0.001', buyer: '0', seller: '0' },
    specialCommission: { maker: '0', taker: '0', buyer: '0', seller: '0' }, taxCommission: { maker: '0', taker: '0', buyer: '0', seller: '0' },
    discount: { enabledForAccount: false, enabledForSymbol: false, discountAsset: 'BNB', discount: '0' },
  })
  t.same((await signedInject(rig, buyer, 'GET', '/api/v3/account/commission', { symbol: 'BTCUSDTPERP' })).json(),
    { code: -1121, msg: 'Invalid symbol.' })

  // The filters bearing on the account: its caps in the market (as exchangeInfo lists them) and the exchange's.
  const mine = await signedInject(rig, buyer, 'GET', '/api/v3/myFilters', { symbol: 'BTCUSDT' })
  t.same(mine.json(), {
    exchangeFilters: [{ filterType: 'EXCHANGE_MAX_NUM_ORDERS', maxNumOrders: 1000 }],
    symbolFilters: [{ filterType: 'MAX_NUM_ORDERS', maxNumOrders: 200 }, { filterType: 'MAX_NUM_ALGO_ORDERS', maxNumAlgoOrders: 10 },
      { filterType: 'MAX_NUM_ICEBERG_ORDERS', maxNumIcebergOrders: 5 },
      { filterType: 'MAX_NUM_ORDER_AMENDS', maxNumOrderAmends: 10_000 }, { filterType: 'MAX_NUM_ORDER_LISTS', maxNumOrderLists: 20 }],
    assetFilters: [],
  })
  const listed = (await rig.app.inject('/api/v3/exchangeInfo?symbol=BTCUSDT')).json().symbols[0].filters
  for (const f of mine.json().symbolFilters) t.same(listed.find((x: { filterType: string }) => x.filterType === f.filterType), f, `exchangeInfo lists ${f.filterType} alike`)
  t.same((await signedInject(rig, buyer, 'GET', '/api/v3/myFilters', {})).json().code, -1102, 'symbol is mandatory')
  t.same((await signedInject(rig, buyer, 'GET', '/api/v3/myFilters', { symbol: 'BTCUSDTPERP' })).json().code, -1121)

  // Allocations come from Smart Order Routing, which this exchange has not: none, with the parameters checked.
  t.same((await signedInject(rig, buyer, 'GET', '/api/v3/myAllocations', { symbol: 'BTCUSDT', limit: 1000, orderId: 3 })).json(), [])
  for (const [params, code] of [[{}, -1102], [{ symbol: 'BTCUSDTPERP' }, -1121], [{ symbol: 'BTCUSDT', limit: 1001 }, -1130],
    [{ symbol: 'BTCUSDT', startTime: 2, endTime: 1 }, -1130]] as const) {
    const r = await signedInject(rig, buyer, 'GET', '/api/v3/myAllocations', params)
    t.equal(r.statusCode, 400)
    t.equal(r.json().code, code, JSON.stringify(params))
  }

  const limits = async () => (await signedInject(rig, buyer, 'GET', '/api/v3/rateLimit/order')).json()
  t.same(await limits(), [
    { rateLimitType: 'ORDERS', interval: 'SECOND', intervalNum: 10, limit: 300, count: 0 },
    { rateLimitType: 'ORDERS', interval: 'MINUTE', intervalNum: 1, limit: 1200, count: 0 },
  ])
  const order = { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', price: '30000.00', quantity: '0.0100' }
  for (let i = 0; i < 2; i++) t.equal((await signedInject(rig, buyer, 'POST', '/api/v3/order', order)).statusCode, 200)
  t.same((await limits()).map((l: { count: number }) => l.count), [2, 2], 'the two orders, counted by nothing else')
  t.same((await signedInject(rig, buyer, 'GET', '/fapi/v1/rateLimit/order')).json(), [
    { rateLimitType: 'ORDERS', interval: 'SECOND', intervalNum: 10, limit: 300 },
    { rateLimitType: 'ORDERS', interval: 'MINUTE', intervalNum: 1, limit: 1200 },
  ], 'the futures form: limits only')
})
