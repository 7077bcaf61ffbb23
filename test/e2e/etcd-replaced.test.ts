// A cluster whose etcd lost its data: a new etcd starts its revisions again, below the terms the
// log holds, so the sequencer that claims the lead there gives its claim up and stops, naming the
// log's newest term and what to run; its standby, finding no term, elects no one. `exchange cluster raise-epoch` writes the new etcd's revision past it, and
// the sequencer started again leads with a term above every one its log holds, its standby
// holding what it acknowledges. Started by hand on a node whose log lacks commands the others
// hold as committed, a sequencer is not followed: they stop rather than cut them. Real etcd, real processes.

import t from 'tap'
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { EtcdKv } from '../../bin/etcd.js'
import { freePort } from '../../replica/free-port.js'
import { IngressClient } from '../../replica/ingress.js'
import { LevelLogStore } from '../../replica/level-log.js'
import { TEST_LEASE_MS, etcdSkip, startEtcd, type Etcd } from '../helpers/etcd.js'
import { appendBatches, readLogDir } from '../helpers/log-fixtures.js'
import { exchangeCli as cli, explained, internalLink, reachedAll, startExchange, type Proc } from '../helpers/processes.js'

const SECRET = '3c'.repeat(32)
const deposit = (ref: string) => ({ type: 'Deposit' as const, account: '0x' + '7'.repeat(40), sub: 0, asset: 'USDT', amount: 1_000_000, wallet: 'SPOT' as const, ref })

/** The `Lead` entries in a node's log: each term it holds, oldest first. */
async function termsIn(dir: string): Promise<number[]> {
  return (await readLogDir(dir)).filter((e) => e.command.type === 'Lead').map((e) => (e.command as { epoch: number }).epoch)
}

/** Nodes of one cluster on loopback, each with its data in `dir/<name>`: how to start each, and submit through one. */
async function clusterOf<N extends string>(dir: string, names: N[], procs: Proc[]) {
  const ports = {} as Record<N, { repl: number, metrics: number }>
  for (const n of names) ports[n] = { repl: await freePort(), metrics: await freePort() }
  const start = (command: string[], n: N, etcd: Etcd): Proc => {
    const p = startExchange([...command, '--data', path.join(dir, n), '--node-id', n, '--replication-port', String(ports[n].repl), '--port', '0',
      '--metrics-port', String(ports[n].metrics), '--etcd', etcd.url, '--lease-ms', String(TEST_LEASE_MS), '--master-secret', SECRET, '--sync-replicas', '1',
      '--tick-ms', '50', '--host', '127.0.0.1'])
    procs.push(p)
    return p
  }
  const submit = async (refs: string[], via: N) => {
    const client = await IngressClient.connect(internalLink(SECRET), `ws://127.0.0.1:${ports[via].repl}`)
    try {
      return await Promise.all(refs.map((ref) => client.submit(deposit(ref))))
    } finally {
      client.close()
    }
  }
  /** Whether node `n` applies up to `seq` within a minute (its /metrics). */
  const holds = (n: N, seq: number): Promise<boolean> => reachedAll([ports[n].metrics], seq, 60_000)
  return { start, submit, holds }
}

t.test('after etcd lost its data, raise-epoch lets the sequencer lead again above its log\'s terms', { timeout: 180_000, skip: etcdSkip() },
  (t) => explained(t, async (t, procs) => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'etcd-replaced-'))
    const etcds: Etcd[] = []
    t.teardown(async () => {
      await Promise.all(etcds.map((e) => e.stop()))
      await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 })
    })
    const { start, submit: submitVia } = await clusterOf(dir, ['A', 'S'], procs)
    const submit = (refs: string[]) => submitVia(refs, 'A')

    // The first etcd has seen some use: its revision, and so the first term, is past 300.
    const first = await startEtcd()
    etcds.push(first)
    const used = new EtcdKv([first.url])
    for (let i = 0; i < 300; i++) await used.put('/elsewhere/key', String(i))
    const A = start(['sequencer'], 'A', first)
    const S = start(['replica', '--standby'], 'S', first)
    await A.waitFor((l) => l.msg === 'sequencer running', 60_000)
    const before = await submit(['before-1', 'before-2'])
    t.ok(before.every((a) => a.result.ok), 'acknowledged under the first etcd')
    await Promise.all([A.kill('SIGKILL'), S.kill('SIGKILL')])
    const [term] = await termsIn(path.join(dir, 'A'))
    t.ok(term! > 300, `the log's term is etcd's revision at the claim: ${term}`)

    // Its data lost: a new etcd, whose revisions start again. The sequencer it elects stops.
    await first.stop()
    const fresh = await startEtcd()
    etcds.push(fresh)
    const S2 = start(['replica', '--standby'], 'S', fresh)
    const A2 = start(['sequencer'], 'A', fresh)
    await A2.exited
    t.equal(A2.child.exitCode, 1, 'the sequencer stops')
    t.match(A2.stderr(), `the log holds a later term (epoch ${term}) than etcd gave this leader`)
    t.match(A2.stderr(), `\`exchange cluster raise-epoch ${term} --etcd …\` raises them past it, then start this node again`,
      'naming the term and what to run, with no stack')
    t.notMatch(A2.stderr(), /\n\s+at /)
    await S2.waitFor((l) => l.msg === 'fail-over: no sequencer has led this cluster yet; waiting for one (exchange sequencer --etcd …)')
    t.equal(await new EtcdKv([fresh.url]).get('/exchange/term'), undefined, 'its claim was given up before any term was written: the standby elects no one')

    // The operator raises the new etcd's revision past that term; refused while a node leads.
    const raised = await cli(['cluster', 'raise-epoch', String(term), '--etcd', fresh.url])
    t.equal(raised.code, 0, raised.stderr)
    const r = JSON.parse(raised.stdout) as { cluster: string; from: number; revision: number }
    t.ok(r.from < term! && r.revision > term!, `etcd's revision raised from ${r.from} to ${r.revision}`)

    // Started again, it leads with a term above its log's, and its standby holds what it acknowledges.
    const A3 = start(['sequencer'], 'A', fresh)
    await A3.waitFor((l) => l.msg === 'sequencer running', 60_000)
    const after = await submit(['after-1'])
    t.ok(after[0]!.result.ok, `acknowledged at seq ${after[0]!.seq} under the new etcd`)
    const busy = await cli(['cluster', 'raise-epoch', String(term), '--etcd', fresh.url])
    t.equal(busy.code, 1)
    t.match(busy.stderr, /A leads epoch \d+: nothing to raise while a node leads/)
    await Promise.all([A3.kill('SIGKILL'), S2.kill('SIGKILL')])
    const terms = await termsIn(path.join(dir, 'A'))
    t.equal(terms.length, 2, 'two terms in the log')
    t.ok(terms[1]! > terms[0]!, `the new term is above the old one: ${terms.join(' < ')}`)
    t.ok((await readLogDir(path.join(dir, 'S'))).some((e) => e.command.type === 'Deposit' && e.command.ref === 'after-1'), 'the standby holds the command')
  }))

