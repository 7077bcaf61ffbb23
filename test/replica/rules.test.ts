// Rules declarations in the replica (core/rules.ts): the sequencer declares its build's rules
// first on a new log and once on an older log it continues, writes no declaration but its
// own, and a node does not start on a log declaring rules newer than its build's. The
// declaration reaching salted leaves carries a fresh random leaf seed.

import t from 'tap'
import { apply } from '../../core/apply.js'
import type { Command, SetRules } from '../../core/commands.js'
import { DEFAULT_GENESIS, genesisCommands } from '../../core/genesis-spec.js'
import { stateRoot } from '../../core/root.js'
import { RULES_VERSION } from '../../core/rules.js'
import { createState } from '../../core/state.js'
import { systemClock } from '../../replica/clock.js'
import { GENESIS_HASH, makeEntry, type LogEntry } from '../../replica/entry.js'
import { MemoryLogStore } from '../../replica/memory-log.js'
import { createReplica, type Replica } from '../../replica/replica.js'
import { RulesDeclarationError } from '../../replica/sequencer.js'
import { wsNetwork } from '../../replica/ws-network.js'
import { T0 } from '../helpers/exchange.js'

const GENESIS = genesisCommands(DEFAULT_GENESIS)
const deposit = (n: number): Command => ({ type: 'Deposit', account: '0x' + '1'.repeat(40), sub: 0, asset: 'USDT', amount: n,
  wallet: 'SPOT', ref: `ref-${n}` })

function sequencer(log: MemoryLogStore, genesis?: Command[]): Promise<Replica> {
  return createReplica({ log, network: wsNetwork, clock: systemClock, checkpointInterval: 1_000,
    role: { kind: 'sequencer', host: '127.0.0.1', port: 0, genesis } })
}

/** A log as a build before versioning wrote it: genesis and a deposit, no declaration. */
async function undeclaredLog(): Promise<MemoryLogStore> {
  const log = new MemoryLogStore()
  await log.open()
  const entries: LogEntry[] = []
  let prev = GENESIS_HASH
  for (const [i, c] of [...GENESIS, deposit(1)].entries()) {
    const e = makeEntry(i + 1, T0 + i, c, prev)
    entries.push(e)
    prev = e.hash
  }
  await log.append(entries)
  return log
}

const commandAt = async (log: MemoryLogStore, seq: number): Promise<Command> => (await log.read(seq, seq))[0]!.command
const SEEDED = { type: 'SetRules', version: RULES_VERSION, leafSeed: /^0x[0-9a-f]{64}$/ }

t.test('a new log declares the rules first, then its genesis; a restart declares nothing more', async (t) => {
  const log = new MemoryLogStore()
  await log.open()
  const first = await sequencer(log, GENESIS)
  const declaration = await commandAt(log, 1) as SetRules
  t.match(declaration, SEEDED, 'with a leaf seed')
  t.same(await commandAt(log, 2), GENESIS[0], 'genesis follows')
  t.equal(log.lastSeq, 1 + GENESIS.length)
  t.equal(first.node.state.rules, RULES_VERSION)
  t.equal(first.node.state.leafSeed, declaration.leafSeed)
  await first.stop()
  const again = await sequencer(log, GENESIS)
  t.equal(log.lastSeq, 1 + GENESIS.length, 'nothing appended on a restart under the same rules')
  t.equal(again.node.state.rules, RULES_VERSION)
  t.equal(again.node.state.leafSeed, declaration.leafSeed, 'the seed stays')
  await again.stop()

  const other = new MemoryLogStore()
  await other.open()
  const second = await sequencer(other, GENESIS)
  t.not(second.node.state.leafSeed, declaration.leafSeed, 'another log draws another seed')
  await second.stop()
})

t.test('a log written before versioning: entries keep their roots, the declaration comes after them', async (t) => {
  const log = await undeclaredLog()
  const before = log.lastSeq
  const replayed = createState()
  for (const e of await log.read(1, before)) apply(replayed, e)
  const r = await sequencer(log, GENESIS)
  t.equal(log.lastSeq, before + 1, 'one entry appended, no second genesis')
  t.match(await commandAt(log, before + 1), SEEDED)
  t.equal(r.node.state.rules, RULES_VERSION)
  t.not(stateRoot(r.node.state), stateRoot(replayed), 'the declared rules are in the root from there on')
  t.equal(stateRoot({ ...r.node.state, rules: 0, leafSeed: '' }), stateRoot(replayed), 'and nothing else changed')
  const ack = await r.sequencer!.submit(deposit(2))
  t.ok(ack.result.ok, 'the log goes on')
  await r.stop()
})

t.test('a log declared at rules 1 is declared again, bringing the seed; its anchored roots before stay unsalted', async (t) => {
  const log = await undeclaredLog()
  const one = makeEntry(log.lastSeq + 1, T0 + 100, { type: 'SetRules', version: 1 }, log.lastHash)
  await log.append([one])
  const replayed = createState()
  for (const e of await log.read(1, one.seq)) apply(replayed, e)
  t.equal(replayed.leafSeed, '')
  const r = await sequencer(log, GENESIS)
  t.match(await commandAt(log, one.seq + 1), SEEDED)
  t.equal(r.node.state.rules, RULES_VERSION)
  t.equal(stateRoot({ ...r.node.state, rules: 1, leafSeed: '' }), stateRoot(replayed), 'the root before it is as rules 1 hashed it')
  await r.stop()
})

t.test('the sequencer writes no declaration but its own rules', async (t) => {
  const log = new MemoryLogStore()
  await log.open()
  const r = await sequencer(log, GENESIS)
  const last = log.lastSeq
  for (const declaration of [RULES_VERSION + 1, RULES_VERSION - 1, 0, 'x', 'bad seed'].map((v): SetRules =>
    v === 'bad seed' ? { type: 'SetRules', version: RULES_VERSION, leafSeed: '0x12' } : { type: 'SetRules', version: v as number })) {
    const err = await r.sequencer!.submit(declaration).then(() => null, (e: Error) => e)
    t.ok(err instanceof RulesDeclarationError, `${JSON.stringify(declaration)} refused before the log`)
    t.equal((err as RulesDeclarationError).code, 'RULES_NOT_DECLARABLE')
  }
  t.equal(log.lastSeq, last, 'nothing written')
  const again = await r.sequencer!.submit({ type: 'SetRules', version: RULES_VERSION })
  t.same(again.result, { ok: false, code: 'RULES_INVALID', events: [] }, 'its own again is a refusal, logged like any other')
  await r.stop()
})

t.test('a node does not start on a log declaring rules newer than its build', async (t) => {
  const log = await undeclaredLog()
  const newer = makeEntry(log.lastSeq + 1, T0 + 100, { type: 'SetRules', version: RULES_VERSION + 1 }, log.lastHash)
  await log.append([newer, makeEntry(newer.seq + 1, T0 + 101, deposit(2), newer.hash)])
  const err = await sequencer(log).then(async (r) => { await r.stop(); return null }, (e: Error) => e)
  t.equal(err?.message, `entry ${newer.seq} declares rules ${RULES_VERSION + 1}; this build applies rules up to ${RULES_VERSION}: ` +
    `replay it with a build of rules ${RULES_VERSION + 1} or later`)
})
