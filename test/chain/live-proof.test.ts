// Balance proofs from a running `exchange start`: the demo account fetches its proof over REST
// at the newest anchored checkpoint and checks it against the Vault on the embedded chain
// (`verify-proof`'s check, no log), then moves money and sees the next anchored proof carry
// it, while the node keeps running.

import t from 'tap'
import { createHmac } from 'node:crypto'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { verifyBalanceProof } from '../../bin/prove.js'
import { chainProvider, vaultAt } from '../../chain/provider.js'
import type { BalanceProof } from '../../replica/balance-proof.js'
import { freePort } from '../../replica/free-port.js'
import { startExchange } from '../helpers/processes.js'

interface Account { address: string; apiKey: string; secretKey: string }
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

t.test('the demo account proves its balances against the anchored root of a running exchange', { timeout: 90_000 }, async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'live-proof-'))
  const [port, repl, metrics] = [await freePort(), await freePort(), await freePort()]
  const proc = startExchange(['start', '--data', dir, '--port', String(port), '--replication-port', String(repl),
    '--metrics-port', String(metrics), '--checkpoint-interval', '10', '--anchor-interval-ms', '200', '--chain-poll-ms', '50',
    '--price-feed', 'off'])
  t.teardown(async () => { await proc.kill(); await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }) })
  const running = await proc.waitFor((l) => l.msg === 'chain services running', 30_000)
  await proc.waitFor((l) => l.msg === 'demo account funded', 30_000)
  const demo = JSON.parse(await readFile(path.join(dir, 'demo-account.json'), 'utf8')) as Account
  const rpc = running.rpc as string
  const vaultAddress = running.vault as string
  const provider = chainProvider(rpc, 31337)
  t.teardown(() => provider.destroy())
  const vault = vaultAt(vaultAddress, provider)

  const call = async (method: string, p: string, params: Record<string, string> = {}): Promise<{ status: number; body: any }> => {
    const q = new URLSearchParams({ ...params, timestamp: String(Date.now()) }).toString()
    const sig = createHmac('sha256', demo.secretKey).update(q).digest('hex')
    const r = await fetch(`http://127.0.0.1:${port}${p}?${q}&signature=${sig}`, { method, headers: { 'X-MBX-APIKEY': demo.apiKey } })
    return { status: r.status, body: await r.json() }
  }
  /** The proof once its perp wallet and spot USDT leaves show these units (anchors come every 200 ms). */
  const proofShowing = async (perp: string, spot: string): Promise<BalanceProof> => {
    const deadline = Date.now() + 30_000
    for (;;) {
      const r = await call('GET', '/sapi/v1/account/balanceProof')
      const leaves = r.status === 200 ? (r.body as BalanceProof).leaves.map((l) => l.leaf) : []
      if (leaves.some((l) => l.startsWith(`perpWallet|${demo.address}|0|${perp}|`)) &&
        leaves.some((l) => l.startsWith(`spot|${demo.address}|0|USDT|${spot}|`))) return r.body as BalanceProof
      if (Date.now() > deadline) throw new Error(`no proof showing ${perp}/${spot}: ${JSON.stringify(r.body).slice(0, 500)}`)
      await sleep(100)
    }
  }
  const check = async (proof: BalanceProof): Promise<string> => {
    const lines: string[] = []
    t.equal(await verifyBalanceProof({ proof, rpc, vault: vaultAddress, out: (l) => lines.push(l) }), true, lines.join('\n'))
    return lines.join('\n')
  }

  // Funded with 100,000 USDT, half of it moved to the perp wallet.
  const funded = await proofShowing('50000000000', '50000000000')
  t.match(await check(funded), new RegExp(`anchored on ${vaultAddress} at seq ${funded.seq}\\nPASS$`))
  t.ok(Number(await vault.latestSeq()) >= funded.seq, 'at a seq the Vault has anchored')
  const [root] = await vault.anchorAt(funded.seq) as [string, string]
  t.equal(root, funded.root)

  t.equal((await call('POST', '/sapi/v1/asset/transferQuoteFromSpotToPerp', { amount: '100' })).status, 200)
  const moved = await proofShowing('50100000000', '49900000000')
  t.ok(moved.seq > funded.seq, `a later anchor (${moved.seq} after ${funded.seq})`)
  await check(moved)

  const notHeld = await call('GET', '/sapi/v1/account/balanceProof', { seq: '3' })
  t.equal(notHeld.status, 400)
  t.match(notHeld.body, { code: -1130, msg: /this node holds the checkpoints \d+(, \d+)+\.$/ })
})
