// How a zoned kline bucket is read (replica/projections/zoned-klines.ts): tiled by stored UTC
// candles that fit it exactly, as few as possible. (Its figures against candles built from the
// trades: test/gateway/spot-klines-zone.test.ts.)

import t from 'tap'
import fc from 'fast-check'
import { zonedBucketClose, zonedBucketOpen } from '../../replica/projections/intervals.js'
import { tiles } from '../../replica/projections/zoned-klines.js'
import { runs } from '../helpers/property.js'

const MIN = 60_000
const SIZE: Record<string, number> = { '1d': 1440, '12h': 720, '6h': 360, '2h': 120, '1h': 60, '30m': 30, '15m': 15, '5m': 5, '1m': 1 }

t.test('the tiles of a range are aligned stored candles, end to end, exactly covering it', async () => {
  fc.assert(fc.property(fc.integer({ min: 27_000_000, max: 30_000_000 }), fc.integer({ min: 1, max: 50 * 1440 }), (start, length) => {
    const [from, to] = [start * MIN, (start + length) * MIN]
    const pieces = tiles(from, to)
    let at = from
    for (const [interval, open] of pieces) {
      const size = SIZE[interval]! * MIN
      if (open !== at || open % size !== 0 || open + size > to) return false
      at += size
    }
    // Whole days in the middle; at each end at most 4 of 1m, 2 of 5m, 2 of 2h (each a fifth or a
    // third of the next) and one of each other size: 13.
    return at === to && pieces.length <= Math.floor(length / 1440) + 2 * 13
  }), runs(500))
})

t.test('a day at +05:45 takes eight candles; a month at +05:45 its whole days and its ends', async (t) => {
  const offset = 345 * MIN
  const day = zonedBucketOpen('1d', Date.UTC(2024, 0, 10, 12), offset)
  t.equal(day, Date.UTC(2024, 0, 9, 18, 15))
  t.same(tiles(day, zonedBucketClose('1d', day, offset) + 1).map(([i]) => i), ['15m', '30m', '1h', '2h', '2h', '12h', '6h', '15m'])
  const month = zonedBucketOpen('1M', Date.UTC(2024, 1, 10), offset)
  t.equal(month, Date.UTC(2024, 0, 31, 18, 15))
  const pieces = tiles(month, zonedBucketClose('1M', month, offset) + 1)
  t.equal(pieces.filter(([i]) => i === '1d').length, 28, 'February 2024 at +05:45: 1 to 28 whole UTC days')
  t.equal(pieces.length, 28 + 8)
})
