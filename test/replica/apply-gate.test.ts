// The apply gate (replica/apply-gate.ts) on its own, and a replay at start waiting on it
// between stored batches. The sequencer's and the follower's use of it are tested with them
// (sequencer.test.ts, replication.test.ts); the runtime's hold at --projections-behind-max
// with a real process (test/e2e/projections-backlog.test.ts).

import t from 'tap'
import type { Command } from '../../core/commands.js'
import { ApplyGate } from '../../replica/apply-gate.js'
import { GENESIS_HASH, makeEntry, type LogEntry } from '../../replica/entry.js'
import { MemoryLogStore } from '../../replica/memory-log.js'
import { ReplicaNode } from '../../replica/node.js'

t.test('held, it wakes its waiters and release listeners once at release; open, it resolves at once', async (t) => {
  const gate = new ApplyGate()
  t.equal(gate.open, true)
  await gate.whenOpen()
  gate.hold()
  gate.hold()
  t.equal(gate.open, false)
  t.equal(gate.holds, 1, 'holding a held gate is not another hold')
  const woken: string[] = []
  gate.onRelease(() => woken.push('listener'))
  const waiting = gate.whenOpen().then(() => woken.push('waiter'))
  await new Promise((r) => setTimeout(r, 5))
  t.same(woken, [], 'nothing wakes while held')
  gate.release()
  await waiting
  t.same(woken, ['listener', 'waiter'])
  gate.release()
  t.same(woken, ['listener', 'waiter'], 'releasing an open gate wakes no one')
  gate.hold()
  t.equal(gate.holds, 2)
})

t.test('a replay holds between stored batches while the gate is held', async (t) => {
  const log = new MemoryLogStore()
  await log.open()
  let prev = GENESIS_HASH
  const asset: Command = { type: 'CreateAsset', asset: 'USDT', scale: 6 }
  for (let b = 0; b < 3; b++) {
    const entries: LogEntry[] = []
    for (let i = 0; i < 4; i++) {
      const seq = b * 4 + i + 1
      const e = makeEntry(seq, seq, seq === 1 ? asset : { type: 'Tick' }, prev)
      prev = e.hash
      entries.push(e)
    }
    await log.append(entries)
  }
  const node = new ReplicaNode({ log })
  const seen: number[] = []
  // A consumer that falls behind at the first batch, as the projections would.
  node.onCommitted((c) => {
    seen.push(c.entries.at(-1)!.seq)
    if (seen.length === 1) node.gate.hold()
  })
  const restored = node.restore()
  await new Promise((r) => setTimeout(r, 20))
  t.same(seen, [4], 'one batch applied, then held')
  t.equal(node.state.seq, 4)
  node.gate.release()
  await restored
  t.same(seen, [4, 8, 12], 'the rest once released')
  t.equal(node.state.seq, 12)
})
