// Volumes past 2^53: a spot market's quote volume counts in tick·lots, and BTCUSDT's is
// 1e-6 USDT, so a candle (a month's, a week's, a busy day's) passes 2^53 at 9.0e9 USDT traded.
// The projections asserted the kline's sum safe and stopped there (a node's projections
// stopping stops the node); the 24 h ticker and avgPrice summed candles as numbers. Each sum now
// goes on in bigint past 2^53, and klines, the ticker and avgPrice answer the exact figures.

import t from 'tap'
import { LIMITS } from '../../core/limits.js'
import { ALICE, BOB, BTCSPOT } from '../helpers/exchange.js'
import { limit } from '../helpers/commands.js'
import { gatewayRig } from '../helpers/gateway.js'

t.test('ten trades of 1,000 BTC at 1,000,000 USDT: 1e10 USDT of volume, exact everywhere', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  for (const account of [ALICE, BOB]) {
    for (const asset of ['USDT', 'BTC']) {
      await rig.run({ type: 'Deposit', account, sub: 0, asset, amount: LIMITS.ledgerAmountMax, wallet: 'SPOT', ref: `${account}-${asset}` })
    }
  }
  // 1,000 BTC (10,000,000 lots) at 1,000,000.00 (100,000,000 ticks): 1e15 tick·lots a trade.
  for (let i = 0; i < 10; i++) {
    const [maker, taker] = i % 2 === 0 ? [ALICE, BOB] : [BOB, ALICE]
    const r1 = await rig.run(limit(maker, 'SELL', 100_000_000, 10_000_000, { marketId: BTCSPOT }))
    const r2 = await rig.run(limit(taker, 'BUY', 100_000_000, 10_000_000, { marketId: BTCSPOT }))
    if (!r1.ok || !r2.ok) throw new Error(`trade ${i} refused: ${r1.ok ? '' : r1.code} ${r2.ok ? '' : r2.code}`)
  }
  const volume = '10000000000.000000'
  const klines = await rig.app.inject({ method: 'GET', url: '/api/v3/klines?symbol=BTCUSDT&interval=1M' })
  t.equal(klines.statusCode, 200)
  t.match(klines.json(), [[Number, '1000000.00', '1000000.00', '1000000.00', '1000000.00', '10000.0000', Number, volume, 10]])
  const ticker = await rig.app.inject({ method: 'GET', url: '/api/v3/ticker/24hr?symbol=BTCUSDT' })
  t.equal(ticker.statusCode, 200)
  t.match(ticker.json(), { volume: '10000.0000', quoteVolume: volume, weightedAvgPrice: '1000000.00', count: 10 })
  const avg = await rig.app.inject({ method: 'GET', url: '/api/v3/avgPrice?symbol=BTCUSDT' })
  t.equal(avg.statusCode, 200)
  t.match(avg.json(), { mins: 5, price: '1000000.00' })
})
