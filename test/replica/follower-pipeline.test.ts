// The follower's overlap of writing and applying: a group is applied while its own write
// syncs, listeners (projections, streams) hear of it only once it is durable here, a
// follower that dies with a write unfinished fetches those entries again when it restarts,
// and batches delivered back to back in one turn are all taken.

import t from 'tap'
import { stateRoot } from '../../core/root.js'
import { systemClock } from '../../replica/clock.js'
import { GENESIS_HASH, makeEntry } from '../../replica/entry.js'
import { Follower } from '../../replica/follower.js'
import { MemoryLogStore } from '../../replica/memory-log.js'
import type { Connection, Network } from '../../replica/network.js'
import { ReplicaNode } from '../../replica/node.js'
import { encodeBatchMessage } from '../../replica/replication.js'
import { wsNetwork } from '../../replica/ws-network.js'
import { deposit, GatedLog, leader, until, type Teardown } from '../helpers/replication-rig.js'

function follow(t: Teardown, log: MemoryLogStore, url: string, network: Network = wsNetwork) {
  const node = new ReplicaNode({ log, checkpointInterval: 10 })
  const heard: number[] = []
  node.onCommitted((c) => heard.push(c.entries[c.entries.length - 1]!.seq))
  const errors: Error[] = []
  const f = new Follower({ node, network, url, clock: systemClock, reconnectMs: 20, onFatal: (e) => errors.push(e) })
  t.teardown(() => f.stop())
  return { node, f, heard, errors }
}

t.test('a group is applied while its write syncs; listeners hear of it once durable', async (t) => {
  const L = await leader(t)
  const log = new GatedLog()
  await log.open()
  const F = follow(t, log, L.url)
  await F.node.restore()
  F.f.start()
  await until(() => F.node.state.seq === L.node.state.seq && log.lastSeq === L.node.state.seq)
  const durable = log.lastSeq
  log.hold()
  await L.submit([deposit(1), deposit(2), deposit(3)])
  const target = L.node.state.seq
  await until(() => F.node.state.seq === target)
  t.equal(log.lastSeq, durable, 'applied before its write finished')
  t.equal(F.heard.at(-1), durable, 'listeners have heard of nothing beyond the durable log')
  t.ok(F.f.lagSamplesMs.length > 0, 'lag is sampled at apply')
  log.release()
  await until(() => log.lastSeq === target)
  await F.f.idle()
  t.equal(F.heard.at(-1), target, 'listeners hear of the group once it is durable')
  t.equal(stateRoot(F.node.state), stateRoot(L.node.state))
  t.same(F.errors, [])
})

t.test('a follower that dies with a write unfinished fetches those entries again', async (t) => {
  const L = await leader(t)
  await L.submit([deposit(1), deposit(2)])
  const log = new GatedLog()
  await log.open()
  const first = follow(t, log, L.url)
  await first.node.restore()
  first.f.start()
  await until(() => first.node.state.seq === L.node.state.seq && log.lastSeq === L.node.state.seq)
  const durable = log.lastSeq
  log.hold()
  await L.submit([deposit(3), deposit(4), deposit(5)])
  await until(() => first.node.state.seq === L.node.state.seq)
  // The process dies: its state goes with it, the write never finishes.
  first.f.stop()
  t.equal(log.lastSeq, durable, 'its log lacks the entries it had applied')
  // What survives is the durable log, opened again by the restarted process.
  const disk = new MemoryLogStore()
  await disk.open()
  for await (const batch of log.readBatches()) await disk.append(batch)
  const second = follow(t, disk, L.url)
  await second.node.restore()
  t.equal(second.node.state.seq, durable, 'restarted from its own log')
  second.f.start()
  await until(() => second.node.state.seq === L.node.state.seq && disk.lastSeq === L.node.state.seq)
  t.equal(stateRoot(second.node.state), stateRoot(L.node.state), 'caught up to the same root')
  t.same(second.errors, [])
})

/** A network of one connection whose sender delivers messages synchronously, back to back. */
function directNetwork(): { network: Network, deliver: (m: Uint8Array[]) => void } {
  let onMessage: (m: Uint8Array) => void = () => {}
  const conn: Connection = {
    send: () => {},
    bufferedBytes: 0,
    onMessage: (fn) => { onMessage = fn },
    onClose: () => {},
    close: () => {},
  }
  return {
    network: { listen: () => Promise.reject(new Error('not here')), connect: () => Promise.resolve(conn) },
    deliver: (ms) => { for (const m of ms) onMessage(m) },
  }
}

t.test('batches delivered back to back in one turn are all applied and written', async (t) => {
  let prev = GENESIS_HASH
  const chain = Array.from({ length: 6 }, (_, i) => {
    const e = makeEntry(i + 1, i + 1, deposit(i), prev)
    prev = e.hash
    return e
  })
  const { network, deliver } = directNetwork()
  const log = new MemoryLogStore()
  await log.open()
  const F = follow(t, log, 'direct', network)
  F.f.start()
  await until(() => F.f.connected)
  deliver([encodeBatchMessage(chain.slice(0, 2))])
  deliver([encodeBatchMessage(chain.slice(2, 3)), encodeBatchMessage(chain.slice(3))])
  await until(() => log.lastSeq === 6)
  await F.f.idle()
  t.equal(F.node.state.seq, 6)
  t.same(F.heard, [2, 6], 'the first group, then the two behind its write together')
  t.same(F.errors, [])
})
