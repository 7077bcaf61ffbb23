// fast-check over every route family: random parameter sets, correctly signed, never yield a
// 5xx, and a rejected request leaves the state root unchanged.

import t from 'tap'
import fc from 'fast-check'
import { Wallet } from 'ethers'
import { stateRoot } from '../../core/root.js'
import { gatewayRig, hmac, openSession, type Keys } from '../helpers/gateway.js'

const ROUTES: [string, string][] = [
  ['GET', '/fapi/v1/depth'], ['GET', '/fapi/v1/klines'], ['GET', '/fapi/v1/aggTrades'], ['GET', '/fapi/v1/ticker/24hr'],
  ['GET', '/fapi/v1/exchangeInfo'], ['GET', '/api/v3/depth'],
  ['POST', '/fapi/v1/order'], ['DELETE', '/fapi/v1/order'], ['GET', '/fapi/v1/order'], ['GET', '/fapi/v1/openOrders'],
  ['DELETE', '/fapi/v1/allOpenOrders'], ['POST', '/fapi/v1/leverage'], ['POST', '/fapi/v1/positionSide/dual'],
  ['GET', '/fapi/v2/account'], ['GET', '/fapi/v2/positionRisk'], ['GET', '/fapi/v3/myTrades'], ['GET', '/fapi/v1/income'],
  ['GET', '/fapi/v1/allOrders'], ['POST', '/api/v3/order'], ['DELETE', '/api/v3/order'],
  ['POST', '/sapi/v1/asset/transferQuoteFromSpotToPerp'], ['POST', '/sapi/v1/asset/transfer'],
  ['POST', '/sapi/v1/capital/withdraw/apply'], ['GET', '/sapi/v1/capital/deposit/hisrec'],
]

const NAMES = ['symbol', 'side', 'type', 'timeInForce', 'quantity', 'price', 'orderId', 'origClientOrderId', 'newClientOrderId',
  'limit', 'interval', 'startTime', 'endTime', 'fromId', 'leverage', 'reduceOnly', 'positionSide', 'amount', 'coin',
  'dualSidePosition', 'cancelRestrictions', 'goodTillDate', 'newOrderRespType', 'selfTradePreventionMode', 'incomeType']
const VALUES = fc.oneof(
  fc.constantFrom('BTCUSDTPERP', 'BTCUSDT', 'ETHUSDTPERP', 'BUY', 'SELL', 'LIMIT', 'MARKET', 'POST_ONLY', 'GTC', 'IOC', 'FOK',
    'GTX', 'GTD', '1m', '1M', 'true', 'false', 'LONG', 'USDT', 'RESULT', '0', '-1', '1e3', '0.001', '50000.0', '99999999999999999999'),
  fc.string({ maxLength: 12 }),
  fc.integer({ min: -5, max: 2 ** 53 }).map(String),
  fc.double({ noNaN: false }).map(String),
)

t.test('random signed parameters never yield a 5xx or change state on rejection', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const wallet = Wallet.createRandom()
  const keys = (await openSession(rig, wallet, { permissions: 'TRADE,USER_DATA,WITHDRAW' })).json() as Keys
  await rig.run({ type: 'Deposit', account: wallet.address, sub: 0, asset: 'USDT', amount: 1_000_000_000, wallet: 'PERP', ref: 'f' })
  let checked = 0
  await fc.assert(fc.asyncProperty(
    fc.constantFrom(...ROUTES), fc.dictionary(fc.constantFrom(...NAMES), VALUES, { maxKeys: 6 }),
    async ([method, path], params) => {
      const q = new URLSearchParams({ ...params, timestamp: String(rig.ex.time) }).toString()
      const before = stateRoot(rig.ex.state)
      const r = await rig.app.inject({ method: method as 'GET', url: `${path}?${q}&signature=${hmac(keys.secretKey, q)}`,
        headers: { 'x-mbx-apikey': keys.apiKey } })
      checked++
      if (r.statusCode >= 500) throw new Error(`${method} ${path}?${q} → ${r.statusCode} ${r.body}`)
      if (r.statusCode >= 400) {
        const body = r.json() as { code: number; msg: string }
        if (typeof body.code !== 'number' || body.code >= 0 || typeof body.msg !== 'string') throw new Error(`bad error body ${r.body}`)
        if (stateRoot(rig.ex.state) !== before) throw new Error(`${method} ${path}?${q} was rejected but changed state`)
      }
    }), { numRuns: 400, seed: 20261122 })
  t.ok(checked >= 400, `${checked} requests`)
})
