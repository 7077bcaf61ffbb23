// Checkpoint roots computed on a thread of their own (replica/root-hasher.ts): the same roots,
// in the same order, as computing them where commands are applied; applying does not wait for
// them; snapshots are saved with them; and a lost thread costs nothing but time. And the
// snapshots' saving: a flush resolves only once a flush under way has saved what it took.

import t from 'tap'
import { DEFAULT_GENESIS, genesisCommands } from '../../core/genesis-spec.js'
import { stateRoot } from '../../core/root.js'
import { encodeSnapshot } from '../../core/snapshot.js'
import { GENESIS_HASH, makeEntry, type LogEntry } from '../../replica/entry.js'
import { MemoryLogStore } from '../../replica/memory-log.js'
import { ReplicaNode, type Checkpoint, type SnapshotMeta, type SnapshotStoreLike } from '../../replica/node.js'
import { RootHasher, type RootSource } from '../../replica/root-hasher.js'
import { deposit, order } from '../helpers/replication-rig.js'

/** Genesis, deposits, then resting orders: a state whose root changes with every entry. */
function stream(): LogEntry[] {
  const commands = [...genesisCommands(DEFAULT_GENESIS), ...Array.from({ length: 5 }, (_, i) => deposit(i)),
    ...Array.from({ length: 60 }, (_, i) => order(i))]
  let prev = GENESIS_HASH
  return commands.map((c, i) => {
    const e = makeEntry(i + 1, 1_000 + i, c, prev)
    prev = e.hash
    return e
  })
}

class MemorySnapshots implements SnapshotStoreLike {
  saved: SnapshotMeta[] = []
  async save(meta: SnapshotMeta): Promise<void> { this.saved.push(meta) }
  async latest(): Promise<undefined> { return undefined }
}

/** A node applying `entries` (written to its log first) with roots from `roots`, or in place. */
async function run(entries: LogEntry[], roots?: RootSource) {
  const log = new MemoryLogStore()
  await log.open()
  const snapshots = new MemorySnapshots()
  const node = new ReplicaNode({ log, snapshots, checkpointInterval: 10, roots })
  const heard: Checkpoint[] = []
  node.onCheckpoint((cp) => heard.push(cp))
  await log.append(entries)
  /** Per checkpoint entry: whether its root was known as soon as the entry was applied. */
  const atOnce: boolean[] = []
  for (const e of entries) {
    node.applyEntry(e)
    if (e.seq % 10 === 0) atOnce.push(node.roots.some((r) => r.seq === e.seq) && !node.rootPending(e.seq))
  }
  await node.rootsDelivered()
  await node.flushSnapshots()
  return { node, heard, atOnce, saved: snapshots.saved }
}

t.test('roots from the thread equal the roots computed in place, in order, and snapshots carry them', async (t) => {
  const entries = stream()
  const hasher = new RootHasher()
  t.teardown(() => hasher.close())
  const inPlace = await run(entries)
  const offThread = await run(entries, hasher)
  t.equal(inPlace.heard.length, Math.floor(entries.length / 10))
  t.ok(inPlace.atOnce.every(Boolean), 'in place: each root is known when its entry is applied')
  t.ok(offThread.atOnce.every((known) => !known), 'off-thread: applying went on without waiting for any root')
  t.same(offThread.heard, inPlace.heard, 'the same checkpoints and roots, heard in order')
  t.same(offThread.node.roots, inPlace.node.roots)
  t.same(offThread.saved, inPlace.saved, 'snapshots saved with the same seqs, hashes and roots')
})

t.test('a thread that cannot answer: the roots are computed on the caller\'s thread instead', async (t) => {
  const entries = stream()
  const inPlace = await run(entries)
  // A worker module that ends its thread at once, before answering anything.
  const dying = new RootHasher(new URL('data:text/javascript,process.exit(3)'))
  t.teardown(() => dying.close())
  const fallback = await run(entries, dying)
  t.same(fallback.heard, inPlace.heard)
  t.same(fallback.saved, inPlace.saved)
})

t.test('closing the hasher computes what it still owed', async (t) => {
  const entries = stream()
  const log = new MemoryLogStore()
  await log.open()
  const node = new ReplicaNode({ log, checkpointInterval: 0 })
  for (const e of entries) node.applyEntry(e)
  const hasher = new RootHasher()
  const bytes = encodeSnapshot(node.state)
  const asked = [hasher.rootOf(bytes), hasher.rootOf(bytes)]
  await hasher.close()
  t.same(await Promise.all(asked), [stateRoot(node.state), stateRoot(node.state)])
  t.equal(await hasher.rootOf(bytes), stateRoot(node.state), 'and answers in place once closed')
})

t.test('a flush begun while another is still saving resolves only once that save is done', async (t) => {
  // What a stopping sequencer does (replica.ts stop): its last flush while the commit path's
  // flush is in the middle of writing a snapshot; the store must not be closed under that write.
  // One checkpoint (at 10): the first flush takes it off the queue, so the second finds none left.
  const entries = stream().slice(0, 15)
  const log = new MemoryLogStore()
  await log.open()
  const done: number[] = []
  let release!: () => void
  const held = new Promise<void>((r) => { release = r })
  const slow: SnapshotStoreLike = {
    async save(meta) { await held; done.push(meta.seq) },
    async latest() { return undefined },
  }
  const node = new ReplicaNode({ log, snapshots: slow, checkpointInterval: 10 })
  await log.append(entries)
  for (const e of entries) node.applyEntry(e)
  const first = node.flushSnapshots()
  await new Promise((r) => setImmediate(r))
  let secondDone = false
  const second = node.flushSnapshots().then(() => { secondDone = true })
  await new Promise((r) => setTimeout(r, 20))
  t.notOk(secondDone, 'the second flush, with nothing left to take, still waits for the first one\'s save')
  release()
  await Promise.all([first, second])
  t.same(done, [10], 'saved once')
})
