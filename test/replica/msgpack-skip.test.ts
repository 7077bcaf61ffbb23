// Skipping msgpack values without decoding them must find exactly the ends the decoder finds,
// for anything msgpackr writes, and refuse bytes that are not whole msgpack.

import t from 'tap'
import fc from 'fast-check'
import { Packr } from 'msgpackr'
import { skipValue } from '../../replica/msgpack-skip.js'
import { command } from '../helpers/log-fixtures.js'
import { runs } from '../helpers/property.js'

const packr = new Packr({ useRecords: false })

t.test('a value ends where the decoder says, for any value', async (t) => {
  fc.assert(fc.property(fc.array(fc.anything({ withBigInt: false, withDate: true, withTypedArray: false, withMap: true, withSet: false }), { minLength: 1, maxLength: 8 }), (values) => {
    const parts = values.map((v) => packr.pack(v))
    const all = Buffer.concat(parts)
    let pos = 0
    for (const p of parts) {
      const end = skipValue(all, pos)
      if (end !== pos + p.length) return false
      pos = end
    }
    return true
  }), runs(500))
  t.pass('500 random sequences')
})

t.test('sizes at every length boundary', async (t) => {
  for (const n of [0, 1, 15, 16, 31, 32, 255, 256, 65_535, 65_536, 70_000]) {
    for (const v of ['s'.repeat(n), new Uint8Array(n), Array.from({ length: Math.min(n, 70_000) }, (_, i) => i),
      Object.fromEntries(Array.from({ length: Math.min(n, 20_000) }, (_, i) => [`k${i}`, i]))]) {
      const bytes = packr.pack(v)
      if (skipValue(bytes, 0) !== bytes.length) t.fail(`${typeof v} of ${n}`)
    }
  }
  for (const v of [0, -1, -33, 127, 128, -129, 255, 256, 65_536, 2 ** 32, -(2 ** 31) - 1, 0.5, 1e300, null, true, false, undefined]) {
    const bytes = packr.pack([v, command(1)])
    t.equal(skipValue(bytes, 0), bytes.length, String(v))
  }
})

t.test('bytes that are not whole msgpack are refused', async (t) => {
  const body = packr.pack([1, 2, command(1)])
  for (let cut = 0; cut < body.length; cut++) {
    if (skipValue(body.subarray(0, cut), 0) !== -1) t.fail(`cut at ${cut}`)
  }
  t.equal(skipValue(new Uint8Array([0xc1]), 0), -1, 'the unused tag')
  t.equal(skipValue(new Uint8Array([0xdd, 0xff, 0xff, 0xff, 0xff]), 0), -1, 'a count past the end')
  t.equal(skipValue(new Uint8Array([0xc6, 0xff, 0xff, 0xff, 0xff, 1]), 0), -1, 'a length past the end')
})
