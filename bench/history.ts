// History retention benchmark (`--prune-interval-ms`, bin/history-upkeep.ts): the history read
// models of 1,000,000 core workload commands spread over 200 days, as a node's projections write
// them, then the pruning a node runs: passes of the projections' prune() until one takes less
// than its budget, as of the last entry's time. Prints the store before and after (rows by
// kind, disk), how fast the pass deleted, and an allOrders page of the busiest account before
// and after. No peer: what is compared is the store kept for good against the store pruned.

import { execFileSync } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { Level } from 'level'
import { retainedMarkets } from '../bin/history-upkeep.js'
import { apply } from '../core/apply.js'
import type { Entry } from '../core/commands.js'
import { PROJECTION_LIMITS } from '../core/limits.js'
import { createState } from '../core/state.js'
import { createProjections } from '../replica/projections/index.js'
import { DEFAULT_WORKLOAD, generateWorkload } from '../sim/workload.js'
import { fixed, int, table, type Benchmark, type BenchSummary } from './lib/bench.js'

const COMMANDS = 1_000_000
const DAYS = 200
const DAY_MS = 86_400_000
const T0 = Date.UTC(2026, 0, 1)
/** Entries fed before each flush: about what a node's projections take per write under load. */
const FLUSH_EVERY = 2_000

/** `level` is classic-level on Node, which compacts a key range; its browser typings do not say so. */
interface Compactable {
  compactRange(start: Buffer, end: Buffer, options: { keyEncoding: 'buffer' }): Promise<void>
}

const megabytes = (dir: string): number => Number(execFileSync('du', ['-sk', dir]).toString().split('\t')[0]) / 1024

/** Rows in each store of interest, counted through a database of their own (the projections closed). */
async function rowCounts(dir: string): Promise<Record<string, number>> {
  const db = new Level<Buffer, Buffer>(dir, { keyEncoding: 'buffer', valueEncoding: 'buffer' })
  const base = db.sublevel<Buffer, Buffer>('projections', { keyEncoding: 'buffer', valueEncoding: 'buffer' })
  const out: Record<string, number> = {}
  try {
    for (const name of ['orders', 'clientOrderIds', 'closedOrders', 'trades', 'userTrades', 'incomeByType']) {
      let n = 0
      for await (const _ of base.sublevel<Buffer, Buffer>(name, { keyEncoding: 'buffer', valueEncoding: 'buffer' }).keys()) n++
      out[name] = n
    }
    // What LevelDB holds once its compactions have caught up with the deletes.
    await (db as unknown as Compactable).compactRange(Buffer.alloc(0), Buffer.alloc(64, 0xff), { keyEncoding: 'buffer' })
  } finally {
    await db.close()
  }
  return out
}

async function run(out: (line: string) => void): Promise<BenchSummary> {
  const root = await mkdtemp(path.join(tmpdir(), 'bench-history-'))
  const dir = path.join(root, 'projections')
  try {
    const w = generateWorkload({ ...DEFAULT_WORKLOAD, commands: COMMANDS })
    const commands = [...w.setup, ...w.stream]
    const state = createState()
    let p = await createProjections(dir)
    const step = (DAYS * DAY_MS) / commands.length
    const t0 = performance.now()
    let orders = 0
    for (let i = 0; i < commands.length; i++) {
      const e: Entry = { seq: i + 1, time: T0 + Math.floor(i * step), command: commands[i]! }
      const r = apply(state, e)
      for (const ev of r.events) if (ev.type === 'order' && ev.execType === 'NEW') orders++
      p.apply(e.seq, e.time, r.events)
      if (i % FLUSH_EVERY === FLUSH_EVERY - 1) await p.flush()
    }
    await p.flush()
    const writeS = (performance.now() - t0) / 1000
    const busiest = { account: w.accounts[0]!, sub: 0 }
    const page = async (): Promise<number> => {
      const q0 = performance.now()
      for (let i = 0; i < 20; i++) await p.allOrders(busiest, 1, { limit: 1000, spot: false })
      return (performance.now() - q0) / 20
    }
    const pageBefore = await page()
    await p.close()
    const before = await rowCounts(dir)
    const mbBefore = megabytes(dir)

    p = await createProjections(dir)
    const markets = retainedMarkets(state)
    const p0 = performance.now()
    let pruned = 0
    let calls = 0
    for (;;) {
      const n = await p.prune(undefined, markets)
      pruned += n
      calls++
      if (n < PROJECTION_LIMITS.pruneKeysMax) break
    }
    const pruneS = (performance.now() - p0) / 1000
    const mbPruned = megabytes(dir)
    const pageAfter = await page()
    await p.close()
    const after = await rowCounts(dir)
    const mbAfter = megabytes(dir)

    out(`history: the read models of ${int(COMMANDS)} core workload commands (${int(orders)} orders) over ${DAYS} days, ` +
      `written as a node's projections write them (${fixed(writeS, 1)} s), then pruned as of the last entry`)
    out('')
    for (const line of table(['rows', 'kept for good', 'pruned'], Object.keys(before).map((k) => [k, int(before[k]!), int(after[k]!)]))) out(line)
    out('')
    for (const line of table(['prune', 'figure'], [
      ['rows deleted (calls)', `${int(pruned)} (${calls})`],
      ['time, s', fixed(pruneS, 2)],
      ['rows deleted/s', int(pruned / pruneS)],
      ['disk before (compacted), MB', fixed(mbBefore, 1)],
      ['disk just after, MB', fixed(mbPruned, 1)],
      ['disk after (compacted), MB', fixed(mbAfter, 1)],
      ['allOrders page of the busiest account, ms (before → just after)', `${fixed(pageBefore, 2)} → ${fixed(pageAfter, 2)}`],
    ])) out(line)
    return {
      bench: 'history', orders, prunedRows: pruned, prunedPerSec: Math.round(pruned / pruneS),
      ordersKept: after.orders!, ordersBefore: before.orders!, mbBefore: Number(mbBefore.toFixed(1)), mbAfter: Number(mbAfter.toFixed(1)),
    }
  } finally {
    await rm(root, { recursive: true, force: true })
  }
}

export const benchmark: Benchmark = { name: 'history', run }
