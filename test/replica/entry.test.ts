// The log entry: its hash is SHA-256(prevHash ‖ msgpack([seq, time, command])) exactly as an
// outside tool computes it, an entry is encoded and hashed once, and its sealed body can
// neither be separated from its command nor passed off as another's.

import t from 'tap'
import { createHash } from 'node:crypto'
import { Packr } from 'msgpackr'
import { AppendRefusedError, checkContinues } from '../../replica/chain.js'
import { bodyHeadIs, bodyOf, chainHash, encodeBody, GENESIS_HASH, hashChecked, hex, makeEntry, sealedBody, sealEntry } from '../../replica/entry.js'
import { chain, command } from '../helpers/log-fixtures.js'

const independent = (prevHash: Uint8Array, seq: number, time: number, c: unknown): string =>
  createHash('sha256').update(prevHash).update(new Packr({ useRecords: false }).pack([seq, time, c])).digest('hex')

t.test('the hash is SHA-256 over prevHash and the msgpack body, as any tool computes it', async (t) => {
  const e1 = makeEntry(1, 1_700_000_000_000, command(1), GENESIS_HASH)
  const e2 = makeEntry(2, 1_700_000_000_001, command(2), e1.hash)
  t.equal(hex(e1.hash), independent(GENESIS_HASH, 1, 1_700_000_000_000, command(1)))
  t.equal(hex(e2.hash), independent(e1.hash, 2, 1_700_000_000_001, command(2)))
  const big = { ...command(3), ref: 'x'.repeat(20_000) } // longer than the scratch buffer
  t.equal(hex(chainHash(e2.hash, encodeBody(3, 3, big))), independent(e2.hash, 3, 3, big))
  t.equal(hex(chainHash(e2.hash, encodeBody(4, 4, command(4)))), independent(e2.hash, 4, 4, command(4)), 'and after it')
})

t.test('an entry carries the body it was hashed over, sealed to its command', async (t) => {
  const e = makeEntry(7, 70, command(7), GENESIS_HASH)
  t.same(sealedBody(e), encodeBody(7, 70, command(7)))
  t.equal(bodyOf(e), sealedBody(e), 'the store takes those bytes, not a new encoding')
  t.ok(Object.isFrozen(e), 'its fields cannot be swapped')
  t.throws(() => { (e as { command: unknown }).command = command(8) })
  const copy = { ...e, command: command(8) }
  t.equal(sealedBody(copy), undefined, 'a copy carries no body')
  t.same(bodyOf(copy), encodeBody(7, 70, command(8)), 'and is encoded afresh')
})

t.test('the store catches a sealed body that is not what was hashed or not its seq', async (t) => {
  const [e1, e2] = chain(1, 2, GENESIS_HASH)
  const body = Uint8Array.from(sealedBody(e2!)!)
  const altered = Uint8Array.from(body)
  altered[altered.length - 1] ^= 1
  const forged = sealEntry(2, e2!.time, e2!.command, e1!.hash, e2!.hash, altered)
  t.throws(() => checkContinues(0, GENESIS_HASH, [e1!, forged]), { message: 'append refused at seq 2: hash does not match its body' })
  const elsewhere = sealEntry(2, e2!.time, e2!.command, e1!.hash, e2!.hash, encodeBody(3, e2!.time, e2!.command))
  t.throws(() => checkContinues(0, GENESIS_HASH, [e1!, elsewhere]), AppendRefusedError)
  t.throws(() => checkContinues(0, GENESIS_HASH, [e1!, elsewhere]), { message: /its body does not hold its seq and time/ })
  t.same(checkContinues(0, GENESIS_HASH, [e1!, sealEntry(2, e2!.time, e2!.command, e1!.hash, e2!.hash, body)]), [sealedBody(e1!), body])
})

t.test('an append hashes again only what was not hashed over its body when sealed', async (t) => {
  const [e1, e2] = chain(1, 2, GENESIS_HASH)
  t.ok(hashChecked(e1!), 'makeEntry computed the hash itself')
  const unchecked = sealEntry(2, e2!.time, e2!.command, e1!.hash, e2!.hash, sealedBody(e2!)!)
  t.notOk(hashChecked(unchecked), 'a sealed entry is unchecked unless its sealer says so')
  t.notOk(hashChecked({ ...e2! }), 'a copy is not sealed at all')
  const wrong = Uint8Array.from(e2!.hash)
  wrong[0] ^= 1
  t.throws(() => checkContinues(0, GENESIS_HASH, [e1!, sealEntry(2, e2!.time, e2!.command, e1!.hash, wrong, sealedBody(e2!)!)]),
    { message: 'append refused at seq 2: hash does not match its body' })
  t.throws(() => checkContinues(0, GENESIS_HASH, [e1!, { ...e2!, hash: wrong }]), { message: 'append refused at seq 2: hash does not match its body' })
  t.same(checkContinues(0, GENESIS_HASH, [e1!, e2!]), [sealedBody(e1!), sealedBody(e2!)])
})

t.test('the head of a body names its seq and time, however msgpack wrote them', async (t) => {
  const cases: [number, number][] = [[1, 0], [127, 128], [255, 256], [65_535, 65_536], [2 ** 32 - 1, 2 ** 32], [2 ** 40, 1_700_000_000_000], [2 ** 53 - 1, 2 ** 53 - 1]]
  for (const [seq, time] of cases) {
    const body = encodeBody(seq, time, command(1))
    t.ok(bodyHeadIs(body, seq, time), `${seq}, ${time}`)
    t.notOk(bodyHeadIs(body, seq + 1, time), `${seq} + 1`)
    t.notOk(bodyHeadIs(body, seq, time + 1), `${time} + 1`)
  }
  t.notOk(bodyHeadIs(new Uint8Array([0x93, 0xcd, 0x01]), 1, 1), 'cut short')
  t.notOk(bodyHeadIs(new Uint8Array([]), 1, 1), 'empty')
  t.notOk(bodyHeadIs(new Packr({ useRecords: false }).pack([1, 2]), 1, 2), 'not three items')
})
