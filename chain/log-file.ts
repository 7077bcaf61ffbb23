// The exported log file (`exchange export-log`, `exchange audit --log`): a msgpack stream, a
// header map then one array per entry, [prevHash, hash, body], body being exactly the bytes
// the entry's hash covers (msgpack of [seq, time, command]). Keeping the bytes, not a
// re-encoding, lets anyone check the hash chain of the file alone.

import { createReadStream, createWriteStream } from 'node:fs'
import { readdir, stat } from 'node:fs/promises'
import path from 'node:path'
import { once } from 'node:events'
import { Packr, UnpackrStream } from 'msgpackr'
import type { Command } from '../core/commands.js'
import { bodyOf, sealEntry, type LogEntry } from '../replica/entry.js'

export const LOG_FILE_FORMAT = 'perp-exchange-log'
export const LOG_FILE_VERSION = 1

const packr = new Packr({ useRecords: false })

/** Writes `batches` to `file`; the number of entries written. */
export async function writeLogFile(file: string, batches: AsyncIterable<LogEntry[]>): Promise<number> {
  const out = createWriteStream(file)
  const write = async (bytes: Uint8Array): Promise<void> => {
    if (!out.write(bytes)) await once(out, 'drain')
  }
  let n = 0
  try {
    await write(packr.pack({ format: LOG_FILE_FORMAT, version: LOG_FILE_VERSION }))
    for await (const batch of batches) {
      for (const e of batch) {
        await write(packr.pack([e.prevHash, e.hash, bodyOf(e)]))
        n++
      }
    }
  } finally {
    out.end()
    await once(out, 'close')
  }
  return n
}

export interface LogFileReader {
  /** Entries in file order, one per batch; bytesRead grows as they come. */
  batches: AsyncIterable<LogEntry[]>
  size: number
  readonly bytesRead: number
}

function bytes(v: unknown, what: string, index: number): Uint8Array {
  if (!(v instanceof Uint8Array)) throw new Error(`record ${index}: ${what} is not bytes`)
  return v
}

/** An archive segment's name (bin/log-archive.ts): its first and last seq, so names sort in log order. */
export const SEGMENT_NAME = /^(\d{12})-(\d{12})\.log$/

export const segmentName = (first: number, last: number): string =>
  `${String(first).padStart(12, '0')}-${String(last).padStart(12, '0')}.log`

/**
 * Reads a file written by writeLogFile, or a directory of them: a log archive's segments
 * (bin/log-archive.ts), read in seq order as one log. Entries are sealed with their stored
 * bytes; whether they chain, file to file too, is the reader's to check, as for one file.
 */
export async function readLogFile(file: string): Promise<LogFileReader> {
  const info = await stat(file)
  if (!info.isDirectory()) return readOneFile(file, info.size)
  const names = (await readdir(file)).filter((n) => SEGMENT_NAME.test(n)).sort()
  if (names.length === 0) throw new Error(`${file} holds no log segments (named like ${segmentName(1, 1000)})`)
  const files = await Promise.all(names.map(async (n) => ({ name: path.join(file, n), size: (await stat(path.join(file, n))).size })))
  let done = 0
  let current: LogFileReader | undefined
  async function* batches(): AsyncGenerator<LogEntry[]> {
    for (const f of files) {
      current = await readOneFile(f.name, f.size)
      try {
        yield* current.batches
      } catch (err) {
        throw new Error(`${path.basename(f.name)}: ${(err as Error).message}`)
      }
      done += f.size
      current = undefined
    }
  }
  return { batches: batches(), size: files.reduce((n, f) => n + f.size, 0), get bytesRead() { return done + (current?.bytesRead ?? 0) } }
}

async function readOneFile(file: string, size: number): Promise<LogFileReader> {
  const input = createReadStream(file)
  let bytesRead = 0
  input.on('data', (chunk) => { bytesRead += chunk.length })
  const records = input.pipe(new UnpackrStream({ useRecords: false }))
  input.on('error', (err) => records.destroy(err))
  async function* batches(): AsyncGenerator<LogEntry[]> {
    let index = 0
    for await (const rec of records as AsyncIterable<unknown>) {
      if (index === 0) {
        const h = rec as { format?: string; version?: number }
        if (h?.format !== LOG_FILE_FORMAT || h.version !== LOG_FILE_VERSION) throw new Error(`${file} is not an exported log (version ${LOG_FILE_VERSION})`)
      } else {
        if (!Array.isArray(rec) || rec.length !== 3) throw new Error(`record ${index}: not [prevHash, hash, body]`)
        const body = bytes(rec[2], 'body', index)
        const decoded = packr.unpack(body) as unknown
        if (!Array.isArray(decoded) || decoded.length !== 3 || typeof decoded[0] !== 'number' || typeof decoded[1] !== 'number') {
          throw new Error(`record ${index}: body is not [seq, time, command]`)
        }
        yield [sealEntry(decoded[0], decoded[1], decoded[2] as Command, bytes(rec[0], 'prevHash', index), bytes(rec[1], 'hash', index), body)]
      }
      index++
    }
    if (index === 0) throw new Error(`${file} is empty`)
  }
  return { batches: batches(), size, get bytesRead() { return bytesRead } }
}
