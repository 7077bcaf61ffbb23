// Leadership through a real etcd (bin/etcd.ts over its JSON gateway): one node leads at a time
// and its key's create revision is its epoch; a lapsed lease deposes it; the tally names the
// eligible standby with the longest log once every live member voted; a restarted leader waits
// out its own old lease.

import t from 'tap'
import { EtcdKv } from '../../bin/etcd.js'
import { systemClock } from '../../replica/clock.js'
import { Failover } from '../../replica/failover.js'
import type { Follower } from '../../replica/follower.js'
import { Leadership, LeaseLostError, NotLeaderError, type LeaseKv } from '../../replica/leadership.js'
import { MemoryLogStore } from '../../replica/memory-log.js'
import { chain } from '../helpers/log-fixtures.js'
import { etcdSkip, startEtcd, type Etcd } from '../helpers/etcd.js'

const skip = etcdSkip()
let etcd: Etcd
let prefixes = 0

t.before(async () => {
  if (!skip) etcd = await startEtcd()
})
t.teardown(() => etcd?.stop())

/** Nodes of one cluster (a prefix of their own per test). */
function cluster(leaseMs = 1000) {
  const prefix = `/t${prefixes++}/`
  const kv = new EtcdKv([etcd.url])
  const lost: string[] = []
  const node = (name: string): Leadership => new Leadership({ kv, clock: systemClock, prefix, node: name, leaseMs, syncReplicas: 1,
    onLost: (err) => { lost.push(`${name}: ${err.message}`) } })
  return { kv, prefix, lost, node }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

t.test('etcd through the JSON gateway: create once, list a prefix, leases take their keys', { skip }, async (t) => {
  const kv = new EtcdKv(['http://127.0.0.1:1', etcd.url]) // the first endpoint refuses: the next one answers
  const lease = await kv.grant(5000)
  const first = await kv.create('/kv/a', 'one', lease)
  t.ok(first.created, 'the first create puts the key')
  t.equal(first.record.value, 'one')
  const second = await kv.create('/kv/a', 'two', lease)
  t.notOk(second.created, 'a second create does not')
  t.same([second.record.value, second.record.createRevision], ['one', first.record.createRevision], 'and gets the key as it stands')
  await kv.put('/kv/b/x', 'bx', lease)
  await kv.put('/kv/c', 'c', lease)
  t.same((await kv.list('/kv/b/')).map((r) => r.key), ['/kv/b/x'], 'a prefix lists only its keys')
  t.equal(await kv.renew(lease), true, 'a live lease renews')
  await kv.revoke(lease)
  t.equal(await kv.get('/kv/a'), undefined, 'a revoked lease takes its keys')
  t.equal(await kv.renew(lease), false, 'and renews no more')
})

t.test('one node leads; its epoch is its key\'s create revision, and grows with the next leader', { skip }, async (t) => {
  const c = cluster()
  const a = c.node('a')
  const b = c.node('b')
  await Promise.all([a.start(), b.start()])
  t.teardown(() => Promise.all([a.stop(), b.stop()]))
  const results = await Promise.allSettled([a.lead('ws://a:1'), b.lead('ws://b:1')])
  const won = results.filter((r) => r.status === 'fulfilled')
  t.equal(won.length, 1, 'exactly one of two claims at once wins')
  const lost = results.find((r) => r.status === 'rejected') as PromiseRejectedResult
  t.ok(lost.reason instanceof NotLeaderError, `the other is told who leads: ${lost.reason.message}`)
  const leader = (await a.leader())!
  const epoch = (won[0] as PromiseFulfilledResult<number>).value
  t.equal(leader.epoch, epoch, 'the epoch read back is the winner\'s')
  const winner = leader.node === 'a' ? a : b
  const loser = winner === a ? b : a
  await winner.stop() // its lease revoked: the key goes at once
  t.equal(await loser.leader(), undefined, 'a leader that stops takes its key with it')
  t.equal((await loser.term())?.epoch, epoch, 'the term outlives its leader: the round the standbys vote in')
  const next = await loser.lead(`ws://${loser.node}:1`)
  t.ok(next > epoch, `the next leader's epoch ${next} is above ${epoch}`)
  t.equal((await loser.term())?.epoch, next)
})

t.test('a leader whose lease lapses is told, once', { skip }, async (t) => {
  const c = cluster(1000)
  const a = c.node('a')
  await a.start()
  t.teardown(() => a.stop())
  await a.lead('ws://a:1')
  // Its lease revoked behind its back (as if etcd had let it lapse while it was paused).
  const record = (await c.kv.list(c.prefix))[0]!
  t.equal(record.key, `${c.prefix}leader`)
  const leases = await fetch(`${etcd.url}/v3/lease/leases`, { method: 'POST', body: '{}' }).then((r) => r.json()) as { leases: { ID: string }[] }
  for (const l of leases.leases) await c.kv.revoke(l.ID)
  const deadline = Date.now() + 5000
  while (c.lost.length === 0 && Date.now() < deadline) await sleep(50)
  t.equal(c.lost.length, 1, 'onLost is called')
  t.match(c.lost[0], /a: lease lapsed: another node may lead now/)
  await sleep(800)
  t.equal(c.lost.length, 1, 'and not again')
})

t.test('the tally waits for the live members and for enough standbys, and names the newest term, then the longest log', { skip }, async (t) => {
  const c = cluster()
  const [a, b, d, e] = [c.node('a'), c.node('b'), c.node('d'), c.node('e')]
  for (const n of [a, b, d, e]) { await n.start(); await n.join() }
  t.teardown(() => Promise.all([a.stop(), b.stop(), d.stop(), e.stop()]))
  await a.vote(7, { seq: 10, epoch: 7 })
  await b.vote(7, { seq: 12, epoch: 7 })
  await e.vote(7, { seq: 0, epoch: 0 })
  t.same((await a.tally(7, 1)).waitingFor, ['d'], 'a member that has not voted is waited for')
  await d.vote(7, { seq: 15, epoch: 5 }) // a former leader's log: longer, with a tail of an older term no one acknowledged
  t.same((await a.tally(7, 1)).winner, { node: 'b', seq: 12, epoch: 7 }, 'the longest log of the newest term wins; a longer one of an older term does not')
  t.same((await a.tally(8, 1)).waitingFor, ['a', 'b', 'd', 'e'], 'votes count only in their round')
  await b.stop() // dies before leading: its membership and vote lapse with its lease
  t.same((await a.tally(7, 1)).waitingFor, ['b'],
    'with one standby holding each acknowledged command, every standby must vote: b may have held what no one else does')
  t.same((await a.tally(7, 2)).winner, { node: 'a', seq: 10, epoch: 7 }, 'with two holding each, any three of four will do')
  await c.kv.delete(`${c.prefix}standbys/b`) // an operator gives b up for lost (exchange cluster forget b)
  t.same((await a.tally(7, 1)).winner, { node: 'a', seq: 10, epoch: 7 }, 'given up, it is waited for no more: the next one wins')
  await a.stop()
  await c.kv.delete(`${c.prefix}standbys/a`)
  t.same((await d.tally(7, 1)).winner, { node: 'd', seq: 15, epoch: 5 }, 'with none of the newest term left, the older term\'s log')
  await d.stop()
  await c.kv.delete(`${c.prefix}standbys/d`)
  t.same(await e.tally(7, 1), { winner: undefined, waitingFor: [], votes: [{ node: 'e', seq: 0, epoch: 0 }] }, 'never an empty log')
  await e.lead('ws://e:1')
  t.same((await c.kv.list(`${c.prefix}standbys/`)).map((r) => r.key), [`${c.prefix}standbys/e`],
    'a standby that leads stays one until its term is open: it may be the only one holding what the last leader acknowledged')
  await e.termOpen()
  t.same((await c.kv.list(`${c.prefix}standbys/`)).map((r) => r.key), [], 'once its standbys hold its first entry, it is a standby no more')
  t.same(await e.term(), { epoch: (await e.leader())!.epoch, syncReplicas: 1 }, 'the term keeps how many standbys its leader waits for')
})

t.test('a restarted leader waits for its own old lease to lapse before it leads again', { skip }, async (t) => {
  const c = cluster(1000)
  const before = c.node('a')
  await before.start()
  const epoch = await before.lead('ws://a:1')
  // The process dies: its lease is no longer renewed (but not revoked).
  await (before as unknown as { renewing: { cancel(): void } }).renewing.cancel()
  const after = c.node('a')
  await after.start()
  t.teardown(() => after.stop())
  const started = Date.now()
  const next = await after.lead('ws://a:2')
  t.ok(next > epoch, `leads under a new epoch (${epoch} → ${next})`)
  t.ok(Date.now() - started >= 500, `after the old lease lapsed (${Date.now() - started} ms)`)
  t.equal((await after.leader())!.url, 'ws://a:2', 'at its new address')
})

t.test('a leader that cannot reach etcd stops leading when its lease may lapse', { skip }, async (t) => {
  const c = cluster(2000)
  const a = c.node('a')
  await a.start()
  t.teardown(() => a.stop())
  await a.lead('ws://a:1')
  etcd.child.kill('SIGSTOP') // etcd answers nothing: every renewal times out
  t.teardown(() => { etcd.child.kill('SIGCONT') })
  const deadline = Date.now() + 10_000
  while (c.lost.length === 0 && Date.now() < deadline) await sleep(50)
  etcd.child.kill('SIGCONT')
  t.equal(c.lost.length, 1, 'onLost is called without any answer from etcd')
  t.match(c.lost[0], /a: lease not renewed for 2000 ms: another node may lead now/)
})

t.test('a standby never votes in the round of a term whose leader it did not see gone', { skip }, async (t) => {
  const c = cluster(2000)
  const old = c.node('L')
  await old.start()
  const first = await old.lead('ws://L:1')
  // S reads etcd through a view that lets a new leader claim right after S read that no one leads.
  let claimAfterNoLeader: (() => Promise<void>) | undefined
  const kv: LeaseKv = Object.create(c.kv)
  kv.get = async (key) => {
    const r = await c.kv.get(key)
    if (key === `${c.prefix}leader` && r === undefined && claimAfterNoLeader) {
      const claim = claimAfterNoLeader
      claimAfterNoLeader = undefined
      await claim()
    }
    return r
  }
  const S = new Leadership({ kv, clock: systemClock, prefix: c.prefix, node: 'S', leaseMs: 2000, syncReplicas: 1, onLost: () => {} })
  const log = new MemoryLogStore()
  await log.open()
  await log.append(chain(1, 5, new Uint8Array(32)))
  const said: string[] = []
  const following = { start() {}, stop() {}, idle: async () => {} } as unknown as Follower
  const failover = new Failover({ leadership: S, clock: systemClock, pollMs: 50, follower: following, log, epoch: () => first,
    logger: { info: (_: object, msg: string) => { said.push(msg) }, warn: (_: object, msg: string) => { said.push(msg) }, error() {} },
    promote: async () => { throw new Error('S is not to lead here') }, onFatal: (err) => { said.push(err.message) } })
  failover.start()
  t.teardown(async () => { failover.stop(); await S.stop() })
  while (!said.includes('fail-over: joined the cluster as a standby')) await sleep(20)

  const next = c.node('N')
  await next.start()
  t.teardown(() => next.stop())
  let epoch = 0
  claimAfterNoLeader = async () => { epoch = await next.lead('ws://N:1') }
  await old.stop() // the leader goes; N claims the moment S has read that no one leads
  while (!said.includes('fail-over: following the new leader')) await sleep(20)
  t.ok(epoch > first, `N leads epoch ${epoch}`)
  const votes = (await c.kv.list(`${c.prefix}votes/`)).map((r) => r.key.slice(c.prefix.length))
  t.notOk(votes.includes(`votes/${epoch}/S`), `S left no vote in N's round, where the next election counts (votes: ${votes.join(', ')})`)
})

t.test('a claim that wins under a lease the node counts as lapsed is given up', { skip }, async (t) => {
  const c = cluster(2000)
  const a = c.node('a')
  await a.start()
  t.teardown(() => a.stop())
  // Its deadline passes while the claim is on its way: etcd still holds the lease, the node does not count on it.
  const kv = c.kv
  const inner = kv.create.bind(kv)
  const o = (a as unknown as { o: { kv: LeaseKv } }).o
  o.kv = Object.assign(Object.create(kv) as LeaseKv, {
    create: async (key: string, value: string, lease: string) => {
      const r = await inner(key, value, lease)
      ;(a as unknown as { lose(lease: string, why: string): void }).lose(lease, 'lease not renewed for 2000 ms')
      return r
    },
  })
  await t.rejects(a.lead('ws://a:1'), new LeaseLostError('this node\'s lease lapsed as it claimed the lead: claim given up'))
  t.equal(await c.kv.get(`${c.prefix}leader`), undefined, 'its claim is gone with the lease: the standbys elect')
  t.same(c.lost, [], 'it never led, so it was never told it lost the lead')
  await t.rejects(a.lead('ws://a:1'), new LeaseLostError('this node\'s lease lapsed before it claimed the lead'), 'nor claims again on it')
})
