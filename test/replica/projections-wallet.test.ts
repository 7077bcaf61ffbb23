// Wallet read models: deposits, withdrawals through PROCESSING → COMPLETED | FAILED,
// spot ⇄ perp transfers with the TRANSFER income they cause, and the 90-day default range.

import t from 'tap'
import { walletRange } from '../../replica/projections/index.js'
import { ALICE, T0 } from '../helpers/exchange.js'
import { Fixture } from '../helpers/projections-fixture.js'

const W = Date.UTC(2023, 10, 15, 10, 0, 0)
const DAY = 86_400_000
const USDT = 1_000_000
const alice = { account: ALICE, sub: 0 }
const ADDRESS = '0x' + '1'.repeat(40)

t.test('deposits, withdrawals and transfers', async (t) => {
  const f = await Fixture.open(t)
  await f.at(W, { type: 'Deposit', account: ALICE, sub: 0, asset: 'USDT', amount: 1000 * USDT, wallet: 'SPOT', ref: 'tx-a:0' })
  const firstSeq = f.ex.state.seq
  await f.at(W + 1000, { type: 'Deposit', account: ALICE, sub: 0, asset: 'BTC', amount: 100_000_000, wallet: 'SPOT', ref: 'tx-b:0' })
  await f.at(W + 2000, { type: 'Deposit', account: ALICE, sub: 0, asset: 'USDT', amount: 500 * USDT, wallet: 'PERP', ref: 'tx-c:0' })
  await f.at(W + 2500, { type: 'Deposit', account: ALICE, sub: 1, asset: 'USDT', amount: 7 * USDT, wallet: 'SPOT', ref: 'tx-d:0' })

  const deposits = await f.p.deposits(alice, { limit: 1000 })
  t.same(deposits[0], {
    id: firstSeq * 65_536, asset: 'USDT', amount: 1000 * USDT, wallet: 'SPOT', txId: 'tx-a:0', status: 'SUCCESS',
    address: ALICE, time: W,
  })
  t.same(deposits.map((d) => [d.asset, d.amount, d.wallet]), [['USDT', 1000 * USDT, 'SPOT'], ['BTC', 100_000_000, 'SPOT'], ['USDT', 500 * USDT, 'PERP']])
  t.same((await f.p.deposits(alice, { coin: 'BTC', limit: 10 })).map((d) => d.txId), ['tx-b:0'], 'coin filter')
  t.same((await f.p.deposits(alice, { limit: 1 })).map((d) => d.txId), ['tx-a:0'], 'the default range starts 90 days back')
  t.same((await f.p.deposits(alice, { startTime: W + 1, limit: 10 })).map((d) => d.txId), ['tx-b:0', 'tx-c:0'])
  t.same((await f.p.deposits(alice, { endTime: W + 1000, limit: 10 })).map((d) => d.txId), ['tx-a:0', 'tx-b:0'])
  t.same((await f.p.deposits({ account: ALICE, sub: 1 }, { limit: 10 })).map((d) => d.txId), ['tx-d:0'], 'per sub-account')

  await f.at(W + 3000, { type: 'WithdrawalRequest', account: ALICE, sub: 0, asset: 'USDT', amount: 100 * USDT, address: ADDRESS, withdrawOrderId: 'w-1' })
  await f.at(W + 4000, { type: 'WithdrawalRequest', account: ALICE, sub: 0, asset: 'USDT', amount: 50 * USDT, address: ADDRESS })
  const w1 = {
    withdrawalId: 1, asset: 'USDT', amount: 100 * USDT, address: ADDRESS, withdrawOrderId: 'w-1', status: 'PROCESSING',
    txId: '', reason: '', applyTime: W + 3000, updateTime: W + 3000,
  }
  const w2 = { ...w1, withdrawalId: 2, amount: 50 * USDT, withdrawOrderId: '', applyTime: W + 4000, updateTime: W + 4000 }
  t.same(await f.p.withdrawals(alice, { limit: 10 }), [w1, w2], 'PROCESSING')
  await f.at(W + 5000, { type: 'WithdrawalComplete', withdrawalId: 1, txId: '0xfeed' })
  await f.at(W + 6000, { type: 'WithdrawalFail', withdrawalId: 2, reason: 'address blocked' })
  const done1 = { ...w1, status: 'COMPLETED', txId: '0xfeed', updateTime: W + 5000 }
  const done2 = { ...w2, status: 'FAILED', reason: 'address blocked', updateTime: W + 6000 }
  t.same(await f.p.withdrawals(alice, { limit: 10 }), [done1, done2], 'one record per withdrawal, in its latest status')
  t.same(await f.p.withdrawal(2), { ...done2, account: ALICE, sub: 0 }, 'by id')
  t.equal(await f.p.withdrawal(3), undefined)
  t.same(await f.p.withdrawals(alice, { coin: 'BTC', limit: 10 }), [])
  t.same(await f.p.withdrawals(alice, { endTime: W + 3500, limit: 10 }), [done1], 'ranges go by request time')

  // Spot USDT: 1000 − 100 − 50 + 50 refunded = 900; perp 500.
  await f.at(W + 7000, { type: 'Transfer', account: ALICE, sub: 0, direction: 'SPOT_TO_PERP', amount: 200 * USDT })
  const inSeq = f.ex.state.seq
  await f.at(W + 8000, { type: 'Transfer', account: ALICE, sub: 0, direction: 'PERP_TO_SPOT', amount: 50 * USDT })
  const transfers = await f.p.transfers(alice, { limit: 10 })
  t.same(transfers, [
    { tranId: inSeq * 65_536, direction: 'SPOT_TO_PERP', asset: 'USDT', amount: 200 * USDT, spotBalance: 700 * USDT, perpBalance: 700 * USDT, time: W + 7000 },
    { tranId: (inSeq + 1) * 65_536, direction: 'PERP_TO_SPOT', asset: 'USDT', amount: 50 * USDT, spotBalance: 750 * USDT, perpBalance: 650 * USDT, time: W + 8000 },
  ])
  const income = await f.p.income(alice, { incomeType: 'TRANSFER', limit: 10 })
  t.same(income.map((r) => [r.income, r.asset, r.info]), [[500 * USDT, 'USDT', 'DEPOSIT'], [200 * USDT, 'USDT', 'SPOT_TO_PERP'], [-50 * USDT, 'USDT', 'PERP_TO_SPOT']],
    'money in and out of the perp wallet is TRANSFER income')
  t.same(income.slice(1).map((r) => r.tranId), transfers.map((x) => x.tranId), 'a transfer and its income share the id')
  await t.rejects(f.p.transfers(alice, { limit: 1001 }))

  // A hundred days on, the default range no longer reaches the first deposits.
  await f.at(W + 100 * DAY, { type: 'Deposit', account: ALICE, sub: 0, asset: 'USDT', amount: USDT, wallet: 'SPOT', ref: 'tx-e:0' })
  t.same((await f.p.deposits(alice, { limit: 10 })).map((d) => d.txId), ['tx-e:0'])
  await t.rejects(f.p.deposits(alice, { startTime: W, limit: 10 }), /over 90 days/, 'a span over 90 days (the gateway refuses it first)')
  t.same((await f.p.deposits(alice, { startTime: W, endTime: W + 90 * DAY, limit: 10 })).map((d) => d.txId), ['tx-a:0', 'tx-b:0', 'tx-c:0'],
    'an explicit range reaches back')
  t.same((await f.p.deposits(alice, { endTime: W + 2000, limit: 10 })).map((d) => d.txId), ['tx-a:0', 'tx-b:0', 'tx-c:0'],
    'startTime defaults to 90 days before endTime')
})

t.test('wallet range defaults', async (t) => {
  const now = T0 + 100 * DAY
  t.same(walletRange({}, now), { startTime: now - 90 * DAY, endTime: now })
  t.same(walletRange({ endTime: now - DAY }, now), { startTime: now - 91 * DAY, endTime: now - DAY })
  t.same(walletRange({ startTime: now - 10 * DAY }, now), { startTime: now - 10 * DAY, endTime: now })
  t.same(walletRange({}, DAY), { startTime: 0, endTime: DAY }, 'never before the epoch')
  t.same(walletRange({ startTime: now - 90 * DAY }, now), { startTime: now - 90 * DAY, endTime: now }, '90 days exactly')
  t.throws(() => walletRange({ startTime: now - 90 * DAY - 1 }, now), /over 90 days/)
})
