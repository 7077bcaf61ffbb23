// A cluster's processes start in any order: a sequencer and a standby started while etcd does
// not answer (a real etcd, stopped with SIGSTOP) wait for it, saying so once, rather than exit;
// the standby does not follow before it is a registered standby. Once etcd answers, the
// sequencer leads and the standby joins, and commands are acknowledged with the standby holding them.

import t from 'tap'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { freePort } from '../../replica/free-port.js'
import { IngressClient } from '../../replica/ingress.js'
import { TEST_LEASE_MS, etcdSkip, startEtcd } from '../helpers/etcd.js'
import { readLogDir } from '../helpers/log-fixtures.js'
import { explained, internalLink, scrapeGauges, startExchange, type Proc } from '../helpers/processes.js'

const SECRET = '5d'.repeat(32)
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

t.test('a sequencer and a standby started before etcd answers wait for it, then form the cluster', { timeout: 120_000, skip: etcdSkip() }, (t) => explained(t, async (t, procs) => {
  const etcd = await startEtcd()
  const dir = await mkdtemp(path.join(os.tmpdir(), 'etcd-late-'))
  t.teardown(async () => { etcd.child.kill('SIGCONT'); await etcd.stop(); await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }) })
  etcd.child.kill('SIGSTOP') // listening, answering nothing: every call times out
  const ports = { A: { repl: await freePort(), metrics: await freePort() }, S1: { repl: await freePort(), metrics: await freePort() } }
  const start = (command: string[], n: 'A' | 'S1'): Proc => {
    const p = startExchange([...command, '--data', path.join(dir, n), '--node-id', n, '--replication-port', String(ports[n].repl), '--port', '0',
      '--metrics-port', String(ports[n].metrics), '--etcd', etcd.url, '--lease-ms', String(TEST_LEASE_MS), '--master-secret', SECRET, '--sync-replicas', '1',
      '--tick-ms', '50', '--host', '127.0.0.1'])
    procs.push(p)
    return p
  }
  const S1 = start(['replica', '--standby'], 'S1')
  const A = start(['sequencer'], 'A')
  const waiting = await A.waitFor((l) => l.msg === 'cannot take this node\'s lease in the consensus service; retrying', 30_000)
  t.match(waiting.reason, /etcd at .* unreachable/, 'the sequencer says why it waits')
  await S1.waitFor((l) => l.msg === 'fail-over: cannot join the cluster in the consensus service; retrying (following once joined)', 30_000)
  t.ok(S1.lines.some((l) => l.msg === 'follower running'), 'the standby runs (its gateway and metrics serve)')
  t.equal((await scrapeGauges(ports.S1.metrics)).exchange_seq, 0, 'and follows nothing before it is registered')
  await sleep(4_000) // past a few retries
  t.same([A.child.exitCode, S1.child.exitCode], [null, null], 'neither exits')
  t.equal(A.lines.filter((l) => l.msg === waiting.msg).length, 1, 'each says it once')
  t.notOk(A.lines.some((l) => l.msg === 'leading'), 'the sequencer does not lead without etcd')

  etcd.child.kill('SIGCONT')
  await A.waitFor((l) => l.msg === 'the consensus service answers: lease taken', 30_000)
  await A.waitFor((l) => l.msg === 'sequencer running', 30_000)
  await S1.waitFor((l) => l.msg === 'fail-over: joined the cluster as a standby', 30_000)
  const client = await IngressClient.connect(internalLink(SECRET), `ws://127.0.0.1:${ports.A.repl}`)
  const ack = await client.submit({ type: 'Deposit', account: '0x' + '6'.repeat(40), sub: 0, asset: 'USDT', amount: 1_000_000, wallet: 'SPOT', ref: 'late-1' })
  client.close()
  t.ok(ack.result.ok, `a command is acknowledged at seq ${ack.seq} (with --sync-replicas 1, once the standby holds it)`)
  const deadline = Date.now() + 20_000
  while ((await scrapeGauges(ports.S1.metrics)).exchange_seq! < ack.seq && Date.now() < deadline) await sleep(100)
  await Promise.all(procs.map((p) => p.kill('SIGKILL')))
  const held = (await readLogDir(path.join(dir, 'S1'))).find((e) => e.seq === ack.seq)
  t.match(held?.command, { type: 'Deposit', ref: 'late-1' }, 'the standby\'s log holds it')
}))
