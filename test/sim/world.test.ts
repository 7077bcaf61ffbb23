// The simulator's world on its own: the simulated log store keeps the LogStore contract
// (the shared suite), loses unsynced writes and cuts a torn tail after a crash; the simulated
// network delivers every message once and in order through loss, duplication and reordering,
// and breaks connections on partitions and restarts; the simulated etcd keeps leases, keys and
// revisions as etcd does.

import t from 'tap'
import { chain } from '../helpers/log-fixtures.js'
import { logStoreSuite } from '../helpers/log-store-suite.js'
import { GENESIS_HASH } from '../../replica/entry.js'
import type { Connection } from '../../replica/network.js'
import { Rng } from '../../sim/random.js'
import { SimDisk, SimLogStore, type DiskIo } from '../../sim/world/disk.js'
import { EventLoop } from '../../sim/world/loop.js'
import { SimNetwork } from '../../sim/world/network.js'
import { ETCD_HOST, EtcdUnreachableError, SimEtcd } from '../../sim/world/etcd.js'

const soon: DiskIo = { syncMs: () => 0, after: (_ms, fn) => { const h = setImmediate(fn); return { cancel: () => clearImmediate(h) } } }

t.test('the LogStore suite', async (t) => {
  logStoreSuite(t, {
    async create() {
      const store = new SimLogStore(new SimDisk(), soon)
      await store.open()
      return store
    },
    async reopen(store) {
      await store.close()
      await store.open()
      return store
    },
  })
})

t.test('a crash loses unsynced writes and open() cuts the torn one', async (t) => {
  const loop = new EventLoop(0)
  const disk = new SimDisk()
  const io: DiskIo = { syncMs: () => 5, after: (ms, fn) => loop.after(ms, fn) }
  let store = new SimLogStore(disk, io)
  await store.open()
  const first = chain(1, 3, GENESIS_HASH)
  const synced = store.append(first)
  await loop.run(10)
  await synced
  t.equal(store.lastSeq, 3, 'durable once the fsync completes')

  const second = chain(4, 4, first[2]!.hash)
  let acknowledged = false
  void store.append(second).then(() => { acknowledged = true })
  await loop.run(12)
  t.equal(store.lastSeq, 3, 'not durable while syncing')
  // The seed's draws decide how many entries of the write reach the disk before the torn one.
  store.crash(new Rng(7), 1)
  await loop.run(100)
  t.equal(acknowledged, false, 'the write never completes')
  t.equal(disk.batches.length, 2, 'the torn batch is on disk')
  store = new SimLogStore(disk, io)
  await store.open()
  t.equal(disk.tornTails, 1, 'open() found the torn tail')
  t.ok(store.lastSeq >= 3 && store.lastSeq < 7, `kept a valid prefix (last seq ${store.lastSeq})`)
  const all = await store.read(1)
  t.same(all.map((e) => e.seq), Array.from({ length: store.lastSeq }, (_, i) => i + 1), 'the chain reads back whole')
})

async function pair(net: SimNetwork, loop: EventLoop): Promise<{ client: Connection, server: Connection, got: string[] }> {
  const got: string[] = []
  let server: Connection | undefined
  await net.view('b').listen('b', 1, (c) => {
    server = c
    c.onMessage((m) => got.push(Buffer.from(m).toString()))
  })
  let client: Connection | undefined
  void net.view('a').connect('sim://b:1/x').then((c) => { client = c })
  await loop.run(loop.now + 2_000, () => client !== undefined)
  return { client: client!, server: server!, got }
}

t.test('messages arrive once and in order through loss, duplication and reordering', async (t) => {
  const loop = new EventLoop(0)
  const net = new SimNetwork(loop, new Rng(42))
  net.faults = { delayMinMs: 1, delayMaxMs: 30, loss: 0.2, duplicate: 0.2, corrupt: 0 }
  const { client, got } = await pair(net, loop)
  const sent = Array.from({ length: 200 }, (_, i) => `m${i}`)
  for (const m of sent) client.send(Buffer.from(m))
  await loop.run(loop.now + 10_000, () => got.length === sent.length)
  t.same(got, sent)
  t.ok(net.stats.lost > 0 && net.stats.duplicated > 0, `faults happened (${net.stats.lost} lost, ${net.stats.duplicated} duplicated)`)
})

