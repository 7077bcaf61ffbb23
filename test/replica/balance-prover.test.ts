// Balance proofs from a node's checkpoint snapshots (replica/balance-prover.ts), on a real
// snapshot store: by default at the newest checkpoint held, or at the anchored one once the
// chain services name it (kept through pruning); each leaf's path leads to that checkpoint's
// root; the same answer from the thread, from a thread that dies, and to requests made at once;
// and the refusals (no checkpoint, a seq not held, a sub-account that held nothing). Under
// salted rules, each leaf comes with its salt and the paths give away no neighbour's text.

import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import type { Command } from '../../core/commands.js'
import { DEFAULT_GENESIS, genesisCommands } from '../../core/genesis-spec.js'
import { REPLICA_LIMITS } from '../../core/limits.js'
import { toHex, verifyProof } from '../../core/merkle.js'
import { leafHash, leafSalt, saltedLeafHash, stateLeaves } from '../../core/root.js'
import { RULES_VERSION } from '../../core/rules.js'
import { verifyBalanceProof } from '../../bin/prove.js'
import type { State } from '../../core/state.js'
import { PROOF_FORMAT, type BalanceProof } from '../../replica/balance-proof.js'
import { BalanceProver, type ProofRefusal } from '../../replica/balance-prover.js'
import { GENESIS_HASH, hex, makeEntry, type LogEntry } from '../../replica/entry.js'
import { MemoryLogStore } from '../../replica/memory-log.js'
import { ReplicaNode } from '../../replica/node.js'
import { SnapshotStore } from '../../replica/snapshot-store.js'

const A = '0x' + 'a'.repeat(40)
const B = '0x' + 'b'.repeat(40)
const NOBODY = '0x' + 'c'.repeat(40)
const INTERVAL = 10

/** Genesis, then A (sub-accounts 0 and 1) and B funded a little more at every step, and A's resting orders. */
function commandsFrom(n: number, count: number): Command[] {
  return Array.from({ length: count }, (_, k): Command => {
    const i = n + k
    switch (i % 4) {
      case 0: return { type: 'Deposit', account: A, sub: 0, asset: 'USDT', amount: 1_000_000 + i, wallet: 'PERP', ref: `a${i}` }
      case 1: return { type: 'Deposit', account: A, sub: 1, asset: 'BTC', amount: 1_000 + i, wallet: 'SPOT', ref: `s${i}` }
      case 2: return { type: 'Deposit', account: B, sub: 0, asset: 'USDT', amount: 2_000 + i, wallet: 'SPOT', ref: `b${i}` }
      default: return { type: 'PlaceOrder', account: A, sub: 0, marketId: 1, side: 'BUY', orderType: 'LIMIT', priceTicks: 400_000, qtyLots: 1 }
    }
  })
}

interface Rig {
  node: ReplicaNode
  store: SnapshotStore
  /** The state after each checkpoint, by seq (what the proofs must match). */
  states: Map<number, { leaves: string[]; hash: string }>
  /** Applies `count` more entries, saving the checkpoints among them. */
  run(count: number): Promise<void>
}

/** A rig whose log declares salted rules with `leafSeed` first, when given. */
async function rig(t: Test, leafSeed?: string): Promise<Rig> {
  const dir = await mkdtemp(join(tmpdir(), 'prover-'))
  const store = new SnapshotStore(dir)
  await store.open()
  const log = new MemoryLogStore()
  await log.open()
  t.teardown(async () => {
    await store.close()
    await rm(dir, { recursive: true, force: true })
  })
  const node = new ReplicaNode({ log, snapshots: store, checkpointInterval: INTERVAL })
  const states = new Map<number, { leaves: string[]; hash: string }>()
  let prev = GENESIS_HASH
  let made = 0
  const genesis: Command[] = [...(leafSeed ? [{ type: 'SetRules', version: RULES_VERSION, leafSeed } as const] : []),
    ...genesisCommands(DEFAULT_GENESIS)]
  return {
    node, store, states,
    async run(count) {
      const commands = made === 0 ? [...genesis, ...commandsFrom(0, count - genesis.length)] : commandsFrom(made, count)
      const entries: LogEntry[] = commands.map((c) => {
        made += 1
        const e = makeEntry(made, 1_000 + made, c, prev)
        prev = e.hash
        return e
      })
      await log.append(entries)
      for (const e of entries) {
        node.applyEntry(e)
        if (e.seq % INTERVAL === 0) states.set(e.seq, { leaves: stateLeaves(node.state as State), hash: hex(e.hash) })
      }
      await node.flushSnapshots()
    },
  }
}

