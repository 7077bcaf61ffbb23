// The chain verifier's thread (see chain-verifier.ts): checks the hash chain of stored batches
// from their bytes alone, and writes their bodies to a tape (body-tape.ts), so the main thread
// only builds the commands and applies them.

import { parentPort } from 'node:worker_threads'
import { decodeEnvelope, verifyBodies } from './batch-codec.js'
import { tapeBodies, type BodyTape } from './body-tape.js'
import { LogCorruptError } from './chain.js'
import type { VerifyReply, VerifyRequest } from './chain-verifier.js'
import { nameThread } from './thread-name.js'
import { lowerThreadPriority } from './thread-priority.js'

// Its batches are read ahead of the thread applying them; it should not take that thread's
// core (thread-priority.ts).
lowerThreadPriority()
nameThread('chain-verifier')

const corrupt = (seq: number, reason: string): Error => new LogCorruptError(seq, reason)

/**
 * The bodies on a tape, or none if writing it failed: the tape only spares the main thread's
 * decoding, which it then does itself, so a fault here must not pass for a corrupt log.
 */
function tapeOrNone(bodies: Uint8Array, ends: Uint32Array): BodyTape | undefined {
  try {
    return tapeBodies(bodies, ends)
  } catch {
    return undefined
  }
}

parentPort!.on('message', (m: VerifyRequest) => {
  let reply: VerifyReply
  let transfer: ArrayBuffer[] = []
  try {
    const env = decodeEnvelope(m.firstSeq, m.bytes)
    const ends = verifyBodies(m.firstSeq, env.prevHash, env.hashes, env.bodies, corrupt)
    const tape = tapeOrNone(env.bodies, ends)
    reply = { id: m.id, ends, tape }
    transfer = tape === undefined ? [ends.buffer as ArrayBuffer] : [ends.buffer as ArrayBuffer, tape.ints.buffer as ArrayBuffer, tape.floats.buffer as ArrayBuffer]
  } catch (err) {
    reply = err instanceof LogCorruptError
      ? { id: m.id, seq: err.seq, reason: err.reason }
      : { id: m.id, seq: m.firstSeq, reason: `verifier failed: ${(err as Error).message}` }
  }
  parentPort!.postMessage(reply, transfer)
})

parentPort!.postMessage({ id: 0, up: true } satisfies VerifyReply)
