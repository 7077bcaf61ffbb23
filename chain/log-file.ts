// The exported log file (`exchange export-log`, `exchange audit --log`): a msgpack stream, a
// header map then one array per entry, [prevHash, hash, body], body being exactly the bytes
// the entry's hash covers (msgpack of [seq, time, command]). Keeping the bytes, not a
// re-encoding, lets anyone check the hash chain of the file alone. The same stream gzipped
// (the log archiver's segments, or an export an operator compressed) reads the same.

import { createReadStream, createWriteStream } from 'node:fs'
import { open, readdir, stat } from 'node:fs/promises'
import path from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { createGunzip, createGzip } from 'node:zlib'
import { Packr, UnpackrStream } from 'msgpackr'
import type { Command } from '../core/commands.js'
import type { CheckedBatch } from '../replica/batch-codec.js'
import { bodyOf, HASH_BYTES, sealEntry, type LogEntry } from '../replica/entry.js'

export const LOG_FILE_FORMAT = 'perp-exchange-log'
export const LOG_FILE_VERSION = 1

const packr = new Packr({ useRecords: false })

/** Writes `batches` to `file` (gzipped with `gzip`); the number of entries written. */
export async function writeLogFile(file: string, batches: AsyncIterable<LogEntry[]>, options: WriteOptions = {}): Promise<number> {
  let n = 0
  async function* records(): AsyncGenerator<Uint8Array> {
    for await (const batch of batches) {
      n += batch.length
      yield packRecords(batch)
    }
  }
  await writeRecords(file, records(), options)
  return n
}

export interface WriteOptions {
  /** Gzipped (what the log's archiver writes). */
  gzip?: boolean
  /** Fails with EEXIST if `file` exists, checked as it is created (no window for another writer). */
  exclusive?: boolean
}

/** Writes the header, then `records` (packed records, packRecords() or packChecked()), to `file`. */
export async function writeRecords(file: string, records: AsyncIterable<Uint8Array>, options: WriteOptions = {}): Promise<void> {
  async function* chunks(): AsyncGenerator<Uint8Array> {
    yield packr.pack({ format: LOG_FILE_FORMAT, version: LOG_FILE_VERSION })
    yield* records
  }
  const source = Readable.from(chunks(), { objectMode: false })
  // A failed write (a full disk) rejects here, and never reaches the process as an unhandled error.
  const out = createWriteStream(file, { flags: options.exclusive ? 'wx' : 'w' })
  if (options.gzip) await pipeline(source, createGzip({ level: 1 }), out)
  else await pipeline(source, out)
}

/**
 * The batch's records, [prevHash, hash, body] each, as msgpack: a fixed array of three bins,
 * written straight into one buffer (packing each record took most of an archiver's time).
 */
export function packRecords(batch: LogEntry[]): Uint8Array {
  const bodies = batch.map(bodyOf)
  const out = Buffer.allocUnsafe(bodies.reduce((n, body) => n + recordSize(body.length), 0))
  let at = 0
  for (let i = 0; i < batch.length; i++) at = writeRecord(out, at, batch[i]!.prevHash, batch[i]!.hash, bodies[i]!)
  return out
}

/** packRecords() for a batch as the log stores it, checked (level-log.ts readStored), its entries never built. */
export function packChecked(batch: CheckedBatch): Uint8Array {
  const { ends, hashes, bodies } = batch
  const startOf = (i: number): number => (i === 0 ? 0 : ends[i - 1]!)
  let size = 0
  for (let i = 0; i < ends.length; i++) size += recordSize(ends[i]! - startOf(i))
  const out = Buffer.allocUnsafe(size)
  let at = 0
  for (let i = 0; i < ends.length; i++) {
    const prevHash = i === 0 ? batch.prevHash : hashes.subarray((i - 1) * HASH_BYTES, i * HASH_BYTES)
    at = writeRecord(out, at, prevHash, hashes.subarray(i * HASH_BYTES, (i + 1) * HASH_BYTES), bodies.subarray(startOf(i), ends[i]!))
  }
  return out
}

/** Bytes of one record whose body is `length` bytes. */
const recordSize = (length: number): number => 1 + 2 * (2 + HASH_BYTES) + binHeader(length) + length

function writeRecord(out: Buffer, at: number, prevHash: Uint8Array, hash: Uint8Array, body: Uint8Array): number {
  if (prevHash.length !== HASH_BYTES || hash.length !== HASH_BYTES) throw new Error(`records hold hashes of ${HASH_BYTES} bytes`)
  out[at++] = 0x93
  at = writeHash(out, at, prevHash)
  at = writeHash(out, at, hash)
  at = writeBinHeader(out, at, body.length)
  out.set(body, at)
  return at + body.length
}

function writeHash(out: Buffer, at: number, hash: Uint8Array): number {
  out[at] = 0xc4
  out[at + 1] = HASH_BYTES
  out.set(hash, at + 2)
  return at + 2 + HASH_BYTES
}

const binHeader = (length: number): number => (length < 0x100 ? 2 : length < 0x10000 ? 3 : 5)

function writeBinHeader(out: Buffer, at: number, length: number): number {
  if (length < 0x100) {
    out[at] = 0xc4
    out[at + 1] = length
    return at + 2
  }
  if (length < 0x10000) {
    out[at] = 0xc5
    out.writeUInt16BE(length, at + 1)
    return at + 3
  }
  out[at] = 0xc6
  out.writeUInt32BE(length, at + 1)
  return at + 5
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
export const SEGMENT_NAME = /^(\d{12})-(\d{12})\.log\.gz$/

export const segmentName = (first: number, last: number): string =>
  `${String(first).padStart(12, '0')}-${String(last).padStart(12, '0')}.log.gz`

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

const GZIP_MAGIC = [0x1f, 0x8b]

async function readOneFile(file: string, size: number): Promise<LogFileReader> {
  const head = Buffer.alloc(2)
  const handle = await open(file, 'r')
  try {
    await handle.read(head, 0, 2, 0)
  } finally {
    await handle.close()
  }
  let bytesRead = 0
  // The streams start when the batches are read: started here, a short file's end (or a
  // damaged one's) reached msgpackr as an 'error' no one listened to yet, and the process died.
  async function* batches(): AsyncGenerator<LogEntry[]> {
    const input = createReadStream(file)
    input.on('data', (chunk) => { bytesRead += chunk.length })
    const records = new UnpackrStream({ useRecords: false })
    input.on('error', (err) => records.destroy(err))
    const gzipped = head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1]
    if (gzipped) {
      const gunzip = createGunzip()
      gunzip.on('error', (err) => records.destroy(new Error(`${file}: ${err.message}`)))
      input.pipe(gunzip).pipe(records)
    } else {
      input.pipe(records)
    }
    let index = 0
    try {
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
    } catch (err) {
      throw (err as { incomplete?: boolean }).incomplete ? cutShort(file, index, gzipped ? undefined : bytesRead) : err
    } finally {
      input.destroy()
    }
    if (index === 0) throw new Error(`${file} is empty`)
  }
  return { batches: batches(), size, get bytesRead() { return bytesRead } }
}

/**
 * A file that ends inside a msgpack value: cut short (a copy stopped early) or damaged there;
 * `at`, its size, unless gzipped (a byte of what it holds, not of the file).
 */
function cutShort(file: string, index: number, at: number | undefined): Error {
  const where = `${index === 0 ? 'its header' : `record ${index}`}${at === undefined ? '' : `, at byte ${at}`}`
  return new Error(`${file} is not a whole exported log: it ends inside ${where} (truncated or damaged there)`)
}
