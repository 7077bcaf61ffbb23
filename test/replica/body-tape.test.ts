import { deepStrictEqual } from 'node:assert'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import t from 'tap'
import { apply } from '../../core/apply.js'
import { REPLICA_LIMITS } from '../../core/limits.js'
import { stateRoot } from '../../core/root.js'
import { createState } from '../../core/state.js'
import { tapeBodies, TapeReader } from '../../replica/body-tape.js'
import { encodeBody, GENESIS_HASH, makeEntry, packr } from '../../replica/entry.js'
import { LevelLogStore } from '../../replica/level-log.js'
import { DEFAULT_WORKLOAD, generateWorkload, PRICE_MOVES } from '../../sim/workload.js'
import { runs } from '../helpers/property.js'

/** The bodies end to end, and where each ends. */
function joined(bodies: Uint8Array[]): { bytes: Uint8Array, ends: Uint32Array } {
  const ends = new Uint32Array(bodies.length)
  let n = 0
  bodies.forEach((b, i) => (ends[i] = n += b.length))
  return { bytes: Buffer.concat(bodies), ends }
}

/**
 * Reads every body back through a tape, checking each against msgpackr's decoding of its bytes
 * (values, key order, -0); returns how many were built from the tape.
 */
function readBack(bodies: Uint8Array[]): number {
  const { bytes, ends } = joined(bodies)
  const reader = new TapeReader(tapeBodies(bytes, ends))
  let taped = 0
  for (const body of bodies) {
    const command = reader.next()
    if (command === undefined) continue
    taped++
    const [seq, time, expected] = packr.unpack(body) as [number, number, object]
    deepStrictEqual([reader.seq, reader.time, command], [seq, time, expected])
    deepStrictEqual(Object.keys(command), Object.keys(expected))
  }
  return taped
}

t.test('the workloads\' commands come back from the tape as msgpackr decodes them', async (t) => {
  for (const options of [{ ...DEFAULT_WORKLOAD, commands: 20_000 }, { ...DEFAULT_WORKLOAD, commands: 20_000, priceMoves: PRICE_MOVES }]) {
    const w = generateWorkload(options)
    const commands = [...w.setup, ...w.stream]
    const bodies = commands.map((c, i) => encodeBody(i + 1, 1_700_000_000_000 + i, c))
    const taped = readBack(bodies)
    // Only genesis commands (nested brackets and fees) are left to msgpackr.
    const orders = commands.filter((c) => c.type === 'PlaceOrder' || c.type === 'CancelOrder').length
    t.ok(taped >= orders, `${taped} of ${commands.length} built from the tape, every order and cancel among them`)
  }
})

t.test('bodies the tape does not cover are left to msgpackr', async (t) => {
  const odd: unknown[] = [
    { nested: [1, 2] }, { inner: { a: 1 } }, { text: 'naïve' }, { ['ключ']: 1 }, { bytes: new Uint8Array([1, 2]) }, { ['__proto__']: 1 },
  ]
  const bodies = odd.map((c, i) => encodeBody(i + 1, 5, c as never))
  bodies.push(packr.pack([1, 2]), packr.pack([1, 2, 3, 4]), packr.pack([1, 2, 'not a map']), packr.pack({ seq: 1 }))
  bodies.push(new Uint8Array([0x93, 0x01, 0x02, 0x82, 0xa1, 0x61, 0x01, 0xa1, 0x61, 0x02])) // key "a" twice
  bodies.push(new Uint8Array([0x93, 0x01, 0x02, 0x81, 0xa1, 0x61, 0xca, 0x3f, 0xc0, 0x00, 0x00])) // a float32
  bodies.push(new Uint8Array([0x93, 0x01, 0x02, 0x81, 0x01, 0x02])) // an integer key
  bodies.push(new Uint8Array([0x93, 0x01, 0x02, 0x81, 0xa1, 0x61, 0xcf, 0, 0, 0, 1, 0, 0, 0, 0])) // a uint64
  t.equal(readBack(bodies), 0, 'none built from the tape')
  const { bytes, ends } = joined(bodies)
  const reader = new TapeReader(tapeBodies(bytes, ends))
  for (let i = 0; i < bodies.length; i++) t.equal(reader.next(), undefined, `body ${i} left to msgpackr`)
  t.throws(() => reader.next(), /tape read past its end/)
})

