// Automatic fail-over end to end, with a real etcd and real processes on loopback: a sequencer
// (`start --etcd --sync-replicas 1`), two standbys and a follower serving REST, all finding
// each other through etcd. Commands are in flight when the sequencer is SIGKILLed. Without any
// operator step, a standby takes the lead; the follower follows it and its REST gateway takes
// orders again; the order placed before is still there; every acknowledged command is in the
// new leader's log at the seq it was acknowledged with, and the other nodes' logs are prefixes
// of it. The old sequencer, started again on its data, is refused: another node leads; started as
// a standby on the same data, it cuts off whatever its log held past the new leader's and follows.
// The price feed runs wherever the lead is: the sequencer's at first, then the promoted standby's.

import t from 'tap'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { Wallet } from 'ethers'
import { EtcdKv } from '../../bin/etcd.js'
import type { Command } from '../../core/commands.js'
import { hex } from '../../replica/entry.js'
import { freePort } from '../../replica/free-port.js'
import { IngressClient, IngressError } from '../../replica/ingress.js'
import { readLogFile } from '../../chain/log-file.js'
import { readLeader } from '../../replica/leadership.js'
import { TEST_LEASE_MS, etcdSkip, startEtcd } from '../helpers/etcd.js'
import { collect, readLogDir } from '../helpers/log-fixtures.js'
import { appliedSeq, explained, internalLink, reachedAll, scrapeGauges, signedRequest, startExchange, type DemoAccount, type Proc } from '../helpers/processes.js'

const ACCOUNT = '0x' + '5'.repeat(40)
const depositNamed = (ref: string): Command => ({ type: 'Deposit', account: ACCOUNT, sub: 0, asset: 'USDT', amount: 1_000_000, wallet: 'PERP', ref })
const SECRET = '7a'.repeat(32)
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))
const REWOUND = 'log rewound to where the leader\'s continues: entries never acknowledged dropped'

