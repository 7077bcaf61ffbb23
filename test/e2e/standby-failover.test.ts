// End to end on loopback with real processes: a sequencer with --sync-replicas 1, a standby
// and an ordinary follower. A client submits commands and records every acknowledgement; the
// standby is frozen (SIGSTOP) while commands keep coming, then the sequencer is killed with
// SIGKILL and its data directory deleted (its machine is gone), and the frozen standby killed
// too. The standby then holds every acknowledged command at the seq it was acknowledged with,
// the follower holds nothing the standby lacks, and the standby, restarted as the sequencer on
// its own data, carries on from there with the follower behind it. (Without --sync-replicas
// the sequencer acknowledges what the frozen standby never wrote, and this fails.)

import t from 'tap'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import type { Command } from '../../core/commands.js'
import { hex } from '../../replica/entry.js'
import { IngressClient } from '../../replica/ingress.js'
import { freePort } from '../../replica/free-port.js'
import { readLogDir } from '../helpers/log-fixtures.js'
import { internalLink, reachedAll, scrapeGauges, startExchange, type Proc } from '../helpers/processes.js'

const ACCOUNT = '0x' + '4'.repeat(40)
const depositNamed = (ref: string): Command => ({ type: 'Deposit', account: ACCOUNT, sub: 0, asset: 'USDT', amount: 1_000_000, wallet: 'PERP', ref })

t.test('a standby promoted after the sequencer\'s machine is lost holds every acknowledged command', { timeout: 120_000 }, async (t) => {
  const dirs = await Promise.all(['seq-', 'standby-', 'fol-'].map((p) => mkdtemp(path.join(os.tmpdir(), p))))
  const [dirA, dirS, dirF] = dirs as [string, string, string]
  t.teardown(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }))))
  const [portA, portS, metricsA, metricsS, metricsF] = [await freePort(), await freePort(), await freePort(), await freePort(), await freePort()]
  const secret = '6f'.repeat(32)
  const common = ['--port', '0', '--tick-ms', '50', '--checkpoint-interval', '100', '--host', '127.0.0.1', '--master-secret', secret]
  const follow = (port: number): string => `ws://127.0.0.1:${port}/replication`
  const running = (l: Record<string, unknown>): boolean => l.msg === 'sequencer running'
  const procs: Proc[] = []
  const start = (args: string[]): Proc => {
    const p = startExchange([...args, ...common])
    procs.push(p)
    return p
  }
  t.teardown(() => Promise.all(procs.map((p) => p.kill())))

  const A = start(['sequencer', '--data', dirA, '--replication-port', String(portA), '--metrics-port', String(metricsA), '--sync-replicas', '1'])
  await A.waitFor((l) => l.msg === 'waiting for standbys to hold each command')
  t.notOk(A.lines.some(running), 'without a standby even the genesis waits')
  const S = start(['replica', '--data', dirS, '--follow', follow(portA), '--standby', '--metrics-port', String(metricsS)])
  let F = start(['replica', '--data', dirF, '--follow', follow(portA), '--metrics-port', String(metricsF)])
  await A.waitFor(running)

  // Commands in flight until the sequencer dies, 64 at a time.
  const acked = new Map<string, number>()
  const client = await IngressClient.connect(internalLink(secret), `ws://127.0.0.1:${portA}`)
  const inflight = new Set<Promise<void>>()
  let n = 0
  const submitMore = async (until: number): Promise<void> => {
    while (Date.now() < until) {
      while (inflight.size < 64) {
        const ref = `d-${n++}`
        const p: Promise<void> = client.submit(depositNamed(ref)).then((a) => { acked.set(ref, a.seq) }, () => {}).finally(() => inflight.delete(p))
        inflight.add(p)
      }
      // (While nothing is acknowledged, nothing settles: the clock ends the wait.)
      await Promise.race([...inflight, new Promise((r) => setTimeout(r, 50))])
    }
  }
  await submitMore(Date.now() + 500)
  const gauges = await scrapeGauges(metricsA)
  t.equal(gauges.exchange_standbys, 1, 'the sequencer counts its standby')
  t.ok(gauges.exchange_replicated_seq! > 0, `the standby held up to seq ${gauges.exchange_replicated_seq}`)
  await submitMore(Date.now() + 500)
  const before = acked.size
  S.child.kill('SIGSTOP') // the standby stops writing; the commands keep coming
  await submitMore(Date.now() + 500)
  t.ok(acked.size - before <= 64, `${acked.size - before} acknowledged while the standby was frozen (at most those it held already)`)
  await A.kill('SIGKILL') // with commands in flight
  await rm(dirA, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 })
  await Promise.all(inflight)
  client.close()
  t.ok(acked.size > 100, `${acked.size} of ${n} commands acknowledged before the sequencer was lost`)

  // Stopped where they stand: the frozen standby, with whatever it had not written, and the follower.
  await S.kill('SIGKILL')
  await F.kill('SIGKILL')
  const standbyLog = await readLogDir(dirS)
  const followerLog = await readLogDir(dirF)
  const at = new Map<string, number[]>()
  for (const e of standbyLog) if (e.command.type === 'Deposit' && e.command.account === ACCOUNT) at.set(e.command.ref, [...(at.get(e.command.ref) ?? []), e.seq])
  let missing = 0
  let moved = 0
  for (const [ref, seq] of acked) {
    const seqs = at.get(ref)
    if (seqs === undefined || seqs.length !== 1) missing++
    else if (seqs[0] !== seq) moved++
  }
  t.equal(missing, 0, 'every acknowledged command is in the standby\'s log, once')
  t.equal(moved, 0, 'each at the seq it was acknowledged with')
  t.ok(followerLog.length <= standbyLog.length, `the follower holds ${followerLog.length} entries, the standby ${standbyLog.length}`)
  t.ok(followerLog.every((e, i) => hex(e.hash) === hex(standbyLog[i]!.hash)), 'the follower\'s log is a prefix of the standby\'s, hash for hash')

  // The standby, restarted as the sequencer on its own data; the follower follows it.
  const P = start(['sequencer', '--data', dirS, '--replication-port', String(portS), '--metrics-port', String(metricsS)])
  await P.waitFor(running)
  F = start(['replica', '--data', dirF, '--follow', follow(portS), '--metrics-port', String(metricsF)])
  const after = await IngressClient.connect(internalLink(secret), `ws://127.0.0.1:${portS}`)
  const acks = await Promise.all(Array.from({ length: 50 }, (_, i) => after.submit(depositNamed(`after-${i}`))))
  after.close()
  const lastBefore = standbyLog.at(-1)!.seq
  t.ok(acks.every((a) => a.result.ok && a.seq > lastBefore), `the promoted sequencer goes on after seq ${lastBefore}`)
  const target = Math.max(...acks.map((a) => a.seq))
  t.ok(await reachedAll([metricsF], target, 15_000), 'the follower follows the promoted sequencer past its new commands')
  t.notOk(F.lines.some((l) => l.msg === 'follower stopped'), 'without a mismatch')
})
