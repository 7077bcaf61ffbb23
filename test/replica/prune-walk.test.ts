// The time-suffix prune (replica/projections/prune.ts) over a real LevelDB sublevel: rows of
// several prefixes, each a run by time, interleaved in key order with young rows between old
// ones; exactly the old rows go, within the budget, whatever the prefixes' lengths.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Level } from 'level'
import t from 'tap'
import { key } from '../../replica/projections/keys.js'
import { pruneByTimeSuffix } from '../../replica/projections/prune.js'
import type { Store } from '../../replica/projections/stores.js'

const BUFFERS = { keyEncoding: 'buffer', valueEncoding: 'buffer' } as const
const row = (owner: string, type: number, time: number, id: number): Buffer => key().str(owner).u8(type).u64(time).u64(id).build()
const name = (k: Buffer): string => `${k.subarray(1, 1 + k[0]!).toString()}/${k[1 + k[0]!]}@${Number(k.readBigUInt64BE(k.length - 16))}`

t.test('old rows of every prefix go, young ones stay, at most the budget', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'prune-walk-'))
  const db = new Level<Buffer, Buffer>(dir, BUFFERS)
  t.teardown(async () => {
    await db.close()
    rmSync(dir, { recursive: true, force: true })
  })
  const store = db.sublevel<Buffer, Buffer>('s', BUFFERS) as unknown as Store
  const rows = [
    row('a', 1, 1, 1), row('a', 1, 2, 2), row('a', 1, 10, 3), row('a', 1, 11, 4), // old, old, young, young
    row('a', 2, 3, 5), // old, under another type
    row('ab', 1, 20, 6), row('ab', 1, 21, 7), // young only: strings are length-prefixed, so after 'c'
    row('b', 1, 5, 8), row('b', 1, 30, 9), // old, young
    row('c', 7, 1, 10), // old
  ]
  await store.batch(rows.map((k) => ({ type: 'put' as const, key: k, value: Buffer.alloc(1) })))
  const left = async (): Promise<string[]> => (await store.keys().all()).map(name)

  t.equal(await pruneByTimeSuffix(store, 6, 2), 2, 'the budget bounds a call')
  t.same(await left(), ['a/1@10', 'a/1@11', 'a/2@3', 'b/1@5', 'b/1@30', 'c/7@1', 'ab/1@20', 'ab/1@21'], 'the first two in key order')
  t.equal(await pruneByTimeSuffix(store, 6, 100), 3)
  t.same(await left(), ['a/1@10', 'a/1@11', 'b/1@30', 'ab/1@20', 'ab/1@21'], 'every prefix\'s old rows, none of the young')
  t.equal(await pruneByTimeSuffix(store, 6, 100), 0, 'nothing more')
  t.equal(await pruneByTimeSuffix(store, 25, 100), 4, 'a later cutoff: the runs\' next rows')
  t.same(await left(), ['b/1@30'])
})