const bytes = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h.slice(2), 'hex'))

function isProof(t: Test, r: BalanceProof | ProofRefusal): r is BalanceProof {
  if ('refused' in r) t.fail(`refused: ${JSON.stringify(r)}`)
  return !('refused' in r)
}

/** The proof names the sub-account's money leaves of that checkpoint, each leading to its root. */
function checkProof(t: Test, r: Rig, p: BalanceProof, account: string, sub: number): void {
  const at = r.states.get(p.seq)!
  const mine = at.leaves.filter((l) => ['perpWallet', 'spot', 'holding', 'isolated'].some((k) => l.startsWith(`${k}|${account}|${sub}|`)))
  t.same(p.leaves.map((l) => l.leaf), mine, `seq ${p.seq}: ${account.slice(0, 4)}… sub ${sub}'s leaves`)
  t.equal(p.logHash, `0x${at.hash}`)
  t.match(p, { format: PROOF_FORMAT, version: 1, account, sub })
  for (const { leaf, proof } of p.leaves) {
    const steps = proof.map((s) => ({ sibling: bytes(s.sibling), left: s.left }))
    if (!verifyProof(leafHash(leaf), steps, bytes(p.root))) t.fail(`${leaf} does not lead to ${p.root}`)
  }
}

t.test('proofs at the newest checkpoint, then at the anchored one, kept through pruning', async (t) => {
  const r = await rig(t)
  const prover = new BalanceProver(r.store)
  t.teardown(() => prover.close())
  t.same(await prover.prove(A, 0), { refused: 'no-checkpoint' }, 'nothing saved yet')

  await r.run(65)
  const held = (await r.store.list()).map((m) => m.seq)
  t.same(held, [40, 50, 60], `the node keeps ${REPLICA_LIMITS.snapshotsKept}`)
  const newest = await prover.prove(A, 0)
  if (isProof(t, newest)) {
    t.equal(newest.seq, 60, 'no anchor known: the newest checkpoint held')
    t.equal(newest.root, (await r.store.at(60))!.meta.root)
    t.same(newest.leaves.map((l) => l.leaf.split('|')[0]), ['perpWallet'], 'its perp wallet (resting orders hold no position)')
    checkProof(t, r, newest, A, 0)
  }
  const spot = await prover.prove(A, 1)
  if (isProof(t, spot)) {
    t.same(spot.leaves.map((l) => l.leaf.split('|')[0]), ['perpWallet', 'spot'])
    t.match(spot.leaves[1]!.leaf, `spot|${A}|1|BTC|`, 'sub-account 1: its BTC')
    checkProof(t, r, spot, A, 1)
  }

  prover.anchoredAt(50)
  const anchored = await prover.prove(B, 0)
  if (isProof(t, anchored)) {
    t.equal(anchored.seq, 50, 'the anchored checkpoint')
    checkProof(t, r, anchored, B, 0)
  }
  prover.anchoredAt(40)
  t.equal(prover.anchoredSeq, 50, 'an older anchor does not move it back')

  await r.run(40)
  t.same((await r.store.list()).map((m) => m.seq), [50, 80, 90, 100], 'the anchored snapshot is kept, the newest three too')
  const still = await prover.prove(A, 0)
  if (isProof(t, still)) checkProof(t, r, still, A, 0)
  t.equal(isProof(t, still) && still.seq, 50)
  const asked = await prover.prove(A, 0, 90)
  if (isProof(t, asked)) {
    t.equal(asked.seq, 90, 'seq: any checkpoint held')
    checkProof(t, r, asked, A, 0)
  }

  prover.anchoredAt(100)
  await r.run(10)
  t.same((await r.store.list()).map((m) => m.seq), [90, 100, 110], 'a newer anchor lets the old one go')
  const moved = await prover.prove(A, 1)
  if (isProof(t, moved)) {
    t.equal(moved.seq, 100)
    checkProof(t, r, moved, A, 1)
  }
})

