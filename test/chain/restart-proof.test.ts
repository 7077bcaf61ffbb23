// A node restarted on its data directory knows which checkpoint the Vault anchored before it
// reaches a checkpoint of its own (hours away on a quiet exchange, 10,000 entries by default):
// its balance proofs are made at that checkpoint and name the Vault, /metrics shows it, and a
// user's `verify-proof --api` passes. (Live proofs of a running node: live-proof.test.ts.)

import t from 'tap'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { appliedSeq, exchangeCli as cli, restartableNode, scrapeGauges } from '../helpers/processes.js'

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

t.test('restarted, a node proves at the anchored checkpoint and names its Vault before any new checkpoint', { timeout: 120_000 }, async (t) => {
  // No bot, ticks or prices: after the demo account's funding the log stands still, so the
  // restarted node reaches no checkpoint of its own and knows the anchor only from the Vault.
  const node = await restartableNode(t, 'proof-restart', '77'.repeat(32),
    ['--no-bot', '--tick-ms', '0', '--checkpoint-interval', '10', '--anchor-interval-ms', '300', '--chain-poll-ms', '50'])
  await node.start()
  const demo = await node.demo()
  const last = Math.floor(await appliedSeq(node.metrics) / 10) * 10
  await node.proc.waitFor((l) => l.msg === 'state root anchored' && l.seq === last, 30_000)
  await node.proc.kill('SIGTERM')

  await node.start()
  const running = await node.proc.waitFor((l) => l.msg === 'chain services running', 30_000)
  t.ok(await appliedSeq(node.metrics) < last + 10, 'no checkpoint since the restart')
  const deadline = Date.now() + 20_000
  let proof = await node.call(demo, 'GET', '/sapi/v1/account/balanceProof')
  while (proof.body.vault === undefined && Date.now() < deadline) {
    await sleep(100)
    proof = await node.call(demo, 'GET', '/sapi/v1/account/balanceProof')
  }
  t.equal(proof.status, 200)
  t.equal(proof.body.vault, running.vault, 'the proof names the Vault')
  t.equal(proof.body.seq, last, 'at the checkpoint it anchored before the restart')
  t.equal((await scrapeGauges(node.metrics)).exchange_anchored_seq, last, '/metrics: exchange_anchored_seq')
  const dir = await mkdtemp(path.join(os.tmpdir(), 'proof-restart-keys-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const keys = path.join(dir, 'keys.json')
  await writeFile(keys, JSON.stringify(demo))
  const checked = await cli(['verify-proof', '--api', `http://127.0.0.1:${node.api}`, '--keys', keys, '--rpc', running.rpc as string])
  t.equal(checked.code, 0, checked.stdout + checked.stderr)
  t.match(checked.stdout, new RegExp(`anchored on ${running.vault as string} at seq ${last}\\nPASS\\n$`))
})
