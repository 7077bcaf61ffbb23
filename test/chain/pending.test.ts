// A deposit between being mined and reaching the confirmation depth: the history shows it
// pending (status 0, confirmTimes "seen/required") from the watcher's notes through the log,
// then credited once (status 1); one whose block a reorg removes leaves no row. The spot user
// data stream tells each chain step as it happens: deposit seen and credited, withdrawal
// debited, paid, or refunded, with the spot balance changes.

import t from 'tap'
import type { AddressInfo } from 'node:net'
import { findSub, spotBalance } from '../../core/accounts.js'
import { DepositWatcher } from '../../chain/deposit-watcher.js'
import { WithdrawalExecutor } from '../../chain/withdrawal-executor.js'
import { attachStreams } from '../../gateway/ws/attach.js'
import { gatewayRig, openSession, signedInject, type Keys } from '../helpers/gateway.js'
import { connect, type Client } from '../ws/client.js'
import { chainRig } from './rig.js'

const chain = await chainRig()
const rig = await gatewayRig()
attachStreams(rig.app, rig.ctx)
await rig.app.listen({ port: 0, host: '127.0.0.1' })
const base = `ws://127.0.0.1:${(rig.app.server.address() as AddressInfo).port}`
const clients: Client[] = []
t.teardown(async () => { for (const c of clients) c.close(); await rig.close(); await chain.close() })
const exchange = { state: () => rig.ex.state, submit: rig.ctx.submit }
const { vault, vaultBlock, tokens } = chain.deployment
const watcher = new DepositWatcher({ provider: chain.provider, vault, tokens, exchange, confirmations: 3, fromBlock: vaultBlock })
const executor = new WithdrawalExecutor({ provider: chain.provider, vault, fromBlock: vaultBlock, tokens, exchange, operator: chain.operator })
const spot = (address: string): number => spotBalance(findSub(rig.ex.state, { account: address, sub: 0 }), 'USDT').free

interface DepositRow { id: string; amount: string; coin: string; status: number; txId: string; confirmTimes: string; completeTime?: number }
const deposits = async (keys: Keys, params: Record<string, string> = {}): Promise<DepositRow[]> =>
  (await signedInject(rig, keys, 'GET', '/sapi/v1/capital/deposit/hisrec', params)).json()
const stream = async (keys: Keys): Promise<Client> => {
  const listenKey = (await rig.app.inject({ method: 'POST', url: '/api/v3/userDataStream', headers: { 'x-mbx-apikey': keys.apiKey } })).json().listenKey
  const c = await connect(`${base}/ws/${listenKey}`)
  clients.push(c)
  return c
}

const alice = chain.wallet(1)
const aliceKeys: Keys = (await openSession(rig, alice, { permissions: 'TRADE,USER_DATA,WITHDRAW' })).json()
const aliceStream = await stream(aliceKeys)

t.test('pending until the depth, then credited once; the stream tells both and the balance change', async (t) => {
  await chain.mint('USDT', alice.address, 300_000_000n)
  t.equal(await watcher.poll(), 0)
  t.same(await deposits(aliceKeys), [])
  const { hash } = await chain.deposit(alice, 'USDT', 300_000_000n)
  const ref = `${hash}:1`

  t.equal(await watcher.poll(), 0, 'one confirmation of three: nothing credited')
  t.match(await deposits(aliceKeys), [{ id: ref, amount: '300', coin: 'USDT', status: 0, txId: ref, confirmTimes: '1/3' }])
  t.equal((await deposits(aliceKeys))[0]!.completeTime, undefined)
  t.match(await aliceStream.next((m) => m.e === 'depositUpdate'),
    { e: 'depositUpdate', coin: 'USDT', amount: '300', status: 0, txId: ref, confirmTimes: '1/3', address: alice.address })
  t.equal(await watcher.poll(), 0)
  const seqBefore = rig.ex.state.seq
  t.equal(await watcher.poll(), 0)
  t.equal(rig.ex.state.seq, seqBefore, 'no new note while the count stands')

  await chain.mine(1)
  t.equal(await watcher.poll(), 0)
  t.match(await deposits(aliceKeys), [{ status: 0, confirmTimes: '2/3' }])
  t.match(await aliceStream.next((m) => m.e === 'depositUpdate'), { status: 0, confirmTimes: '2/3' })
  t.equal(spot(alice.address), 0, 'pending is not credited')

  await chain.mine(1)
  t.equal(await watcher.poll(), 1, 'credited at the third confirmation')
  t.equal(spot(alice.address), 300_000_000)
  const rows = await deposits(aliceKeys)
  t.equal(rows.length, 1, 'one row: the pending one became the credited one')
  t.match(rows[0], { amount: '300', coin: 'USDT', status: 1, txId: ref })
  t.not(rows[0]!.id, ref)
  t.same(await deposits(aliceKeys, { status: '0' }), [])
  t.equal((await deposits(aliceKeys, { status: '1' })).length, 1)
  t.match(await aliceStream.next((m) => m.e === 'balanceUpdate'), { e: 'balanceUpdate', a: 'USDT', d: '300.00000000' })
  t.match(await aliceStream.next((m) => m.e === 'outboundAccountPosition'), { B: [{ a: 'USDT', f: '300.00000000', l: '0.00000000' }] })
  t.match(await aliceStream.next((m) => m.e === 'depositUpdate'), { status: 1, txId: ref, amount: '300' })

  await chain.mine(3)
  t.equal(await watcher.poll(), 0)
  t.equal(spot(alice.address), 300_000_000, 'credited once')
  t.equal((await deposits(aliceKeys)).length, 1)
  const refused = await signedInject(rig, aliceKeys, 'GET', '/sapi/v1/capital/deposit/hisrec', { status: 'x' })
  t.equal(refused.statusCode, 400)
  t.same(refused.json(), { code: -1130, msg: 'Data sent for parameter \'status\' is not valid.' })
})

