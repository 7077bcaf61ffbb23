// Endpoints that real clients call on their own before or around trading, found by running
// ccxt and the binance package against the gateway (test/clients): coin configuration (ccxt
// loads currencies from it), margin pairs, system status, account and symbol configuration
// (ccxt's fetchLeverage, fetchMarginMode), multi-assets mode (the binance package).

import t from 'tap'
import { Wallet } from 'ethers'
import { gatewayRig, openSession, signedInject, type Keys } from '../helpers/gateway.js'
import { RULES_VERSION } from '../../core/rules.js'

t.test('coin configuration, margin pairs, system status', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const wallet = Wallet.createRandom()
  const keys = (await openSession(rig, wallet, { permissions: 'TRADE,USER_DATA,WITHDRAW' })).json() as Keys
  await rig.run({ type: 'Deposit', account: wallet.address, sub: 0, asset: 'USDT', amount: 1_000_500_000, wallet: 'SPOT', ref: 'd1' })
  const w = await signedInject(rig, keys, 'POST', '/sapi/v1/capital/withdraw/apply', { coin: 'USDT', amount: '100' })
  t.equal(w.statusCode, 200)
  // A resting spot buy locks 0.01 × 1000 = 10 USDT.
  const placed = await signedInject(rig, keys, 'POST', '/api/v3/order', { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT',
    timeInForce: 'GTC', quantity: '0.0100', price: '1000.00' })
  t.equal(placed.statusCode, 200, JSON.stringify(placed.json()))

  const coins = (await signedInject(rig, keys, 'GET', '/sapi/v1/capital/config/getall')).json()
  t.same(coins.map((c: { coin: string }) => c.coin), ['USDT', 'BTC', 'ETH'])
  // 1000.5 deposited − 100 withdrawing − 10 locked; amounts unpadded as Binance prints them.
  t.match(coins[0], { coin: 'USDT', free: '890.5', locked: '10', withdrawing: '100', freeze: '0', trading: true,
    isLegalMoney: false, depositAllEnable: true, withdrawAllEnable: true })
  t.match(coins[0].networkList, [{ network: 'ETH', coin: 'USDT', isDefault: true, depositEnable: true, withdrawEnable: true,
    withdrawFee: '0', withdrawMin: '0.000001', withdrawIntegerMultiple: '0.000001', minConfirm: 1, addressRegex: '^(0x)[0-9A-Fa-f]{40}$' }])
  t.match(coins[1], { coin: 'BTC', free: '0', networkList: [{ withdrawMin: '0.00000001' }] })
  t.match(coins[0].networkList, [{ contractAddress: '', contractAddressUrl: '', specialTips: '' }], 'no chain declared: no token, no tips')
  // Once the log declared its chain: each token's contract, and how to deposit into the Vault.
  const chain = { chainId: 31337, vault: '0x' + '5a'.repeat(20), tokens: [{ asset: 'USDT', address: '0x' + '7b'.repeat(20), decimals: 6 }] }
  t.ok((await rig.run({ type: 'SetRules', version: RULES_VERSION, leafSeed: '0x' + '11'.repeat(32) })).ok)
  t.ok((await rig.run({ type: 'DeclareChain', ...chain })).ok)
  const known = (await signedInject(rig, keys, 'GET', '/sapi/v1/capital/config/getall')).json()
  t.match(known[0].networkList, [{ contractAddress: chain.tokens[0]!.address, contractAddressUrl: '',
    specialTips: `Deposit from this account's own address on chain 31337: approve the Vault ${chain.vault} for the token `
      + `${chain.tokens[0]!.address}, then call deposit(token, amount, 0) on the Vault (0: this sub-account). A plain transfer to the Vault is not credited.` }])
  t.match(known[1].networkList, [{ coin: 'BTC', contractAddress: '', specialTips: '' }], 'an asset without a token here: none')
  const unsigned = await rig.app.inject({ method: 'GET', url: '/sapi/v1/capital/config/getall', headers: { 'x-mbx-apikey': keys.apiKey } })
  t.same([unsigned.statusCode, unsigned.json().code], [400, -1102], 'signed: no signature is refused')

  const pairs = await rig.app.inject({ method: 'GET', url: '/sapi/v1/margin/allPairs' })
  t.same([pairs.statusCode, pairs.json()], [200, []], 'no spot margin trading: no cross margin pairs')
  t.same((await signedInject(rig, keys, 'GET', '/sapi/v1/margin/isolated/allPairs')).json(), [])
  t.same((await rig.app.inject({ method: 'GET', url: '/sapi/v1/system/status' })).json(), { status: 0, msg: 'normal' })
})

t.test('account and symbol configuration, multi-assets mode', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const wallet = Wallet.createRandom()
  const keys = (await openSession(rig, wallet)).json() as Keys

  t.same((await signedInject(rig, keys, 'GET', '/fapi/v1/accountConfig')).json(), { feeTier: 0, canTrade: true, canDeposit: true,
    canWithdraw: false, dualSidePosition: false, updateTime: 0, multiAssetsMargin: false, tradeGroupId: -1 }, 'no WITHDRAW permission')
  const fresh = (await signedInject(rig, keys, 'GET', '/fapi/v1/symbolConfig')).json()
  t.same(fresh.map((c: { symbol: string; leverage: number }) => [c.symbol, c.leverage]), [['BTCUSDTPERP', 20], ['ETHUSDTPERP', 20]],
    'untouched markets are at their default leverage')
  t.equal((await signedInject(rig, keys, 'POST', '/fapi/v1/leverage', { symbol: 'BTCUSDTPERP', leverage: 10 })).statusCode, 200)
  // At 10× the largest bracket allowing 10× caps notional at 230,000,000.
  t.same((await signedInject(rig, keys, 'GET', '/fapi/v1/symbolConfig', { symbol: 'BTCUSDTPERP' })).json(),
    [{ symbol: 'BTCUSDTPERP', marginType: 'CROSSED', isAutoAddMargin: 'false', leverage: 10, maxNotionalValue: '230000000' }])
  t.equal((await signedInject(rig, keys, 'GET', '/fapi/v1/symbolConfig', { symbol: 'BTCUSDT' })).json().code, -1121, 'spot symbol')
  t.equal((await signedInject(rig, keys, 'POST', '/fapi/v1/positionSide/dual', { dualSidePosition: 'true' })).statusCode, 200)
  t.match((await signedInject(rig, keys, 'GET', '/fapi/v1/accountConfig')).json(), { dualSidePosition: true })
  t.same((await signedInject(rig, keys, 'GET', '/fapi/v1/multiAssetsMargin')).json(), { multiAssetsMargin: false })
})