t.test('any flat command comes back from the tape as msgpackr decodes it', async (t) => {
  const value = fc.oneof(
    fc.integer({ min: -(2 ** 31), max: 2 ** 32 - 1 }), fc.maxSafeInteger(), fc.double(), fc.boolean(), fc.constant(null),
    fc.string({ maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 8 }), fc.array(fc.integer(), { maxLength: 3 }),
  )
  const command = fc.dictionary(fc.string({ maxLength: 12 }), value, { maxKeys: 20 })
  fc.assert(fc.property(fc.array(fc.tuple(fc.nat(), fc.integer(), command), { minLength: 1, maxLength: 20 }), (items) => {
    readBack(items.map(([seq, time, c]) => packr.pack([seq, time, c])))
  }), runs(300))
  t.pass('300 batches of random commands')
})

t.test('strings alike where the string cache hashes them are told apart by all their bytes', async (t) => {
  // Longer than 16 bytes, the cache hashes only the first and last 8: these share a slot.
  const middles = ['0000', '0001', '1000', 'zzzz', 'zzzy', 'é000']
  const account = (m: string): string => `0xaaaaaa${m.repeat(8)}bbbbbbbb`
  const bodies = Array.from({ length: 40 }, (_, i) => encodeBody(i + 1, 9, { type: 'Probe', account: account(middles[(i * 7) % middles.length]!) } as never))
  // Twice, so the second batch meets the strings the first one cached.
  const ascii = bodies.filter((_, i) => (i * 7) % middles.length !== 5).length
  t.equal(readBack(bodies), ascii, 'every ASCII one from the tape')
  t.equal(readBack(bodies.slice().reverse()), ascii, 'and again, in the other order')
})

t.test('strings and keys of every cached length that differ in one byte are told apart', async (t) => {
  // The cache and the key trie compare 4 bytes at a time, the last 4 overlapping: a difference
  // at the start, in the middle or at the end of any length must show.
  const bodies: Uint8Array[] = []
  for (let length = 1; length <= 70; length++) {
    for (const at of new Set([0, length >> 1, length - 1])) {
      const same = 'a'.repeat(length)
      const other = same.slice(0, at) + 'b' + same.slice(at + 1)
      for (const [key, value] of [[same, same], [same, other], [other, same], [other, other], [same, same]]) {
        bodies.push(encodeBody(bodies.length + 1, 1, { type: 'Probe', [key!]: value, end: 1 } as never))
      }
    }
  }
  t.equal(readBack(bodies), bodies.length, `${bodies.length} bodies, each as msgpackr decodes it`)
})

t.test('wide integers (msgpackr writes them as float64s), -0 and empty keys and commands are built from the tape', async (t) => {
  const bodies = [{ big: 2 ** 40, small: -(2 ** 40), zero: -0, half: 0.5 }, { '': 0 }, {}, { '': '' }]
    .map((c, i) => encodeBody(i + 1, 3, c as never))
  t.equal(readBack(bodies), bodies.length)
})

t.test('a command of more fields than the tape takes is left to msgpackr', async (t) => {
  const fields = (n: number): object => Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}`, i]))
  const max = REPLICA_LIMITS.tapeFieldsMax
  t.equal(readBack([encodeBody(1, 1, fields(max) as never)]), 1, `${max} fields: from the tape`)
  t.equal(readBack([encodeBody(1, 1, fields(max + 1) as never)]), 0, `${max + 1}: left to msgpackr`)
})

t.test('past the bound of compiled key sets, commands are still built field by field', async (t) => {
  const sets = REPLICA_LIMITS.tapeKeySetsMax + 50
  const bodies = Array.from({ length: sets }, (_, i) => encodeBody(i + 1, 7, { type: 'Probe', [`k${i}`]: i, last: 'x' } as never))
  t.equal(readBack(bodies), sets, 'each of them from the tape')
})

t.test('a replay through the verifier thread\'s tapes reaches the state of the commands applied as made', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'body-tape-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const w = generateWorkload({ ...DEFAULT_WORKLOAD, commands: 30_000, priceMoves: PRICE_MOVES })
  const direct = createState()
  let prevHash = GENESIS_HASH
  const entries = [...w.setup, ...w.stream].map((command, i) => {
    const e = makeEntry(i + 1, 1_700_000_000_000 + i, command, prevHash)
    prevHash = e.hash
    apply(direct, e)
    return e
  })
  const log = new LevelLogStore(dir, { verifyInWorker: 'always' })
  await log.open()
  t.teardown(() => log.close())
  for (let i = 0; i < entries.length; i += 1_000) await log.append(entries.slice(i, i + 1_000))
  const replayed = createState()
  for await (const batch of log.readBatches(1)) for (const e of batch) apply(replayed, e)
  t.equal(replayed.seq, entries.length)
  t.equal(stateRoot(replayed), stateRoot(direct), 'the same state root')
})
