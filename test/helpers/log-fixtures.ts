// Entry builders for the log store tests: valid chains of small Deposit commands, a plain
// view of an entry (hashes as hex) that compares the same whatever the byte container, and a
// stopped node's whole log read from its data directory.

import type { Command } from '../../core/commands.js'
import { hex, makeEntry, type LogEntry } from '../../replica/entry.js'
import type { LogStore } from '../../replica/log-store.js'
import { LevelLogStore } from '../../replica/level-log.js'
import path from 'node:path'
import { ALICE, T0 } from './exchange.js'

export function command(seq: number, salt = ''): Command {
  return { type: 'Deposit', account: ALICE, sub: 0, asset: 'USDT', amount: seq, wallet: 'PERP', ref: `ref-${salt}${seq}` }
}

/** `n` entries continuing the chain after (fromSeq - 1, prevHash). */
export function chain(fromSeq: number, n: number, prevHash: Uint8Array, salt = ''): LogEntry[] {
  const out: LogEntry[] = []
  for (let i = 0; i < n; i++) {
    const e = makeEntry(fromSeq + i, T0 + fromSeq + i, command(fromSeq + i, salt), prevHash)
    out.push(e)
    prevHash = e.hash
  }
  return out
}

/** Appends one batch per size, continuing the store's chain; returns every entry appended. */
export async function appendBatches(store: LogStore, sizes: number[], salt = ''): Promise<LogEntry[]> {
  const all: LogEntry[] = []
  for (const n of sizes) {
    const batch = chain(store.lastSeq + 1, n, store.lastHash, salt)
    await store.append(batch)
    all.push(...batch)
  }
  return all
}

export interface EntryView {
  seq: number
  time: number
  command: Command
  prevHash: string
  hash: string
}

export const view = (e: LogEntry): EntryView =>
  ({ seq: e.seq, time: e.time, command: e.command, prevHash: hex(e.prevHash), hash: hex(e.hash) })
export const views = (es: LogEntry[]): EntryView[] => es.map(view)

export async function collect(batches: AsyncIterable<LogEntry[]>): Promise<{ entries: LogEntry[], batches: number }> {
  const entries: LogEntry[] = []
  let n = 0
  for await (const b of batches) {
    n++
    entries.push(...b)
  }
  return { entries, batches: n }
}

/** Every entry of the log in a stopped node's data directory, from its first. */
export async function readLogDir(dataDir: string): Promise<LogEntry[]> {
  const log = new LevelLogStore(path.join(dataDir, 'log'))
  await log.open()
  try {
    return (await collect(log.readBatches(log.firstSeq))).entries
  } finally {
    await log.close()
  }
}
