// `--network testnet`: the same API, its own chain id. A wallet's session signature is
// bound to the network it was made for, so one made for the embedded default's chain is
// refused here, and the test network's own is accepted and trades.

import t from 'tap'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { Wallet } from 'ethers'
import { SESSION_TYPES, sessionDomain } from '../../gateway/session-signature.js'
import { freePort } from '../../replica/free-port.js'
import { startExchange } from '../helpers/processes.js'

t.test('the test network serves the same API under chain id 31338', { timeout: 60_000 }, async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'testnet-'))
  const [port, repl, metrics] = [await freePort(), await freePort(), await freePort()]
  const proc = startExchange(['start', '--network', 'testnet', '--data', dir, '--port', String(port),
    '--replication-port', String(repl), '--metrics-port', String(metrics)])
  t.teardown(async () => { await proc.kill(); await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }) })
  await proc.waitFor((l) => l.msg === 'demo account funded')
  const base = `http://127.0.0.1:${port}`

  const info = await (await fetch(`${base}/fapi/v1/exchangeInfo`)).json() as { symbols: { symbol: string }[] }
  t.same(info.symbols.map((s) => s.symbol).sort(), ['BTCUSDTPERP', 'ETHUSDTPERP'], 'the same markets')
  const demo = JSON.parse(await readFile(path.join(dir, 'demo-account.json'), 'utf8')) as { apiKey: string }
  t.match(demo.apiKey, /^[0-9a-zA-Z]{64}$/, 'the demo account exists on the test network too')

  const wallet = Wallet.createRandom()
  const open = async (chainId: number) => {
    const request = { address: wallet.address, subAccount: 0, permissions: 'TRADE,USER_DATA',
      expiresAt: Date.now() + 3_600_000, nonce: Date.now() }
    const signature = await wallet.signTypedData(sessionDomain(chainId), SESSION_TYPES, request)
    const body = new URLSearchParams({ ...Object.fromEntries(Object.entries(request).map(([k, v]) => [k, String(v)])), signature })
    const r = await fetch(`${base}/fapi/v1/session`, { method: 'POST', body,
      headers: { 'content-type': 'application/x-www-form-urlencoded' } })
    return { status: r.status, body: await r.json() as { code?: number; address?: string } }
  }
  const wrong = await open(31337)
  t.equal(wrong.status, 400, 'a signature for the embedded default chain is refused')
  t.equal(wrong.body.code, -1022)
  const right = await open(31338)
  t.equal(right.status, 200, JSON.stringify(right.body))
  t.equal(right.body.address, wallet.address)
})