t.test('a partition breaks the connection on both sides; a restarted peer resets it', async (t) => {
  const loop = new EventLoop(0)
  const net = new SimNetwork(loop, new Rng(1))
  const a = await pair(net, loop)
  const closed: string[] = []
  a.client.onClose((r) => closed.push(`client: ${r}`))
  a.server.onClose((r) => closed.push(`server: ${r}`))
  net.partition('a', 'b')
  await loop.run(loop.now + 3_000)
  t.same(closed.sort(), ['client: peer silent (timed out)', 'server: peer silent (timed out)'])

  const n2 = new SimNetwork(loop, new Rng(3))
  const c = await pair(n2, loop)
  let reason = ''
  c.client.onClose((r) => { reason = r })
  n2.crash('b')
  n2.restart('b')
  c.client.send(Buffer.from('after restart'))
  await loop.run(loop.now + 500)
  t.equal(reason, 'connection reset by peer')
})

t.test('a connection its listener closes as it accepts it fails the connect with the reason', async (t) => {
  const loop = new EventLoop(0)
  const net = new SimNetwork(loop, new Rng(5))
  await net.view('b').listen('b', 1, (c) => c.close('this node does not lead yet'))
  let outcome = 'pending'
  net.view('a').connect('sim://b:1/x').then(() => { outcome = 'open' }, (err: Error) => { outcome = err.message })
  await loop.run(loop.now + 2_000, () => outcome !== 'pending')
  t.equal(outcome, 'this node does not lead yet', 'refused, not left pending (nor opened)')
})

t.test('the simulated etcd: leases lapse with their keys, revisions only grow, a partition or a crash silences a process', async (t) => {
  const loop = new EventLoop(0)
  const net = new SimNetwork(loop, new Rng(9))
  const etcd = new SimEtcd(loop, new Rng(9), net)
  let aAlive = true
  const a = etcd.view('a', () => aAlive)
  const b = etcd.view('b', () => true)
  const settle = async <T>(p: Promise<T>): Promise<T> => {
    let out: { v: T } | { e: Error } | undefined
    p.then((v) => { out = { v } }, (e: Error) => { out = { e } })
    await loop.run(loop.now + 1_000, () => out !== undefined)
    if (out === undefined) throw new Error('no answer')
    if ('e' in out) throw out.e
    return out.v
  }
  const lease = await settle(a.grant(2_000))
  const first = await settle(a.create('/c/leader', 'a', lease))
  t.equal(first.created, true)
  const second = await settle(b.create('/c/leader', 'b', await settle(b.grant(2_000))))
  t.same([second.created, second.record.value], [false, 'a'], 'one holder at a time')
  await settle(a.put('/c/term', '1'))
  await loop.run(loop.now + 2_100)
  t.equal(etcd.has('/c/leader'), false, 'the key went with its lease, unrenewed')
  t.equal(etcd.peek('/c/term')?.value, '1', 'a key under no lease stays')
  t.equal(await settle(a.renew(lease)), false, 'the lapsed lease cannot be renewed')
  const again = await settle(b.create('/c/leader', 'b', await settle(b.grant(2_000))))
  t.ok(again.created && again.record.createRevision > first.record.createRevision, 'the next holder\'s epoch is greater')
  t.same((await settle(b.list('/c/'))).map((r) => r.key), ['/c/leader', '/c/term'])

  net.partition('a', ETCD_HOST)
  await t.rejects(settle(a.get('/c/leader')), new EtcdUnreachableError('etcd unreachable from a'), 'cut off: an error after a timeout')
  net.heal()
  aAlive = false
  await t.rejects(settle(a.get('/c/leader')), { message: 'no answer' }, 'a crashed process never hears back')
})
