// `exchange start` killed together with its embedded chain (a container's stop, the OOM killer,
// a kill of the process group, the machine going down): anvil writes its state file only when
// it exits, so before the chain saved its state ahead of every credit and payment, such a kill
// lost the Vault with every deposit in it while the log kept the balances. The restart then
// deployed new contracts and ran on, its audit failing. Now the chain comes back as the log
// left it; and a chain that lacks what the log credited (its state file gone) stops the start
// with the operator's one line.

import t from 'tap'
import { existsSync, readFileSync } from 'node:fs'
import { rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { startAnvil } from '../../chain/anvil.js'
import { runAudit } from '../../bin/audit.js'
import { freePort } from '../../replica/free-port.js'
import { exchangeCli, restartableNode } from '../helpers/processes.js'

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))
const SECRET = '5a'.repeat(32)

/**
 * SIGKILLs `pid` and every process under it, the deepest first: anvil must die before its
 * watchdog shell sees the exchange gone and stops it gently (which would save its state).
 */
function killTree(pid: number): void {
  // A short-lived child may end between being listed and being killed: gone is as good as killed.
  const gone = (err: unknown): void => { if ((err as NodeJS.ErrnoException).code !== 'ESRCH' && (err as NodeJS.ErrnoException).code !== 'ENOENT') throw err }
  const all = [pid]
  for (let i = 0; i < all.length; i++) {
    const p = all[i]!
    try {
      all.push(...readFileSync(`/proc/${p}/task/${p}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number))
    } catch (err) { gone(err) }
  }
  for (const p of all.reverse()) {
    try { process.kill(p, 'SIGKILL') } catch (err) { gone(err) }
  }
}

t.test('killed with its chain, the exchange comes back with the money on chain', { timeout: 180_000 }, async (t) => {
  const node = await restartableNode(t, 'chain-kill', SECRET, ['--chain-poll-ms', '50'])
  await node.start()
  const demo = await node.demo()
  const { body: applied } = await node.call(demo, 'POST', '/sapi/v1/capital/withdraw/apply', { coin: 'USDT', amount: '25' })
  let row: { id: string; status: number; txId: string } | undefined
  while (row?.status !== 6) {
    await sleep(100)
    row = (await node.call(demo, 'GET', '/sapi/v1/capital/withdraw/history')).body.find((r: { id: string }) => r.id === applied.id)
  }
  const anvilPids = readFileSync(`/proc/${node.proc.child.pid}/task/${node.proc.child.pid}/children`, 'utf8').trim()
  t.not(anvilPids, '', 'the chain runs under the exchange')
  killTree(node.proc.child.pid!)
  await node.proc.exited

  await node.start()
  const running = await node.proc.waitFor((l) => l.msg === 'chain services running', 30_000)
  t.notOk(node.proc.lines.some((l) => l.msg === 'embedded chain lost its contracts; deploying new ones'), 'the Vault is still there')
  const deposits = (await node.call(demo, 'GET', '/sapi/v1/capital/deposit/hisrec')).body as { amount: string }[]
  t.same(deposits.map((d) => d.amount), ['100000'])
  await node.proc.kill('SIGTERM')

  // The audit of the data directory against the chain's state file: every credit a deposit
  // into the Vault, the payment made by it, and the reserves it holds what the ledger owes.
  const stateFile = path.join(node.dir, 'chain', 'anvil-state.json')
  const anvil = await startAnvil({ stateFile })
  const lines: string[] = []
  const ok = await runAudit({ dataDir: node.dir, rpc: anvil.url, vault: running.vault as string, chainId: 31337, out: (l) => lines.push(l) })
  await anvil.stop()
  t.equal(ok, true, lines.join('\n'))
  t.match(lines.join('\n'), /deposits +1 credited, each a deposit into the Vault/)
  t.match(lines.join('\n'), /withdrawals +1 marked paid, each paid by the Vault/)

  // anvil dumps its state beside the state file as it exits; a clean stop makes that dump the
  // state file at once. Cut short (a kill while anvil wrote it), the next start drops it and the
  // chain starts from its last whole save, which holds every credit.
  const exitDump = `${stateFile}.exit`
  t.notOk(existsSync(exitDump), 'stopped cleanly: the dump is the state file already')
  await writeFile(exitDump, '{"block":{"number":"0x4","beneficiary":"0x00')
  await node.start()
  await node.proc.waitFor((l) => l.msg === 'chain services running', 30_000)
  t.ok(node.proc.lines.some((l) => l.msg === 'the embedded chain\'s dump at its last exit was cut short: starting from its last whole save'))
  t.same(((await node.call(demo, 'GET', '/sapi/v1/capital/deposit/hisrec')).body as { amount: string }[]).map((d) => d.amount), ['100000'],
    'the deposit history as before')
  await node.proc.kill('SIGTERM')

  // Without the chain's state the log's balances have no Vault behind them: the node says so
  // in one line and does not start.
  await rm(stateFile)
  await rm(exitDump, { force: true })
  const [port, repl, metrics] = [await freePort(), await freePort(), await freePort()]
  const refused = await exchangeCli(['start', '--data', node.dir, '--port', String(port), '--replication-port', String(repl),
    '--metrics-port', String(metrics), '--master-secret', SECRET, '--bot', 'off', '--price-feed', 'off'])
  t.equal(refused.code, 1)
  t.match(refused.stderr, new RegExp(`^exchange: the embedded chain \\(${stateFile}\\) does not hold deposit transaction 0x[0-9a-f]{64}, `
    + 'which the log credited: its state was lost or is older than the log'))
  t.equal(refused.stderr.trim().split('\n').length, 1, 'one line, no stack')

  t.notOk(existsSync(exitDump), 'the refused start left no dump of its empty chain to replace a state file put back')
  t.notOk(existsSync(stateFile), 'nor a state file of it')

  // A state file anvil cannot read (cut short): said in anvil's words, in one line.
  await writeFile(stateFile, '{"block":{"number":"0x4","beneficiary":"0x00')
  const damaged = await exchangeCli(['start', '--data', node.dir, '--port', String(port), '--replication-port', String(repl),
    '--metrics-port', String(metrics), '--master-secret', SECRET, '--bot', 'off', '--price-feed', 'off'])
  t.equal(damaged.code, 1)
  t.match(damaged.stderr, new RegExp(`^exchange: the chain \\(anvil\\) did not start on http://127\\.0\\.0\\.1:\\d+: error: invalid value '${stateFile}' `
    + `for '--load-state <PATH>': failed to parse json file`))
  t.notMatch(damaged.stderr, /    at |--help/, 'no stack, no pointer to anvil\'s --help')
  // And at once: the watchdog shell ends with anvil, so its exit is seen. (It used to outlive
  // anvil, and the start waited out the readiness timeout, 10 s a try, three tries; with an
  // hour's timeout here, that would hang this test until tap's timeout fails it.)
  await t.rejects(startAnvil({ stateFile, dieWithParent: true, readyTimeoutMs: 3_600_000 }), { name: 'AnvilStartError' })
})
