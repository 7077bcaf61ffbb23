// Wallet endpoints: quote transfers in the spec's and ccxt's forms with the balances after,
// withdrawals (permission, own address, debit at once), deposit and withdrawal history.

import t from 'tap'
import { Wallet } from 'ethers'
import { gatewayRig, openSession, signedInject, type Keys } from '../helpers/gateway.js'

t.test('transfers, withdrawals and history', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const wallet = Wallet.createRandom()
  const keys = (await openSession(rig, wallet, { permissions: 'TRADE,USER_DATA,WITHDRAW' })).json() as Keys
  await rig.run({ type: 'Deposit', account: wallet.address, sub: 0, asset: 'USDT', amount: 1_000_000_000, wallet: 'SPOT', ref: '0xabc:1' })

  const toPerp = await signedInject(rig, keys, 'POST', '/sapi/v1/asset/transferQuoteFromSpotToPerp', { amount: '250.5' })
  t.same(toPerp.json(), { s: '749.50000000', p: '250.50000000' })
  const back = await signedInject(rig, keys, 'POST', '/sapi/v1/asset/transferQuoteFromPerpToSpot', { amount: '0.5' })
  t.same(back.json(), { s: '750.00000000', p: '250.00000000' })
  const ccxt = await signedInject(rig, keys, 'POST', '/sapi/v1/asset/transfer', { type: 'MAIN_UMFUTURE', asset: 'USDT', amount: '50' })
  t.match(ccxt.json(), { tranId: Number })
  const futures = await signedInject(rig, keys, 'POST', '/sapi/v1/futures/transfer', { type: '2', asset: 'USDT', amount: '10' })
  t.match(futures.json(), { tranId: Number })
  const tooMuch = await signedInject(rig, keys, 'POST', '/sapi/v1/asset/transferQuoteFromPerpToSpot', { amount: '10000' })
  t.equal(tooMuch.statusCode, 400)
  t.equal(tooMuch.json().code, -2018)
  const precise = await signedInject(rig, keys, 'POST', '/sapi/v1/asset/transferQuoteFromSpotToPerp', { amount: '0.0000001' })
  t.equal(precise.json().code, -1111, 'more decimals than USDT has')

  // Spot now 750 − 50 + 10 = 710.
  const w = await signedInject(rig, keys, 'POST', '/sapi/v1/capital/withdraw/apply', { coin: 'USDT', amount: '100', withdrawOrderId: 'w1',
    network: 'ETH', walletType: '0' })
  t.same(w.json(), { id: '1' })
  const other = await signedInject(rig, keys, 'POST', '/sapi/v1/capital/withdraw/apply', { coin: 'USDT', amount: '1',
    address: '0x' + '1'.repeat(40) })
  t.equal(other.json().code, -1130, 'only to the account\'s own address')
  // Paid on the one network there is only when that is the one named, from the spot wallet only.
  for (const [param, value] of [['network', 'BSC'], ['network', 'eth'], ['walletType', '1']]) {
    const r = await signedInject(rig, keys, 'POST', '/sapi/v1/capital/withdraw/apply', { coin: 'USDT', amount: '1', [param!]: value! })
    t.same([r.statusCode, r.json()], [400, { code: -1130, msg: `Data sent for parameter '${param}' is not valid.` }], `${param} ${value}`)
  }
  const balance = (await signedInject(rig, keys, 'POST', '/sapi/v1/asset/transferQuoteFromSpotToPerp', { amount: '10' })).json()
  t.same(balance.s, '600.00000000', 'the withdrawal was debited at once')

  const deposits = (await signedInject(rig, keys, 'GET', '/sapi/v1/capital/deposit/hisrec', { coin: 'USDT' })).json()
  t.match(deposits, [{ amount: '1000', coin: 'USDT', status: 1, txId: '0xabc:1', address: wallet.address }])
  const withdrawals = (await signedInject(rig, keys, 'GET', '/sapi/v1/capital/withdraw/history')).json()
  t.match(withdrawals, [{ id: '1', amount: '100', coin: 'USDT', status: 4, withdrawOrderId: 'w1', address: wallet.address }])
  await rig.run({ type: 'WithdrawalComplete', withdrawalId: 1, txId: '0xdef' })
  const done = (await signedInject(rig, keys, 'GET', '/sapi/v1/capital/withdraw/history')).json()
  t.match(done, [{ id: '1', status: 6, txId: '0xdef' }])
  const wide = await signedInject(rig, keys, 'GET', '/sapi/v1/capital/deposit/hisrec', { startTime: 0, endTime: rig.ex.time })
  t.equal(wide.json().code, -1130, 'a range over 90 days')
})

t.test('withdrawals need the WITHDRAW permission', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const wallet = Wallet.createRandom()
  const keys = (await openSession(rig, wallet)).json() as Keys
  const r = await signedInject(rig, keys, 'POST', '/sapi/v1/capital/withdraw/apply', { coin: 'USDT', amount: '1' })
  t.equal(r.statusCode, 403)
})

// The time-range rule: without startTime, the most recent; with it, the oldest from it. A limit of
// 1 without times gave the oldest deposit: past 1,000 rows, new ones could not be reached.
t.test('deposit and withdrawal history: without startTime the most recent up to limit, with it the oldest from it', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const wallet = Wallet.createRandom()
  const keys = (await openSession(rig, wallet, { permissions: 'TRADE,USER_DATA,WITHDRAW' })).json() as Keys
  const t0 = rig.ex.time
  for (const n of [1, 2, 3]) {
    await rig.run({ type: 'Deposit', account: wallet.address, sub: 0, asset: 'USDT', amount: n * 1_000_000, wallet: 'SPOT', ref: `0xd:${n}` })
    await signedInject(rig, keys, 'POST', '/sapi/v1/capital/withdraw/apply', { coin: 'USDT', amount: String(n / 10) })
  }
  const amounts = async (path: string, q: Record<string, string | number>) =>
    ((await signedInject(rig, keys, 'GET', path, q)).json() as { amount: string }[]).map((r) => r.amount)
  t.same(await amounts('/sapi/v1/capital/deposit/hisrec', { limit: 1 }), ['3'], 'the newest deposit')
  t.same(await amounts('/sapi/v1/capital/deposit/hisrec', { limit: 2, endTime: rig.ex.time }), ['2', '3'], 'the newest two up to endTime')
  t.same(await amounts('/sapi/v1/capital/deposit/hisrec', { limit: 1, startTime: t0 }), ['1'], 'the oldest from startTime')
  t.same(await amounts('/sapi/v1/capital/withdraw/history', { limit: 1 }), ['0.3'], 'the newest withdrawal')
  t.same(await amounts('/sapi/v1/capital/withdraw/history', { limit: 1, startTime: t0 }), ['0.1'])
})
