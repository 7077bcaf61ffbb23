// GET /fapi/v1/symbolAdlRisk (ccxt's fetchADLRank): the insurance fund against each market's
// open interest at the mark, rated at the 0.1 % and 1 % lines, over REST from a real core. The
// fund fills only through liquidations, so the test sets its balance in the state directly.

import t from 'tap'
import { gatewayRig, fundedTrader } from '../helpers/gateway.js'

t.test('the rating follows the fund and the open interest', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const get = async (url: string) => (await rig.app.inject({ method: 'GET', url })).json()
  const now = () => rig.ex.time
  t.same(await get('/fapi/v1/symbolAdlRisk'), [
    { symbol: 'BTCUSDTPERP', adlRisk: 'LOW', updateTime: now() }, { symbol: 'ETHUSDTPERP', adlRisk: 'LOW', updateTime: now() },
  ], 'no open interest: nothing to deleverage')

  // 0.1 BTC long against 0.1 short at 30,000.0: 3,000 USDT of open interest at the mark.
  const alice = await fundedTrader(rig, 100_000)
  const bob = await fundedTrader(rig, 100_000)
  const order = (account: string, side: 'BUY' | 'SELL') => ({ type: 'PlaceOrder' as const, account, sub: 0, marketId: 1, side,
    orderType: 'LIMIT' as const, timeInForce: 'GTC' as const, priceTicks: 300_000, qtyLots: 100 })
  t.ok((await rig.run(order(alice.address, 'SELL'))).ok)
  t.ok((await rig.run(order(bob.address, 'BUY'))).ok)
  const rating = async () => (await get('/fapi/v1/symbolAdlRisk?symbol=BTCUSDTPERP')).adlRisk
  t.equal(await rating(), 'HIGH', 'an empty fund')
  // The fund in USDT ledger units (6 decimals): 3 USDT is 0.1 %, 30 USDT is 1 %.
  const fund = (usdt: number) => rig.ex.state.insurance.set('USDT', Math.round(usdt * 1_000_000))
  for (const [usdt, expected] of [[2.999999, 'HIGH'], [3, 'MEDIUM'], [29.999999, 'MEDIUM'], [30, 'LOW']] as const) {
    fund(usdt)
    t.equal(await rating(), expected, `${usdt} USDT in the fund`)
  }
  t.match(await get('/fapi/v1/symbolAdlRisk?symbol=ETHUSDTPERP'), { symbol: 'ETHUSDTPERP', adlRisk: 'LOW' })
  t.same(await get('/fapi/v1/symbolAdlRisk?symbol=BTCUSDT'), { code: -1121, msg: 'Invalid symbol.' })
})