t.test('refusals: a seq not held, a sub-account that held nothing', async (t) => {
  const r = await rig(t)
  const prover = new BalanceProver(r.store)
  t.teardown(() => prover.close())
  await r.run(45)
  t.same(await prover.prove(A, 0, 10), { refused: 'seq-not-held', seq: 10, held: [20, 30, 40] })
  t.same(await prover.prove(A, 0, 41), { refused: 'seq-not-held', seq: 41, held: [20, 30, 40] })
  t.same(await prover.prove(NOBODY, 0), { refused: 'nothing-held', seq: 40 })
  t.same(await prover.prove(A, 2), { refused: 'nothing-held', seq: 40 }, 'a sub-account A never used')
  prover.anchoredAt(5)
  t.same(await prover.prove(A, 0), { refused: 'seq-not-held', seq: 5, held: [20, 30, 40] }, 'an anchor this node does not hold')
})

t.test('requests at once, and a thread that dies: the same proofs', async (t) => {
  const r = await rig(t)
  await r.run(55)
  const prover = new BalanceProver(r.store)
  t.teardown(() => prover.close())
  const together = await Promise.all([prover.prove(A, 0), prover.prove(A, 1), prover.prove(B, 0), prover.prove(A, 0, 40)])
  for (const [k, who] of [[0, [A, 0]], [1, [A, 1]], [2, [B, 0]], [3, [A, 0]]] as const) {
    const p = together[k]!
    if (isProof(t, p)) checkProof(t, r, p, who[0], who[1])
  }
  // A worker module that ends its thread at once, before answering anything.
  const dying = new BalanceProver(r.store, new URL('data:text/javascript,process.exit(3)'))
  t.teardown(() => dying.close())
  t.same(await dying.prove(A, 0), together[0], 'answered on the caller\'s thread')
  t.same(await dying.prove(B, 0, 40), await prover.prove(B, 0, 40))
})

t.test('salted rules: version 2 proofs, each leaf with its salt, no neighbour\'s text to be found from a path', async (t) => {
  const seed = '0x' + '9e'.repeat(32)
  const r = await rig(t, seed)
  const prover = new BalanceProver(r.store)
  t.teardown(() => prover.close())
  await r.run(45)
  const p = await prover.prove(A, 0)
  if (!isProof(t, p)) return
  t.equal(p.version, 2)
  t.equal(p.root, (await r.store.at(p.seq))!.meta.root, 'the checkpoint\'s (salted) root')
  const leaves = r.states.get(p.seq)!.leaves
  for (const { leaf, salt, proof } of p.leaves) {
    t.equal(salt, toHex(leafSalt(seed, leaf)), `${leaf.split('|')[0]}: its salt`)
    const steps = proof.map((s) => ({ sibling: bytes(s.sibling), left: s.left }))
    t.ok(verifyProof(saltedLeafHash(bytes(salt!), leaf), steps, bytes(p.root)), 'leads to the root with its salt')
    t.notOk(verifyProof(leafHash(leaf), steps, bytes(p.root)), 'and not without')
    // The first sibling is the neighbouring leaf's hash: its whole text known, still not found without the seed.
    const i = leaves.indexOf(leaf)
    const neighbour = leaves[proof[0]!.left ? i - 1 : i + 1]!
    t.equal(proof[0]!.sibling, toHex(saltedLeafHash(leafSalt(seed, neighbour), neighbour)), 'the first sibling is the neighbour\'s salted hash')
    t.not(proof[0]!.sibling, toHex(leafHash(neighbour)), 'which its text alone does not give')
  }

  const lines: string[] = []
  t.equal(await verifyBalanceProof({ proof: p, out: (l) => lines.push(l) }), true, 'verify-proof checks a version 2 proof')
  t.match(lines.join('\n'), /included {2}perpWallet\|/)
  const unsalted = { ...p, leaves: p.leaves.map(({ leaf, proof }) => ({ leaf, proof })) }
  const failed: string[] = []
  t.equal(await verifyBalanceProof({ proof: unsalted, out: (l) => failed.push(l) }), false, 'without its salts it fails')
  t.match(failed.join('\n'), /NOT INCLUDED {2}perpWallet\|.* \(no salt of 32 bytes: version 2 leaves carry one\)/)
  const raised = (leaf: string): string => leaf.split('|').map((f, i) => (i === 3 ? String(Number(f) + 1) : f)).join('|')
  const forged = { ...p, leaves: p.leaves.map((l) => ({ ...l, leaf: raised(l.leaf) })) }
  t.equal(await verifyBalanceProof({ proof: forged, out: () => {} }), false, 'a balance raised fails')
})