t.test('started by hand on a node that lacks committed commands, a sequencer is not followed: the nodes that hold them refuse to cut them',
  { timeout: 180_000, skip: etcdSkip() }, (t) => explained(t, async (t, procs) => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'etcd-wrong-'))
    const etcds: Etcd[] = []
    t.teardown(async () => {
      await Promise.all(etcds.map((e) => e.stop()))
      await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 })
    })
    const { start, submit, holds } = await clusterOf(dir, ['A', 'S1', 'S2', 'X'], procs)
    const first = await startEtcd()
    etcds.push(first)
    const A = start(['sequencer'], 'A', first)
    const S1 = start(['replica', '--standby'], 'S1', first)
    const S2 = start(['replica', '--standby'], 'S2', first)
    await A.waitFor((l) => l.msg === 'sequencer running', 60_000)
    const [early] = await submit(['early'], 'A')
    t.ok(early!.result.ok)
    // S2 holds its log's start (a standby killed before it caught up would hold nothing, and
    // so share no entry with the others); then it goes. A acknowledges more with S1 holding it
    // (--sync-replicas 1), and its ticks write on.
    t.ok(await holds('S2', early!.seq), 'S2 holds it')
    await S2.kill('SIGKILL')
    const late = await submit(['late-1', 'late-2', 'late-3'], 'A')
    t.ok(late.every((a) => a.result.ok), `acknowledged up to seq ${late.at(-1)!.seq} without S2`)
    await new Promise((r) => setTimeout(r, 500))
    await Promise.all([A.kill('SIGKILL'), S1.kill('SIGKILL')])
    const term = Math.max(...await termsIn(path.join(dir, 'A')))

    // etcd lost; the operator raises the new one's revision and starts S2, the wrong node, as sequencer.
    await first.stop()
    const fresh = await startEtcd()
    etcds.push(fresh)
    t.equal((await cli(['cluster', 'raise-epoch', String(term), '--etcd', fresh.url])).code, 0)
    const wrong = start(['sequencer'], 'S2', fresh)
    await wrong.waitFor((l) => l.msg === 'leading', 60_000)
    for (const n of ['A', 'S1'] as const) {
      const node = start(['replica', '--standby'], n, fresh)
      // Had it cut them, it would follow.
      const following = (): boolean => node.lines.some((l) => l.msg === 'follower running')
      for (const deadline = Date.now() + 60_000; node.child.exitCode === null && !following() && Date.now() < deadline;) {
        await new Promise((r) => setTimeout(r, 50))
      }
      t.equal(node.child.exitCode, 1, `${n} stops`)
      t.match(node.stderr(), new RegExp(`exchange: entries \\d+-\\d+ of this log were committed \\(held by the standbys its leader waited for\\), ` +
        `and the leader \\(node S2 leads epoch \\d+ at [^)]+\\) does not hold them: refusing to drop them`), `${n} names the committed entries S2 lacks`)
      t.notMatch(node.stderr(), /\n\s+at /, 'with no stack')
      const refs = (await readLogDir(path.join(dir, n))).flatMap((e) => (e.command.type === 'Deposit' ? [e.command.ref] : []))
      t.same(refs.filter((r) => r.startsWith('late-')), ['late-1', 'late-2', 'late-3'], `${n}'s log still holds them`)
      t.notOk(existsSync(path.join(dir, n, 'diverged')), 'and cut nothing')
    }

    // A node on another cluster's data directory shares no entry with the leader: said so, exit 1.
    const stranger = new LevelLogStore(path.join(dir, 'X', 'log'))
    await stranger.open()
    await appendBatches(stranger, [5])
    await stranger.close()
    const X = start(['replica', '--standby'], 'X', fresh)
    await X.exited
    t.equal(X.child.exitCode, 1, 'X stops')
    t.match(X.stderr(), new RegExp('^exchange: this log \\(seqs 1-5\\) shares no entry with the leader\'s \\(node S2 leads epoch \\d+ at [^)]+\\): ' +
      'not this cluster\'s log\\? Start this node on a new data directory\n$'), 'naming the log and what to do, with no stack')
  }))
