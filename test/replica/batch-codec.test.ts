// The stored batch and the replication batch: written by hand as the msgpack packr would, and
// decoded and verified from the stored bytes alone, with or without the verifier thread's help.

import t from 'tap'
import { Packr } from 'msgpackr'
import { decodeBatch, decodeEnvelope, encodeBatch, encodeEntries, packWithBins, verifyBodies, type Verdict } from '../../replica/batch-codec.js'
import { LogCorruptError } from '../../replica/chain.js'
import { ChainVerifier } from '../../replica/chain-verifier.js'
import { encodeBody, GENESIS_HASH, hashChecked, sealedBody } from '../../replica/entry.js'
import { chain, views } from '../helpers/log-fixtures.js'

const packr = new Packr({ useRecords: false })
const corrupt = (seq: number, reason: string): Error => new LogCorruptError(seq, reason)

t.test('batches are the bytes packr writes, at every binary size', async (t) => {
  for (const n of [1, 7, 8, 2_000, 2_100, 10_000]) {
    const entries = chain(1, n, GENESIS_HASH)
    const bodies = entries.map((e) => sealedBody(e)!)
    const hashes = Buffer.concat(entries.map((e) => e.hash))
    const joined = Buffer.concat(bodies)
    const bytes = encodeEntries(entries, bodies)
    t.same(Buffer.from(bytes), Buffer.from(packr.pack([1, GENESIS_HASH, hashes, joined])), `${n} entries`)
    t.same(Buffer.from(encodeBatch(GENESIS_HASH, hashes, joined)), Buffer.from(bytes))
    t.same(views(decodeBatch(1, bytes)), views(entries))
  }
  t.same(Buffer.from(packWithBins(['batch', 2 ** 40], [[new Uint8Array([1]), new Uint8Array([2, 3])], new Uint8Array(300)])),
    Buffer.from(packr.pack(['batch', 2 ** 40, new Uint8Array([1, 2, 3]), new Uint8Array(300)])), 'a message with parts')
})

t.test('verifyBodies checks every hash from the bytes alone', async (t) => {
  const entries = chain(1, 5, GENESIS_HASH)
  const bytes = encodeEntries(entries, entries.map((e) => encodeBody(e.seq, e.time, e.command)))
  const env = decodeEnvelope(1, bytes)
  const ends = verifyBodies(1, env.prevHash, env.hashes, env.bodies, corrupt)
  t.same(views(decodeBatch(1, bytes, { ends })), views(entries), 'decoded against its answer')
  t.ok(decodeBatch(1, bytes, { ends }).every(hashChecked) && decodeBatch(1, bytes).every(hashChecked), 'and known checked, so an append does not hash them again')
  const flipped = Uint8Array.from(env.bodies)
  flipped[ends[2]! - 1] ^= 1
  t.throws(() => verifyBodies(1, env.prevHash, env.hashes, flipped, corrupt), { message: 'log corrupt at seq 3: hash does not match its body' }, 'the last byte of seq 3')
  t.throws(() => verifyBodies(1, env.prevHash, env.hashes, env.bodies.subarray(0, ends[3]), corrupt), { message: 'log corrupt at seq 5: fewer bodies than hashes' })
  t.throws(() => verifyBodies(1, env.prevHash, env.hashes.subarray(0, 4 * 32), env.bodies, corrupt), { message: 'log corrupt at seq 5: more bodies than hashes' })
  t.throws(() => verifyBodies(1, env.prevHash, env.hashes, env.bodies.subarray(0, ends[4]! - 1), corrupt), { message: /seq 5: undecodable entry/ })
  t.throws(() => verifyBodies(1, entries[1]!.hash, env.hashes, env.bodies, corrupt), { message: 'log corrupt at seq 1: hash does not match its body' }, 'another prevHash')
})

t.test('the verifier thread answers for stored bytes, and catches a corrupted body', async (t) => {
  const verifier = new ChainVerifier()
  t.teardown(() => verifier.close())
  t.notOk(verifier.ready, 'no thread until asked')
  const entries = chain(1, 300, GENESIS_HASH)
  const bodies = entries.map((e) => sealedBody(e)!)
  const bytes = encodeEntries(entries, bodies)
  const verdict = await verifier.verifyBatch(1, bytes)
  let end = 0
  t.same([...verdict.ends], bodies.map((b) => (end += b.length)), 'where each body ends')
  t.same(views(decodeBatch(1, bytes, verdict)), views(entries), 'the entries built from its tape are the entries written')
  t.ok(verifier.ready, 'the thread is up once it has answered')
  t.same(bytes, encodeEntries(entries, bodies), 'the caller keeps its bytes')
  const bad = Uint8Array.from(bytes)
  bad[bad.length - 100] ^= 0x01 // inside the last entry's body
  await t.rejects(verifier.verifyBatch(1, bad), { name: 'LogCorruptError', message: 'log corrupt at seq 300: hash does not match its body' })
  await t.rejects(verifier.verifyBatch(1, new Uint8Array([1, 2, 3])), { name: 'LogCorruptError', message: /log corrupt at seq 1: undecodable batch/ })
  const answers = await Promise.all([1, 2, 3].map(() => verifier.verifyBatch(1, bytes)))
  t.same(answers.map((a) => a.ends.length), [300, 300, 300], 'concurrent questions each get their answer')
})

t.test('several batches in one request: each answered on its own chain, one tape for all', async (t) => {
  const verifier = new ChainVerifier()
  t.teardown(() => verifier.close())
  const entries = chain(1, 40, GENESIS_HASH)
  // Batches of 1, 9, 10 and 20 entries, each under its own first seq.
  const cuts = [[0, 1], [1, 10], [10, 20], [20, 40]] as const
  const batches = cuts.map(([from, to]) => {
    const part = entries.slice(from, to)
    return { seq: from + 1, bytes: encodeEntries(part, part.map((e) => sealedBody(e)!)), part }
  })
  const verdicts = await Promise.all(verifier.verifyBatches(batches))
  t.equal(new Set(verdicts.map((v) => v.tape)).size, 1, 'one tape')
  for (const [i, b] of batches.entries()) {
    t.same(views(decodeBatch(b.seq, b.bytes, verdicts[i])), views(b.part), `batch ${i} built from its place on the tape`)
  }
  // The third batch broken: the first two answered, the third and fourth refused.
  const bad = batches.map((b) => ({ ...b, bytes: Uint8Array.from(b.bytes) }))
  bad[2]!.bytes[bad[2]!.bytes.length - 20] ^= 0x01
  const answers = await Promise.allSettled(verifier.verifyBatches(bad))
  t.same(answers.map((a) => a.status), ['fulfilled', 'fulfilled', 'rejected', 'rejected'])
  for (const i of [0, 1]) {
    const verdict = (answers[i] as PromiseFulfilledResult<Verdict>).value
    t.same(views(decodeBatch(bad[i]!.seq, bad[i]!.bytes, verdict)), views(batches[i]!.part), `batch ${i} still decodes`)
  }
  for (const i of [2, 3]) t.match((answers[i] as PromiseRejectedResult).reason, { name: 'LogCorruptError', message: 'log corrupt at seq 20: hash does not match its body' })
})
