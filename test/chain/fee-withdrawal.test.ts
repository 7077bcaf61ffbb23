// `exchange withdraw-fees` on `exchange start` with its market-making bot trading: the operator's
// withdrawal of collected fees is paid on chain by the withdrawal executor, bad input and more
// than the fees are refused in words, and the audit afterwards finds the payment requested.

import t from 'tap'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { Wallet } from 'ethers'
import { runAudit } from '../../bin/audit.js'
import { startAnvil } from '../../chain/anvil.js'
import { chainProvider, tokenAt } from '../../chain/provider.js'
import { freePort } from '../../replica/free-port.js'
import { exchangeCli, scrapeGauges, startExchange } from '../helpers/processes.js'

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

t.test('fees withdrawn to an address, paid on chain, and audited', { timeout: 90_000 }, async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'fee-withdrawal-'))
  const [port, repl, metrics] = [await freePort(), await freePort(), await freePort()]
  const proc = startExchange(['start', '--data', dir, '--port', String(port), '--replication-port', String(repl),
    '--metrics-port', String(metrics), '--checkpoint-interval', '50', '--anchor-interval-ms', '200', '--chain-poll-ms', '50',
    '--bot', 'on', '--bot-ms', '100'])
  t.teardown(async () => { await proc.kill(); await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }) })
  const running = await proc.waitFor((l) => l.msg === 'chain services running', 30_000)
  await proc.waitFor((l) => l.msg === 'market maker running', 30_000)
  const provider = chainProvider(running.rpc as string, 31337)
  t.teardown(() => provider.destroy())
  const deployment = JSON.parse(await readFile(path.join(dir, 'chain', 'deployment.json'), 'utf8')) as { tokens: { asset: string; address: string }[] }
  const usdt = tokenAt(deployment.tokens.find((x) => x.asset === 'USDT')!.address, provider)

  const cli = (args: string[]) =>
    exchangeCli(['withdraw-fees', '--data', dir, '--port', String(port), '--replication-port', String(repl), ...args])
  const to = Wallet.createRandom().address
  t.match(await cli(['--amount', 'lots', '--to', to]), { code: 1, stderr: 'exchange: --amount must be a positive decimal number, got lots\n' })
  t.match(await cli(['--amount', '0.0000001', '--to', to]), { code: 1, stderr: 'exchange: --amount 0.0000001 is finer than the asset\'s 6 decimals\n' })
  t.match(await cli(['--amount', '1000000', '--to', to]), { code: 1, stderr: /the fees collected in USDT are less than 1000000\n$/ })
  t.match(await cli(['--amount', '1', '--asset', 'DOGE', '--to', to]), { code: 1, stderr: /DOGE is not an asset of the exchange/ })

  // The bot's trades pay fees; once 0.01 USDT has come in, the operator takes it.
  // The operator sees what has come in at /metrics.
  let collected = 0
  while (collected < 0.01) {
    collected = (await scrapeGauges(metrics))['exchange_fees{asset="USDT"}'] ?? 0
    if (collected < 0.01) await sleep(100)
  }
  let done: { withdrawalId: number; seq: number } | undefined
  for (let i = 0; i < 200 && done === undefined; i++) {
    const r = await cli(['--amount', '0.01', '--to', to])
    if (r.code === 0) done = JSON.parse(r.stdout) as { withdrawalId: number; seq: number }
    else await sleep(200)
  }
  t.ok(done, 'accepted once fees were collected')
  t.match(done, { asset: 'USDT', amount: '0.01', to })
  while ((await usdt.balanceOf(to) as bigint) === 0n) await sleep(100)
  t.equal(await usdt.balanceOf(to), 10_000n, 'paid on chain by the executor')
  await proc.kill('SIGTERM')

  const anvil = await startAnvil({ stateFile: path.join(dir, 'chain', 'anvil-state.json') })
  t.teardown(() => anvil.stop())
  const lines: string[] = []
  t.equal(await runAudit({ dataDir: dir, rpc: anvil.url, chainId: 31337, out: (l) => lines.push(l) }), true, lines.join('\n'))
  t.match(lines.join('\n'), /withdrawals +1 marked paid, each paid by the Vault/)
})
