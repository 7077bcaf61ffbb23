// The full path on `exchange start`: the embedded chain comes up with the contracts, the demo
// account is funded by a real deposit, a withdrawal over REST is paid on chain, checkpoint
// roots are anchored, and after the exchange stops the audit of its data directory passes
// against the chain's state (kept in the data directory).

import t from 'tap'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { startAnvil } from '../../chain/anvil.js'
import { chainProvider, tokenAt, vaultAt } from '../../chain/provider.js'
import { runAudit } from '../../bin/audit.js'
import { prove, verifyBalanceProof } from '../../bin/prove.js'
import { freePort } from '../../replica/free-port.js'
import { scrapeGauges, signedRequest, startExchange } from '../helpers/processes.js'
import { NODE, NODE_ARGS } from '../helpers/paths.js'

interface Account { address: string; apiKey: string; secretKey: string }
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

t.test('deposit, withdrawal, anchors and audit on the embedded chain', { timeout: 60_000 }, async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'chain-start-'))
  const [port, repl, metrics] = [await freePort(), await freePort(), await freePort()]
  const proc = startExchange(['start', '--data', dir, '--port', String(port), '--replication-port', String(repl),
    '--metrics-port', String(metrics), '--checkpoint-interval', '10', '--anchor-interval-ms', '200', '--chain-poll-ms', '50', '--tick-ms', '100'])
  t.teardown(async () => { await proc.kill(); await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }) })
  const running = await proc.waitFor((l) => l.msg === 'chain services running', 30_000)
  const vaultAddress = running.vault as string
  await proc.waitFor((l) => l.msg === 'demo account funded', 30_000)
  const demo = JSON.parse(await readFile(path.join(dir, 'demo-account.json'), 'utf8')) as Account
  const provider = chainProvider(running.rpc as string, 31337)
  const usdt = JSON.parse(await readFile(path.join(dir, 'chain', 'deployment.json'), 'utf8')).tokens[0].address as string

  const callAs = async (who: Account, method: string, p: string, params: Record<string, string> = {}): Promise<unknown> =>
    (await signedRequest(`http://127.0.0.1:${port}`, who, method, p, params)).body
  const call = (method: string, p: string, params: Record<string, string> = {}): Promise<unknown> => callAs(demo, method, p, params)

  // Funded by a real deposit: the history's txId is a mined transaction to the Vault.
  const deposits = await call('GET', '/sapi/v1/capital/deposit/hisrec') as { amount: string; txId: string }[]
  t.equal(deposits.length, 1)
  t.equal(deposits[0]!.amount, '100000')
  const receipt = await provider.getTransactionReceipt(deposits[0]!.txId.split(':')[0]!)
  t.equal(receipt?.status, 1)
  t.equal(receipt?.to, vaultAddress)

  // `exchange account` funds its new account on the same chain.
  const second = JSON.parse((await promisify(execFile)(NODE, [...NODE_ARGS, path.resolve('bin/exchange.js'), 'account', '--fund', '20000',
    '--data', dir, '--replication-port', String(repl)])).stdout) as Account
  const secondDeposits = await callAs(second, 'GET', '/sapi/v1/capital/deposit/hisrec') as { amount: string; txId: string }[]
  t.same(secondDeposits.map((d) => d.amount), ['20000'])
  t.equal((await provider.getTransactionReceipt(secondDeposits[0]!.txId.split(':')[0]!))?.to, vaultAddress)
  t.match(await callAs(second, 'GET', '/fapi/v2/balance'), [{ asset: 'USDT', balance: '10000.00000000' }])

  // Three withdrawals at once: those one executor poll finds are paid in one transaction.
  const ids = (await Promise.all(['25', '1', '2'].map((amount) =>
    call('POST', '/sapi/v1/capital/withdraw/apply', { coin: 'USDT', amount }) as Promise<{ id: string }>))).map((w) => w.id)
  let rows: { id: string; status: number; txId: string }[] = []
  while (rows.filter((r) => ids.includes(r.id) && r.status === 6).length < 3) {
    await sleep(100)
    rows = await call('GET', '/sapi/v1/capital/withdraw/history') as typeof rows
  }
  t.equal(await tokenAt(usdt, provider).balanceOf(demo.address), 28_000_000n, 'the withdrawals arrived on chain')
  for (const r of rows) t.equal((await provider.getTransactionReceipt(r.txId))?.status, 1)
  t.comment(`the three paid in ${new Set(rows.map((r) => r.txId)).size} transaction(s)`)

  // An anchor past everything so far, the demo account's funding included, which `prove` below
  // proves at (waiting for any anchor, the first, at seq 10, could come before that funding).
  const vault = vaultAt(vaultAddress, provider)
  const seqNow = (await scrapeGauges(metrics)).exchange_seq!
  while ((await vault.latestSeq()) < BigInt(seqNow)) await sleep(100)
  provider.destroy()
  await proc.kill('SIGTERM')

  // The chain as the exchange left it, from its state file, and the audit of the data directory.
  const anvil = await startAnvil({ stateFile: path.join(dir, 'chain', 'anvil-state.json') })
  t.teardown(() => anvil.stop())
  const lines: string[] = []
  const ok = await runAudit({ dataDir: dir, rpc: anvil.url, vault: vaultAddress, chainId: 31337, out: (l) => lines.push(l) })
  t.equal(ok, true, lines.join('\n'))
  t.match(lines.join('\n'), /anchors +(\d+) of \1 on/)
  t.notMatch(lines.join('\n'), /anchors +0 of/)
  t.match(lines.join('\n'), /withdrawals +3 marked paid, each paid by the Vault/)
  // The log declares its Vault: the auditor needs only the chain.
  const alone: string[] = []
  t.equal(await runAudit({ dataDir: dir, rpc: anvil.url, chainId: 31337, out: (l) => alone.push(l) }), true, alone.join('\n'))
  t.match(alone.join('\n'), new RegExp(`anchors +(\\d+) of \\1 on ${vaultAddress} \\(the Vault the log declares\\) match`))
  t.same(alone.slice(1).filter((l) => !l.startsWith('  anchors')), lines.slice(1).filter((l) => !l.startsWith('  anchors')), 'the same report')
  // And `prove` with only the chain: at the newest anchor of the Vault the log declares, which the proof names.
  const proof = await prove({ dataDir: dir, account: demo.address, sub: 0, seq: 0, checkpointInterval: 10, rpc: anvil.url })
  t.equal(proof.vault, vaultAddress)
  t.equal(proof.version, 2, 'salted leaves: the log is under rules 2')
  const checked: string[] = []
  t.equal(await verifyBalanceProof({ proof, rpc: anvil.url, out: (l) => checked.push(l) }), true, checked.join('\n'))
})