t.test('a standby takes over from a killed sequencer by itself; nothing acknowledged is lost', { timeout: 180_000, skip: etcdSkip() }, (t) => explained(t, async (t, procs) => {
  const etcd = await startEtcd()
  t.teardown(() => etcd.stop())
  const names = ['A', 'S1', 'S2', 'F', 'A2'] as const
  const made = await Promise.all(names.slice(0, 4).map(async (n) => [n, await mkdtemp(path.join(os.tmpdir(), `fo-${n}-`))]))
  t.teardown(() => Promise.all(made.map(([, d]) => rm(d!, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }))))
  // A2: the old sequencer rejoining, on its own data directory under its old node id.
  const dirs = Object.fromEntries([...made, ['A2', made[0]![1]]]) as Record<typeof names[number], string>
  const ports = Object.fromEntries(await Promise.all(names.map(async (n) => [n, { repl: await freePort(), api: await freePort(), metrics: await freePort() }]))) as
    Record<typeof names[number], { repl: number; api: number; metrics: number }>
  const start = (command: string[], n: typeof names[number], extra: string[] = []): Proc => {
    const p = startExchange([...command, '--data', dirs[n], '--node-id', n === 'A2' ? 'A' : n, '--replication-port', String(ports[n].repl), '--port', String(ports[n].api),
      '--metrics-port', String(ports[n].metrics), '--etcd', etcd.url, '--lease-ms', String(TEST_LEASE_MS), '--master-secret', SECRET,
      '--tick-ms', '50', '--checkpoint-interval', '100', '--host', '127.0.0.1', ...extra])
    procs.push(p)
    return p
  }
  // Each feed replays its own prices, so the index says whose feed runs.
  const feeds = { A: path.join(dirs.A, 'prices-a.csv'), S: path.join(dirs.A, 'prices-s.csv') }
  await writeFile(feeds.A, 'BTCUSDT,41000.5\nETHUSDT,2500.25\n')
  await writeFile(feeds.S, 'BTCUSDT,42000.25\nETHUSDT,2600.5\n')
  const feed = (file: string): string[] => ['--price-feed', `csv:${file}`, '--price-feed-ms', '200']
  const standby = (n: 'S1' | 'S2'): Proc => start(['replica', '--standby'], n, ['--sync-replicas', '1', ...feed(feeds.S)])
  const A = start(['start'], 'A', ['--sync-replicas', '1', '--chain', 'off', ...feed(feeds.A)])
  const standbys = { S1: standby('S1'), S2: standby('S2') }
  const F = start(['replica'], 'F')
  await A.waitFor((l) => l.msg === 'demo account funded', 60_000)
  await F.waitFor((l) => l.msg === 'follower running', 60_000)
  const demo = JSON.parse(await readFile(path.join(dirs.A, 'demo-account.json'), 'utf8')) as DemoAccount

  // REST through the follower's gateway, which sends commands to whichever node leads.
  const call = (method: string, p: string, params: Record<string, string>): Promise<{ status: number; body: any }> =>
    signedRequest(`http://127.0.0.1:${ports.F.api}`, demo, method, p, params)
  const place = (price: string) => call('POST', '/fapi/v1/order',
    { symbol: 'BTCUSDTPERP', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.01', price })
  /** Waits until the follower's gateway shows `price` as BTC's index; false after 20 s. */
  const indexReaches = async (price: string): Promise<boolean> => {
    for (const deadline = Date.now() + 20_000; Date.now() < deadline; await sleep(100)) {
      const r = await fetch(`http://127.0.0.1:${ports.F.api}/fapi/v1/premiumIndex?symbol=BTCUSDTPERP`).catch(() => undefined)
      if (r?.status === 200 && ((await r.json()) as { indexPrice: string }).indexPrice === price) return true
    }
    return false
  }
  t.ok(await indexReaches('41000.50000000'), 'the sequencer\'s price feed sets the index')
  const before = await place('40000')
  t.equal(before.status, 200, `an order through the follower before the fail-over: ${JSON.stringify(before.body)}`)

  // Commands in flight until the sequencer dies, 64 at a time.
  const acked = new Map<string, number>()
  const client = await IngressClient.connect(internalLink(SECRET), `ws://127.0.0.1:${ports.A.repl}`)
  const inflight = new Set<Promise<void>>()
  let n = 0
  let stop = false
  const submitting = (async () => {
    while (!stop) {
      while (inflight.size < 64) {
        const ref = `d-${n++}`
        const p: Promise<void> = client.submit(depositNamed(ref)).then((a) => { acked.set(ref, a.seq) }, () => {}).finally(() => inflight.delete(p))
        inflight.add(p)
      }
      await Promise.race([...inflight, sleep(20)])
      // Once the connection is gone every submit fails at once: the kill's exit must still get its turn.
      await new Promise((r) => setImmediate(r))
    }
  })()
  await sleep(1000)
  await A.kill('SIGKILL') // with commands in flight
  const killedAt = Date.now()
  stop = true
  await submitting
  await Promise.all(inflight)
  client.close()
  t.ok(acked.size > 100 && acked.size < n, `${acked.size} of ${n} commands acknowledged before the sequencer was killed`)

  // No operator: one standby leads within a few lease lengths.
  const promoted = (l: Record<string, unknown>): boolean => l.msg === 'this standby now leads: sequencer running'
  const promotedOne = (): 'S1' | 'S2' | undefined => (['S1', 'S2'] as const).find((s) => standbys[s].lines.some(promoted))
  while (promotedOne() === undefined && Date.now() - killedAt < 60_000) await sleep(50)
  const leaderName = promotedOne()
  if (leaderName === undefined) throw new Error('no standby took the lead within 60 s')
  t.comment(`${leaderName} leads ${Date.now() - killedAt} ms after the kill`)
  const other = leaderName === 'S1' ? 'S2' : 'S1'
  const kv = new EtcdKv([etcd.url])
  const leader = await kv.get('/exchange/leader')
  t.match(leader?.value, new RegExp(`"node":"${leaderName}"`), 'etcd names it as leader')
  t.ok(standbys[other].lines.some((l) => l.msg === 'fail-over: following the new leader'), `${other} follows it`)

  // The follower's gateway takes orders again (its first tries may find no leader yet: a client retries).
  let after = await place('40001')
  for (let i = 0; i < 50 && after.status !== 200; i++) {
    await sleep(200)
    after = await place('40001')
  }
  t.equal(after.status, 200, `an order through the follower after the fail-over: ${JSON.stringify(after.body)}`)
  t.ok(after.body.orderId > before.body.orderId, 'with a later order id')
  const kept = await call('GET', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', orderId: String(before.body.orderId) })
  t.equal(kept.body.status, 'NEW', 'the order placed before the fail-over is still open')

  // The new leader's feed took over the index, under its own key, registered as the oracle.
  t.ok(await indexReaches('42000.25000000'), 'the promoted standby\'s price feed sets the index')
  const feedLine = standbys[leaderName].lines.find((l) => l.msg === 'price feed running')
  const key = new Wallet((await readFile(path.join(dirs[leaderName], 'oracle-key'), 'utf8')).trim())
  t.equal(feedLine?.oracle, key.address, 'its feed signs with the key in its data directory')
  t.notOk(standbys[other].lines.some((l) => l.msg === 'price feed running'), 'the standby that did not lead runs no feed')

  // More commands on the new leader, found through etcd; the follower reaches them.
  const url = (await readLeader(kv, '/exchange/'))!.url
  const next = await IngressClient.connect(internalLink(SECRET), url)
  const acks = await Promise.all(Array.from({ length: 50 }, (_, i) => next.submit(depositNamed(`after-${i}`))))
  await t.rejects(next.submit({ type: 'Lead', epoch: 1e12, node: 'intruder' }), new IngressError('EPOCH_INVALID', 'a term is opened only by the sequencer elected to it'),
    'no one but the elected sequencer opens a term')
  next.close()
  t.ok(acks.every((a) => a.result.ok), 'the new leader acknowledges commands')
  const target = Math.max(...acks.map((a) => a.seq))
  const reached = (target: number, nodes: (typeof names[number])[]): Promise<boolean> => reachedAll(nodes.map((n) => ports[n].metrics), target)
  for (const [i, a] of acks.entries()) acked.set(`after-${i}`, a.seq)
  t.ok(await reached(target, ['F', other]), 'the follower and the other standby follow the new leader')
  const [gLeader, gOther] = await Promise.all([scrapeGauges(ports[leaderName].metrics), scrapeGauges(ports[other].metrics)])
  t.same([gLeader.exchange_leader, gOther.exchange_leader], [1, 0], '/metrics says which node leads')
  t.same([gLeader.exchange_epoch, gOther.exchange_epoch], [leader!.createRevision, leader!.createRevision], 'and the term their logs reached: the new leader\'s epoch')

  // The old sequencer, started again on its own data, finds another node leading and stops.
  const again = start(['sequencer'], 'A', ['--sync-replicas', '1'])
  await new Promise((r) => again.child.once('exit', r))
  t.equal(again.child.exitCode, 1, 'the old sequencer does not start')

  // It rejoins as a standby on the same data (cutting off what its log held past the new leader's,
  // if anything); then the new leader is killed too, and one of the two standbys left takes over in turn.
  const rejoined = start(['replica', '--standby'], 'A2', ['--sync-replicas', '1'])
  t.ok(await reached(target, ['A2']), 'the old sequencer catches up as a standby on its own data')
  const rewound = rejoined.lines.find((l) => l.msg === REWOUND)
  t.comment(rewound ? `it cut off ${String(rewound.dropped)} entries past seq ${String(rewound.fork)}` : 'its log held nothing past the new leader\'s')
  await standbys[leaderName].kill('SIGKILL')
  const secondKill = Date.now()
  const second = (): string | undefined => ([[other, standbys[other]], ['A2', rejoined]] as const).find(([, p]) => p.lines.some(promoted))?.[0]
  while (second() === undefined && Date.now() - secondKill < 60_000) await sleep(50)
  const leader2 = second()
  if (leader2 === undefined) throw new Error('no standby took the lead within 60 s of the second kill')
  t.comment(`${leader2} leads ${Date.now() - secondKill} ms after the second kill`)
  const url2 = (await readLeader(kv, '/exchange/'))!.url
  const third = await IngressClient.connect(internalLink(SECRET), url2)
  const acks2 = await Promise.all(Array.from({ length: 20 }, (_, i) => third.submit(depositNamed(`second-${i}`))))
  third.close()
  t.ok(acks2.every((a) => a.result.ok), 'the second new leader acknowledges commands')
  for (const [i, a] of acks2.entries()) acked.set(`second-${i}`, a.seq)
  const target2 = Math.max(...acks2.map((a) => a.seq))
  const rest = leader2 === 'A2' ? other : 'A2'
  t.ok(await reached(target2, ['F', rest]), 'the follower and the last standby follow it')

  // All at once: stopped one by one, a leader stopped first would hand the lead on once more.
  await Promise.all(procs.map((p) => p.kill('SIGKILL')))
  const logs = { S1: await readLogDir(dirs.S1), S2: await readLogDir(dirs.S2), F: await readLogDir(dirs.F), A2: await readLogDir(dirs.A) }
  const leaderLog = logs[leader2 as 'S1' | 'S2' | 'A2']
  const at = new Map<string, number>()
  for (const e of leaderLog) if (e.command.type === 'Deposit' && e.command.account === ACCOUNT) at.set(e.command.ref, e.seq)
  const lost = [...acked].filter(([ref, seq]) => at.get(ref) !== seq)
  t.same(lost, [], `all ${acked.size} acknowledged commands are in the last leader's log at the seqs they were acknowledged with`)
  // (The killed leaders' logs may end in entries no standby held: never acknowledged, not compared.)
  for (const n of ['F', rest] as const) {
    const log = logs[n as 'F' | 'S1' | 'S2' | 'A2']
    t.ok(log.every((e, i) => hex(e.hash) === hex(leaderLog[i]?.hash ?? new Uint8Array())), `${n}'s log is a prefix of the last leader's, hash for hash`)
  }
  // Each leader's term is in the log, opened by its first entry, epochs rising.
  const terms = leaderLog.filter((e) => e.command.type === 'Lead').map((e) => e.command as { epoch: number; node: string })
  t.same(terms.map((c) => c.node), ['A', leaderName, leader2 === 'A2' ? 'A' : leader2], 'three terms: the first sequencer\'s and each successor\'s')
  t.ok(terms.every((c, i) => i === 0 || c.epoch > terms[i - 1]!.epoch), `their epochs rise: ${terms.map((c) => c.epoch).join(', ')}`)
}))

t.test('a cluster whose every node was killed elects a leader by itself once its standbys are back', { timeout: 240_000, skip: etcdSkip() }, (t) => explained(t, async (t, procs) => {
  const etcd = await startEtcd()
  t.teardown(() => etcd.stop())
  const nodes = await Promise.all(['A', 'S1', 'S2'].map(async (name) => ({ name, dir: await mkdtemp(path.join(os.tmpdir(), `cold-${name}-`)),
    repl: await freePort(), metrics: await freePort() })))
  t.teardown(() => Promise.all(nodes.map((n) => rm(n.dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }))))
  const [a, s1, s2] = nodes as [typeof nodes[0], typeof nodes[0], typeof nodes[0]]
  const start = (command: string[], n: typeof a): Proc => {
    const p = startExchange([...command, '--data', n.dir, '--node-id', n.name, '--replication-port', String(n.repl), '--port', '0',
      '--metrics-port', String(n.metrics), '--etcd', etcd.url, '--lease-ms', String(TEST_LEASE_MS), '--master-secret', SECRET, '--sync-replicas', '1',
      '--tick-ms', '50', '--host', '127.0.0.1'])
    procs.push(p)
    return p
  }
  const A = start(['sequencer'], a)
  const first = [start(['replica', '--standby'], s1), start(['replica', '--standby'], s2)]
  await A.waitFor((l) => l.msg === 'sequencer running', 60_000)
  const client = await IngressClient.connect(internalLink(SECRET), `ws://127.0.0.1:${a.repl}`)
  const acks = await Promise.all(Array.from({ length: 200 }, (_, i) => client.submit(depositNamed(`cold-${i}`))))
  // The standbys die first: A then writes 30 more commands that no standby holds, never acknowledged.
  await Promise.all(first.map((p) => p.kill('SIGKILL')))
  const written = Math.max(...acks.map((ack) => ack.seq)) + 30
  for (let i = 0; i < 30; i++) client.submit(depositNamed(`tail-${i}`)).catch(() => {})
  await reachedAll([a.metrics], written)
  await sleep(500) // its write synced
  client.close()
  await Promise.all(procs.splice(0).map((p) => p.kill('SIGKILL')))
  const tailOfA = (await readLogDir(a.dir)).filter((e) => e.command.type === 'Deposit' && e.command.ref.startsWith('tail-'))
  t.equal(tailOfA.length, 30, 'the killed sequencer\'s log ends in 30 commands no standby holds')

  // Only the standbys come back, on their own data: no one leads, and `term` names the round.
  // S2 first, alone past the leases of the killed processes: it may not lead without S1's vote,
  // as S1 may hold acknowledged commands that S2 lacks (--sync-replicas 1 of two standbys).
  const second = start(['replica', '--standby'], s2)
  await second.waitFor((l) => l.msg === 'fail-over: no leader; voted', 60_000)
  await sleep(TEST_LEASE_MS + 1_000)
  t.notOk(second.lines.some((l) => l.msg === 'fail-over: elected; taking the lead'), 'one standby of two does not lead alone')
  t.equal(await new EtcdKv([etcd.url]).get('/exchange/leader'), undefined, 'no one leads')
  t.ok(second.lines.some((l) => l.msg === 'fail-over: waiting for every standby to vote' && JSON.stringify(l.waitingFor) === '["S1"]'), 'it waits for S1')
  const back = [start(['replica', '--standby'], s1), second]
  const promoted = (l: Record<string, unknown>): boolean => l.msg === 'this standby now leads: sequencer running'
  const deadline = Date.now() + 60_000
  while (!back.some((p) => p.lines.some(promoted)) && Date.now() < deadline) await sleep(50)
  const leaderAt = back.findIndex((p) => p.lines.some(promoted))
  t.ok(leaderAt >= 0, `${[s1, s2][leaderAt]?.name} leads without an operator`)
  const next = await IngressClient.connect(internalLink(SECRET), (await readLeader(new EtcdKv([etcd.url]), '/exchange/'))!.url)
  const more = await Promise.all(Array.from({ length: 20 }, (_, i) => next.submit(depositNamed(`warm-${i}`))))
  next.close()
  t.ok(more.every((m) => m.result.ok), 'and acknowledges commands, its standby holding them')

  // Everyone is killed once more, and A comes back first, as a standby on its own data. No one
  // leads, so it replays its whole log into its state and votes; its projections take only what
  // they held, as the rest may never have been committed: the tail is held from them. Once S1
  // and S2 are back, one of them is elected (its term is newer than A's), and A, following it,
  // finds that its log parts from the leader's: it restarts in place, cuts the tail off into a
  // file and follows, with its projections as they were.
  await Promise.all(procs.splice(0).map((p) => p.kill('SIGKILL')))
  const rejoined = start(['replica', '--standby'], a)
  const restored = await rejoined.waitFor((l) => l.msg === 'state restored', 60_000)
  t.ok((restored.heldEntries as number) >= 30, `it holds ${String(restored.heldEntries)} replayed entries back from its projections, the tail among them`)
  await rejoined.waitFor((l) => l.msg === 'fail-over: no leader; voted', 60_000)
  const third = [start(['replica', '--standby'], s1), start(['replica', '--standby'], s2)]
  await rejoined.waitFor((l) => l.msg === 'this log parted from the leader\'s: restarting to rewind it', 60_000)
  const rewound = await rejoined.waitFor((l) => l.msg === REWOUND, 60_000)
  t.ok((rewound.dropped as number) >= 30, `the old sequencer cut off ${String(rewound.dropped)} entries past seq ${String(rewound.fork)}`)
  const kept = (await collect((await readLogFile(path.join(a.dir, 'diverged', `${String(rewound.from)}-${String(rewound.to)}.log`))).batches)).entries
  t.same(kept.filter((e) => e.command.type === 'Deposit' && e.command.ref.startsWith('tail-')).map((e) => hex(e.hash)), tailOfA.map((e) => hex(e.hash)),
    'the file keeps them, the 30 unacknowledged commands among them')
  // The leader says it runs only once a standby holds its term's first entry: A, once it has rewound, may be that one.
  for (const until = Date.now() + 60_000; !third.some((p) => p.lines.some(promoted)) && Date.now() < until;) await sleep(50)
  const now = (await readLeader(new EtcdKv([etcd.url]), '/exchange/'))!
  const elected = [s1, s2].find((n) => n.name === now.node)!
  t.ok(third.some((p) => p.lines.some(promoted)) && elected !== undefined, `${now.node} leads again, not A`)
  t.ok(await reachedAll([a.metrics], await appliedSeq(elected.metrics), 30_000), 'A catches up with it')
  t.notOk(rejoined.lines.some((l) => l.msg === 'the projections took entries the log no longer holds: building them again from the log'),
    'its projections never took the tail: nothing to build again')
  const again = await IngressClient.connect(internalLink(SECRET), now.url)
  const later = await Promise.all(Array.from({ length: 20 }, (_, i) => again.submit(depositNamed(`rejoined-${i}`))))
  again.close()
  t.ok(later.every((m) => m.result.ok), 'commands are acknowledged with it back')
  const target = Math.max(...later.map((m) => m.seq))
  t.ok(await reachedAll([a.metrics], target), 'which it holds too')
  await Promise.all(procs.map((p) => p.kill('SIGKILL')))
  const log = await readLogDir(elected.dir)
  const logA = await readLogDir(a.dir)
  t.ok(logA.length >= target && logA.every((e, i) => hex(e.hash) === hex(log[i]?.hash ?? new Uint8Array())),
    `the old sequencer's log is the leader's, hash for hash, to seq ${logA.length}`)
  const at = new Map<string, number>()
  for (const e of log) if (e.command.type === 'Deposit' && e.command.account === ACCOUNT) at.set(e.command.ref, e.seq)
  const acknowledged = [...acks.map((ack, i) => [`cold-${i}`, ack.seq] as const), ...more.map((m, i) => [`warm-${i}`, m.seq] as const)]
  t.same(acknowledged.filter(([ref, seq]) => at.get(ref) !== seq), [], 'every command acknowledged before each kill is in its log at its seq')
  t.same(log.filter((e) => e.command.type === 'Lead').map((e) => (e.command as { node: string }).node), ['A', [s1, s2][leaderAt]!.name, now.node],
    'three terms: the first sequencer\'s and one for each cold start')
}))
