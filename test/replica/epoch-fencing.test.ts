// Followers that find their sequencer through the consensus service (replica/leadership.ts),
// over real WebSocket on loopback: the epoch of the leader they were told of goes in their
// hello, and a node that does not lead that epoch refuses them, so a deposed sequencer gets
// nothing from a follower that moved on. Without a leader they wait, and connect once one is named.

import t from 'tap'
import { systemClock } from '../../replica/clock.js'
import { Follower } from '../../replica/follower.js'
import type { Leader } from '../../replica/leadership.js'
import { MemoryLogStore } from '../../replica/memory-log.js'
import { ReplicaNode } from '../../replica/node.js'
import { wsNetwork } from '../../replica/ws-network.js'
import { deposit, leader, until, type Teardown } from '../helpers/replication-rig.js'

async function follower(t: Teardown, named: () => Leader | undefined, standby = false) {
  const log = new MemoryLogStore()
  await log.open()
  const node = new ReplicaNode({ log, checkpointInterval: 10 })
  const warnings: string[] = []
  const logger = { info() {}, warn(o: { reason?: string }, msg?: string) { warnings.push(`${msg}: ${o.reason}`) }, error() {} }
  const f = new Follower({ node, network: wsNetwork, url: 'ws://unused', clock: systemClock, reconnectMs: 20, logger, standby,
    leader: async () => named() })
  f.start()
  t.teardown(() => f.stop())
  return { log, f, warnings }
}

t.test('a standby told of another epoch is refused; one told of this node\'s holds what it acknowledges', async (t) => {
  const l = await leader(t, { epoch: 7, syncReplicas: 1 })
  const stale = await follower(t, () => ({ epoch: 6, node: 'old', url: l.base }), true)
  await until(() => stale.warnings.some((w) => w.includes('this node does not lead epoch 6 (it leads epoch 7)')))
  const current = await follower(t, () => ({ epoch: 7, node: 'l', url: l.base }), true)
  // Acknowledged only once a standby holds them: the one told of epoch 7.
  const acks = [...await l.genesis(), ...await l.submit([deposit(1), deposit(2)])]
  const last = Math.max(...acks.map((a) => a.seq))
  t.ok(current.log.lastSeq >= last, `the standby of epoch 7 holds seq ${last}, acknowledged`)
  t.equal(stale.log.lastSeq, 0, 'the refused one took nothing')
  t.equal(l.server.standbys, 1, 'and counts for nothing')
})

t.test('a sequencer elected by no one refuses a follower that names an epoch', async (t) => {
  const l = await leader(t)
  const f = await follower(t, () => ({ epoch: 3, node: 'x', url: l.base }))
  await until(() => f.warnings.some((w) => w.includes('this node does not lead epoch 3')))
  t.equal(f.log.lastSeq, 0)
})

t.test('with no leader named, a follower waits, and connects once one is', async (t) => {
  const l = await leader(t, { epoch: 9 })
  let named: Leader | undefined
  const f = await follower(t, () => named)
  await until(() => f.warnings.some((w) => w.includes('no sequencer leads')))
  t.equal(f.log.lastSeq, 0, 'nothing while none leads')
  named = { epoch: 9, node: 'l', url: l.base }
  await until(() => f.log.lastSeq === l.log.lastSeq)
  t.pass('it follows the leader once named')
})