t.test('a pending deposit whose block a reorg removes leaves no row', async (t) => {
  const bob = chain.wallet(2)
  const bobKeys: Keys = (await openSession(rig, bob)).json()
  await chain.mint('USDT', bob.address, 50_000_000n)
  await watcher.poll()
  const snapshot = await chain.provider.send('evm_snapshot', [])
  await chain.deposit(bob, 'USDT', 40_000_000n)
  await watcher.poll()
  t.match(await deposits(bobKeys), [{ status: 0, amount: '40', confirmTimes: '1/3' }])
  t.equal(await chain.provider.send('evm_revert', [snapshot]), true)
  await chain.mine(3)
  t.equal(await watcher.poll(), 0)
  t.same(await deposits(bobKeys), [], 'the pending row is gone')
  t.equal(spot(bob.address), 0)
})

t.test('the stream tells a withdrawal debited, paid, and another refunded', async (t) => {
  const apply = async (amount: string): Promise<string> =>
    (await signedInject(rig, aliceKeys, 'POST', '/sapi/v1/capital/withdraw/apply', { coin: 'USDT', amount })).json().id
  const id = await apply('100')
  t.match(await aliceStream.next((m) => m.e === 'withdrawUpdate'),
    { e: 'withdrawUpdate', id, coin: 'USDT', amount: '100', status: 4, address: alice.address, txId: '' })
  t.match(await aliceStream.next((m) => m.e === 'balanceUpdate'), { a: 'USDT', d: '-100.00000000' })
  t.equal(await executor.poll(), 1)
  const paid = await aliceStream.next((m) => m.e === 'withdrawUpdate')
  t.match(paid, { id, status: 6 })
  t.equal((await chain.provider.getTransactionReceipt(paid.txId))?.status, 1)
  t.equal(await chain.token('USDT').balanceOf(alice.address), 100_000_000n)

  // Credited without tokens behind it, so the Vault cannot pay it: refunded.
  await rig.run({ type: 'Deposit', account: alice.address, sub: 0, asset: 'USDT', amount: 1_000_000_000, wallet: 'SPOT', ref: 'operator:alice' })
  t.match(await aliceStream.next((m) => m.e === 'balanceUpdate'), { d: '1000.00000000' })
  const big = await apply('1100')
  t.match(await aliceStream.next((m) => m.e === 'withdrawUpdate'), { id: big, status: 4, amount: '1100' })
  t.match(await aliceStream.next((m) => m.e === 'balanceUpdate'), { d: '-1100.00000000' })
  t.equal(await executor.poll(), 1)
  t.match(await aliceStream.next((m) => m.e === 'withdrawUpdate'), { id: big, status: 5, info: 'InsufficientBalance' })
  t.match(await aliceStream.next((m) => m.e === 'balanceUpdate'), { d: '1100.00000000' })
  t.equal(spot(alice.address), 1_200_000_000)
})

t.test('a note is refused once the deposit is credited, or when its counts make no sense; nothing changes', async (t) => {
  const [credited] = await deposits(aliceKeys, { status: '1' })
  const note = { type: 'DepositPending' as const, account: alice.address, sub: 0, asset: 'USDT', amount: 300_000_000,
    ref: credited!.txId, confirmations: 1, required: 3 }
  const seq = rig.ex.state.seq
  const refusals = [
    [note, 'DEPOSIT_DUPLICATE'],
    [{ ...note, ref: 'other:1', confirmations: 3 }, 'COMMAND_INVALID'],
    [{ ...note, ref: 'other:1', required: 0 }, 'COMMAND_INVALID'],
    [{ ...note, ref: 'other:1', asset: 'XYZ' }, 'ASSET_UNKNOWN'],
    [{ ...note, ref: 'other:1', amount: 0 }, 'AMOUNT_INVALID'],
  ] as const
  for (const [cmd, code] of refusals) t.match((await rig.ctx.submit(cmd)).result, { ok: false, code })
  t.equal(rig.ex.state.seq, seq + refusals.length, 'each is sequenced, refused')
  t.equal((await deposits(aliceKeys)).filter((d) => d.status === 0).length, 0, 'no pending row')
  t.equal(spot(alice.address), 1_200_000_000)
})
