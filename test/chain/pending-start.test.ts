// Pending deposits on `exchange start --confirmations 3`: the embedded chain then mines a block
// a second while a deposit waits for its confirmations (and none while idle); a new wallet's
// deposit shows in the history as status 0 with its confirmations, then as one credited row,
// credited once; its user data stream tells both steps. A withdrawal is then paid at once but
// recorded completed only once its payment is 3 blocks deep.

import t from 'tap'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { Wallet, type Contract } from 'ethers'
import { devKey } from '../../chain/anvil.js'
import type { Deployment } from '../../chain/deploy.js'
import { mintTestTokens } from '../../chain/fund.js'
import { chainProvider, mined, Operator, tokenAt, vaultAt } from '../../chain/provider.js'
import { sessionDomain, SESSION_TYPES } from '../../gateway/session-signature.js'
import { connect } from '../ws/client.js'
import { freePort } from '../../replica/free-port.js'
import { signedRequest, startExchange } from '../helpers/processes.js'

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

t.test('a deposit is pending with its confirmations, then credited once; a withdrawal completes 3 blocks deep', { timeout: 120_000 }, async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pending-start-'))
  const [port, repl, metrics] = [await freePort(), await freePort(), await freePort()]
  const proc = startExchange(['start', '--data', dir, '--port', String(port), '--replication-port', String(repl),
    '--metrics-port', String(metrics), '--confirmations', '3', '--chain-poll-ms', '50', '--price-feed', 'off'])
  t.teardown(async () => { await proc.kill(); await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }) })
  const running = await proc.waitFor((l) => l.msg === 'chain services running', 30_000)
  t.match(running, { confirmations: 3, embedded: true })
  await proc.waitFor((l) => l.msg === 'demo account funded', 60_000)
  const base = `http://127.0.0.1:${port}`
  const provider = chainProvider(running.rpc as string, 31337)
  t.teardown(() => provider.destroy())
  const deployment = JSON.parse(await readFile(path.join(dir, 'chain', 'deployment.json'), 'utf8')) as Deployment
  const usdt = deployment.tokens.find((x) => x.asset === 'USDT')!.address

  // A new wallet opens a session (no balance yet) and listens to its spot user data stream.
  const wallet = Wallet.createRandom().connect(provider)
  const request = { address: wallet.address, subAccount: 0, permissions: 'TRADE,USER_DATA,WITHDRAW', expiresAt: Date.now() + 3_600_000, nonce: Date.now() }
  const signature = await wallet.signTypedData(sessionDomain(31337), SESSION_TYPES, request)
  const keys = await (await fetch(`${base}/fapi/v1/session`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...Object.fromEntries(Object.entries(request).map(([k, v]) => [k, String(v)])), signature }).toString() })).json() as { apiKey: string; secretKey: string }
  const call = async (p: string, params: Record<string, string> = {}, method = 'GET'): Promise<any> =>
    (await signedRequest(base, keys, method, p, params)).body
  const { listenKey } = await (await fetch(`${base}/api/v3/userDataStream`, { method: 'POST', headers: { 'X-MBX-APIKEY': keys.apiKey } })).json() as { listenKey: string }
  const stream = await connect(`ws://127.0.0.1:${port}/ws/${listenKey}`)
  t.teardown(() => stream.close())

  // Gas and 250 test USDT from the operator, then the deposit from the wallet itself.
  await provider.send('anvil_setBalance', [wallet.address, '0x56bc75e2d63100000'])
  // The running exchange sends with the same key (its anchors): the mint retries a nonce taken under it.
  await mintTestTokens({ provider, operator: new Operator(devKey(0), provider), deployment, to: wallet.address, asset: 'USDT', units: 250_000_000n })
  await mined(await (tokenAt(usdt, wallet) as Contract).approve(running.vault as string, 250_000_000n))
  const receipt = await mined(await (vaultAt(running.vault as string, wallet) as Contract).deposit(usdt, 250_000_000n, 0))
  const ref = `${receipt.hash}:${receipt.logs.at(-1)!.index}`

  // Seen, not yet deep enough: status 0 with its count (polled; the chain moves on each second).
  let rows: any[] = []
  for (let i = 0; i < 200 && !(rows.length === 1 && rows[0].status === 0); i++) {
    rows = await call('/sapi/v1/capital/deposit/hisrec')
    if (rows.length === 0) await sleep(20)
  }
  t.match(rows, [{ id: ref, txId: ref, amount: '250', coin: 'USDT', status: 0, confirmTimes: /^[12]\/3$/ }])
  const usdtBalance = async (): Promise<unknown> => (await call('/api/v3/account')).balances.find((b: { asset: string }) => b.asset === 'USDT')
  const pending = await stream.next((m) => m.e === 'depositUpdate')
  t.match(pending, { status: 0, txId: ref, amount: '250', confirmTimes: /^[12]\/3$/ })

  // Then credited: one row, status 1, and the balance exactly once.
  const credited = await stream.next((m) => m.e === 'depositUpdate' && m.status === 1, 30_000)
  t.match(credited, { txId: ref, amount: '250' })
  t.match(await stream.next((m) => m.e === 'balanceUpdate'), { a: 'USDT', d: '250.00000000' })
  rows = await call('/sapi/v1/capital/deposit/hisrec')
  t.equal(rows.length, 1)
  t.match(rows[0], { txId: ref, amount: '250', status: 1, confirmTimes: '1/1' })
  // Nothing waits for confirmations now: the chain stands still (its saved state stops growing).
  const block = await provider.getBlockNumber()
  await sleep(2500)
  t.equal(await provider.getBlockNumber(), block, 'no block while idle')
  // A few more blocks change nothing.
  for (let i = 0; i < 2; i++) await provider.send('evm_mine', [])
  await sleep(300)
  t.equal((await call('/sapi/v1/capital/deposit/hisrec')).length, 1)
  t.same(await usdtBalance(), { asset: 'USDT', free: '250.00000000', locked: '0.00000000' }, 'credited once')

  // A withdrawal: paid on chain at once, recorded completed only once the payment is 3 deep.
  const { id } = await call('/sapi/v1/capital/withdraw/apply', { coin: 'USDT', amount: '100' }, 'POST')
  t.match(await stream.next((m) => m.e === 'withdrawUpdate'), { id, status: 4, amount: '100' })
  const token = tokenAt(usdt, provider)
  for (let i = 0; i < 500 && await token.balanceOf(wallet.address) === 0n; i++) await sleep(10)
  t.equal(await token.balanceOf(wallet.address), 100_000_000n, 'paid on chain')
  t.match(await call('/sapi/v1/capital/withdraw/history'), [{ id, status: 4, txId: '' }], 'processing while the payment is shallow')
  const completed = await stream.next((m) => m.e === 'withdrawUpdate' && m.status === 6, 30_000)
  const vault = vaultAt(running.vault as string, provider)
  const [payment] = await vault.queryFilter(vault.filters.Withdrawn!(BigInt(id)))
  t.equal(completed.txId, payment!.transactionHash)
  t.ok(await provider.getBlockNumber() - payment!.blockNumber + 1 >= 3, 'recorded 3 blocks deep')
  t.match(await call('/sapi/v1/capital/withdraw/history'), [{ id, status: 6, txId: payment!.transactionHash }])
  const after = await provider.getBlockNumber()
  await sleep(2500)
  t.equal(await provider.getBlockNumber(), after, 'no block while idle again')
})
