// The asset API's views of an account: POST /sapi/v3/asset/getUserAsset (positive spot balances,
// valued in BTC on request) and GET /sapi/v1/asset/wallet/balance (each wallet valued in
// quoteAsset), with valuations from the spot markets' last prices, through USDT where no
// market joins two assets.

import t from 'tap'
import { stateRoot } from '../../core/root.js'
import { priceIn } from '../../gateway/routes/user-assets.js'
import { gatewayRig, signedInject, spotTraders } from '../helpers/gateway.js'

t.test('getUserAsset and wallet/balance: balances and their valuations at the last prices', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const { seller, buyer, sellerWallet, buyerWallet } = await spotTraders(rig)
  const post = (keys: typeof seller, p: Record<string, string>) => signedInject(rig, keys, 'POST', '/api/v3/order', p)
  // The buyer takes 0.01 BTC at 30,000.00 (paying 300 USDT, receiving 0.00999 after the fee) and 0.1 ETH at 2,000.00.
  await post(seller, { symbol: 'BTCUSDT', side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.0100', price: '30000.00' })
  await post(buyer, { symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: '0.0100' })
  await rig.run({ type: 'Deposit', account: sellerWallet.address, sub: 0, asset: 'ETH', amount: 100_000_000, wallet: 'SPOT', ref: 'eth' })
  await post(seller, { symbol: 'ETHUSDT', side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.1000', price: '2000.00' })
  await post(buyer, { symbol: 'ETHUSDT', side: 'BUY', type: 'MARKET', quantity: '0.1000' })

  const eth = priceIn(rig.ex.state, 'ETH', 'BTC')!
  t.same([eth.num.toString(), eth.den.toString()], ['2000', '30000'], 'ETH in BTC: through USDT, 2,000 ÷ 30,000')
  const usdt = priceIn(rig.ex.state, 'USDT', 'BTC')!
  t.same([usdt.num.toString(), usdt.den.toString()], ['1', '30000'], 'USDT in BTC: the BTCUSDT market the other way round')

  const assets = async (p: Record<string, string> = {}) => (await signedInject(rig, buyer, 'POST', '/sapi/v3/asset/getUserAsset', p)).json()
  // 10,000 − 300 − 200 = 9,500 USDT; 0.00999 BTC; 0.0999 ETH.
  t.same(await assets(), [
    { asset: 'USDT', free: '9500', locked: '0', freeze: '0', withdrawing: '0', ipoable: '0', btcValuation: '0' },
    { asset: 'BTC', free: '0.00999', locked: '0', freeze: '0', withdrawing: '0', ipoable: '0', btcValuation: '0' },
    { asset: 'ETH', free: '0.0999', locked: '0', freeze: '0', withdrawing: '0', ipoable: '0', btcValuation: '0' },
  ])
  // Valued: 9,500 ÷ 30,000; 0.0999 × 2,000 ÷ 30,000 = 0.00666 (eight decimals, rounded down).
  t.same((await assets({ needBtcValuation: 'true' })).map((r: { asset: string; btcValuation: string }) => [r.asset, r.btcValuation]),
    [['USDT', '0.31666666'], ['BTC', '0.00999'], ['ETH', '0.00666']])
  t.same(await assets({ asset: 'ETH' }), [{ asset: 'ETH', free: '0.0999', locked: '0', freeze: '0', withdrawing: '0', ipoable: '0', btcValuation: '0' }])
  // The seller holds no ETH now besides what is left of the deposit, and all of its USDT came from the sales.
  const sellerAssets = (await signedInject(rig, seller, 'POST', '/sapi/v3/asset/getUserAsset', {})).json()
  t.same(sellerAssets.map((r: { asset: string }) => r.asset), ['USDT', 'BTC', 'ETH'], 'positive balances only, in asset order')

  // Into the futures wallet: 1,000 USDT.
  await rig.run({ type: 'Transfer', account: buyerWallet.address, sub: 0, direction: 'SPOT_TO_PERP', amount: 1_000_000_000 })
  const wallets = async (p: Record<string, string> = {}) => (await signedInject(rig, buyer, 'GET', '/sapi/v1/asset/wallet/balance', p)).json()
  const inUsdt = await wallets({ quoteAsset: 'USDT' })
  t.same(inUsdt.map((w: { walletName: string }) => w.walletName), ['Spot', 'Funding', 'Cross Margin', 'Isolated Margin', 'USDⓈ-M Futures',
    'COIN-M Futures', 'Earn', 'Options', 'Trading Bots'])
  // Spot: 8,500 + 0.00999 × 30,000 + 0.0999 × 2,000 = 8,500 + 299.7 + 199.8.
  t.same(inUsdt.filter((w: { activate: boolean }) => w.activate), [
    { activate: true, balance: '8999.50000000', walletName: 'Spot' },
    { activate: true, balance: '1000.00000000', walletName: 'USDⓈ-M Futures' },
  ])
  t.ok(inUsdt.filter((w: { activate: boolean }) => !w.activate).every((w: { balance: string }) => w.balance === '0.00000000'))
  // In BTC (the default): 8,999.5 ÷ 30,000 and 1,000 ÷ 30,000, rounded down.
  t.match(await wallets(), [{ walletName: 'Spot', balance: '0.29998333' }, {}, {}, {}, { walletName: 'USDⓈ-M Futures', balance: '0.03333333' }])

  const before = stateRoot(rig.ex.state)
  t.same((await signedInject(rig, buyer, 'POST', '/sapi/v3/asset/getUserAsset', { asset: 'XYZ' })).json(),
    { code: -1130, msg: "Data sent for parameter 'asset' is not valid." })
  t.same((await wallets({ quoteAsset: 'XYZ' })), { code: -1130, msg: "Data sent for parameter 'quoteAsset' is not valid." })
  const unsigned = await rig.app.inject({ method: 'POST', url: '/sapi/v3/asset/getUserAsset', headers: { 'x-mbx-apikey': buyer.apiKey } })
  t.same([unsigned.statusCode, unsigned.json().code], [400, -1102], 'signed only: no timestamp, no answer')
  t.equal(stateRoot(rig.ex.state), before)
})
