// The log entry: `{seq, time, command, prevHash, hash}` with hash = SHA-256(prevHash ‖ body),
// body being the msgpack encoding of [seq, time, command]. The chain makes any change to
// any entry visible at every later one.

import { hash } from 'node:crypto'
import { Packr } from 'msgpackr'
import type { Command } from '../core/commands.js'

export interface LogEntry {
  seq: number
  time: number
  command: Command
  prevHash: Uint8Array
  hash: Uint8Array
}

/** The hash before the first entry. */
export const GENESIS_HASH: Uint8Array = new Uint8Array(32)

// Plain maps and arrays only, so the bytes depend on nothing but the values.
export const packr = new Packr({ useRecords: false })

export function encodeBody(seq: number, time: number, command: Command): Uint8Array {
  return packr.pack([seq, time, command])
}

export function chainHash(prevHash: Uint8Array, body: Uint8Array): Uint8Array {
  // One-shot hashing of one buffer is markedly cheaper than a Hash object per entry.
  const buf = Buffer.allocUnsafe(prevHash.length + body.length)
  buf.set(prevHash, 0)
  buf.set(body, prevHash.length)
  return hash('sha256', buf, 'buffer')
}

/** Builds the entry that follows `prevHash`. */
export function makeEntry(seq: number, time: number, command: Command, prevHash: Uint8Array): LogEntry {
  return { seq, time, command, prevHash, hash: chainHash(prevHash, encodeBody(seq, time, command)) }
}

export function sameHash(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

export function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex')
}
