// Universal transfer history (GET /sapi/v1/asset/transfer: one direction, newest first,
// paged, Binance's default 7 days) and the deposit address (the account's own).

import t from 'tap'
import { Wallet } from 'ethers'
import { gatewayRig, openSession, signedInject, type Keys } from '../helpers/gateway.js'

t.test('transfer history by direction, paged, newest first', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const wallet = Wallet.createRandom()
  const keys = (await openSession(rig, wallet)).json() as Keys
  await rig.run({ type: 'Deposit', account: wallet.address, sub: 0, asset: 'USDT', amount: 1_000_000_000, wallet: 'SPOT', ref: '0xabc:1' })
  const ids: number[] = []
  for (const amount of ['10', '20.5', '30']) {
    const r = await signedInject(rig, keys, 'POST', '/sapi/v1/asset/transfer', { type: 'MAIN_UMFUTURE', asset: 'USDT', amount })
    ids.push(r.json().tranId)
  }
  const out = await signedInject(rig, keys, 'POST', '/sapi/v1/asset/transfer', { type: 'UMFUTURE_MAIN', asset: 'USDT', amount: '5' })
  const times = rig.ex.time

  const all = await signedInject(rig, keys, 'GET', '/sapi/v1/asset/transfer', { type: 'MAIN_UMFUTURE' })
  t.equal(all.statusCode, 200)
  const body = all.json()
  t.equal(body.total, 3)
  t.same(body.rows.map((r: { amount: string }) => r.amount), ['30', '20.5', '10'])
  t.same(body.rows[0], { asset: 'USDT', amount: '30', type: 'MAIN_UMFUTURE', status: 'CONFIRMED', tranId: ids[2],
    timestamp: times - 1 })

  const page2 = (await signedInject(rig, keys, 'GET', '/sapi/v1/asset/transfer', { type: 'MAIN_UMFUTURE', size: 2, current: 2 })).json()
  t.same(page2, { total: 3, rows: [{ asset: 'USDT', amount: '10', type: 'MAIN_UMFUTURE', status: 'CONFIRMED', tranId: ids[0],
    timestamp: times - 3 }] })
  const back = (await signedInject(rig, keys, 'GET', '/sapi/v1/asset/transfer', { type: 'UMFUTURE_MAIN' })).json()
  t.same(back, { total: 1, rows: [{ asset: 'USDT', amount: '5', type: 'UMFUTURE_MAIN', status: 'CONFIRMED',
    tranId: out.json().tranId, timestamp: times }] })
  const before = (await signedInject(rig, keys, 'GET', '/sapi/v1/asset/transfer', { type: 'MAIN_UMFUTURE', endTime: times - 4 })).json()
  t.same(before, { total: 0, rows: [] })

  // The older futures form: both directions of one asset, from startTime, type "1" in and "2" out.
  const futures = (await signedInject(rig, keys, 'GET', '/sapi/v1/futures/transfer', { asset: 'USDT', startTime: times - 10, size: 2 })).json()
  t.same(futures, { rows: [
    { asset: 'USDT', tranId: out.json().tranId, amount: '5', type: '2', timestamp: times, status: 'CONFIRMED' },
    { asset: 'USDT', tranId: ids[2], amount: '30', type: '1', timestamp: times - 1, status: 'CONFIRMED' },
  ], total: 4 })
  t.same((await signedInject(rig, keys, 'GET', '/sapi/v1/futures/transfer', { asset: 'USDT' })).json(),
    { code: -1102, msg: "Mandatory parameter 'startTime' was not sent, was empty/null, or malformed." })
  t.same((await signedInject(rig, keys, 'GET', '/sapi/v1/futures/transfer', { asset: 'BTC', startTime: 0 })).json(), { rows: [], total: 0 })

  const bad: [Record<string, string | number>, { code: number; msg: string }][] = [
    [{}, { code: -1102, msg: "Mandatory parameter 'type' was not sent, was empty/null, or malformed." }],
    [{ type: 'MAIN_MARGIN' }, { code: -1130, msg: "Data sent for parameter 'type' is not valid." }],
    [{ type: 'MAIN_UMFUTURE', size: 101 }, { code: -1130, msg: "Data sent for parameter 'size' is not valid." }],
    [{ type: 'MAIN_UMFUTURE', current: 0 }, { code: -1130, msg: "Data sent for parameter 'current' is not valid." }],
    [{ type: 'MAIN_UMFUTURE', startTime: 0, endTime: times }, { code: -1130, msg: "Data sent for parameter 'startTime' is not valid." }],
  ]
  for (const [params, want] of bad) t.same((await signedInject(rig, keys, 'GET', '/sapi/v1/asset/transfer', params)).json(), want)
})

t.test('deposit address: the account itself', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const wallet = Wallet.createRandom()
  const keys = (await openSession(rig, wallet)).json() as Keys
  const r = await signedInject(rig, keys, 'GET', '/sapi/v1/capital/deposit/address', { coin: 'USDT', network: 'ETH' })
  t.equal(r.statusCode, 200)
  t.same(r.json(), { address: wallet.address, coin: 'USDT', tag: '', url: '' })
  t.same((await signedInject(rig, keys, 'GET', '/sapi/v1/capital/deposit/address', { coin: 'BTC' })).json(),
    { address: wallet.address, coin: 'BTC', tag: '', url: '' })
  t.same((await signedInject(rig, keys, 'GET', '/sapi/v1/capital/deposit/address', { coin: 'DOGE' })).json(),
    { code: -1130, msg: "Data sent for parameter 'coin' is not valid." })
  t.same((await signedInject(rig, keys, 'GET', '/sapi/v1/capital/deposit/address', { coin: 'USDT', network: 'TRX' })).json(),
    { code: -1130, msg: "Data sent for parameter 'network' is not valid." })
  t.same((await signedInject(rig, keys, 'GET', '/sapi/v1/capital/deposit/address')).json(),
    { code: -1102, msg: "Mandatory parameter 'coin' was not sent, was empty/null, or malformed." })
})
