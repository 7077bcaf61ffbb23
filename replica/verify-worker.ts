// The chain verifier's thread (see chain-verifier.ts): checks the hash chain of stored batches
// from their bytes alone, and writes their bodies to a tape (body-tape.ts), so the main thread
// only builds the commands and applies them.

import { parentPort } from 'node:worker_threads'
import { decodeEnvelope, verifyBodies } from './batch-codec.js'
import { tapeBatches, type BodyTape, type TapeBatch } from './body-tape.js'
import { LogCorruptError } from './chain.js'
import type { VerifyReply, VerifyRequest } from './chain-verifier.js'
import { detachEarly } from './detach-early.js'
import { nameThread } from './thread-name.js'
import { lowerThreadPriority } from './thread-priority.js'

// Its batches are read ahead of the thread applying them; it should not take that thread's
// core (thread-priority.ts).
lowerThreadPriority()
nameThread('chain-verifier')
// Its replies hand their buffers over (detach-early.ts).
detachEarly()

const corrupt = (seq: number, reason: string): Error => new LogCorruptError(seq, reason)

/**
 * The bodies on a tape, or none if writing it failed: the tape only spares the main thread's
 * decoding, which it then does itself, so a fault here must not pass for a corrupt log.
 */
function tapeOrNone(batches: TapeBatch[]): { tape: BodyTape, starts: number[] } | undefined {
  try {
    return tapeBatches(batches)
  } catch {
    return undefined
  }
}

parentPort!.on('message', (m: VerifyRequest) => {
  const ends: Uint32Array[] = []
  const batches: TapeBatch[] = []
  let reply: VerifyReply | undefined
  let start = 0
  for (let k = 0; k < m.batches.length && reply === undefined; k += 2) {
    const firstSeq = m.batches[k]!
    const end = m.batches[k + 1]!
    try {
      const env = decodeEnvelope(firstSeq, m.bytes.subarray(start, end))
      const bodyEnds = verifyBodies(firstSeq, env.prevHash, env.hashes, env.bodies, corrupt)
      ends.push(bodyEnds)
      batches.push({ bodies: env.bodies, ends: bodyEnds })
    } catch (err) {
      reply = err instanceof LogCorruptError
        ? { id: m.id, ends, seq: err.seq, reason: err.reason }
        : { id: m.id, ends, seq: firstSeq, reason: `verifier failed: ${(err as Error).message}` }
    }
    start = end
  }
  const transfer: ArrayBuffer[] = ends.map((e) => e.buffer as ArrayBuffer)
  if (reply === undefined) {
    const taped = tapeOrNone(batches)
    reply = { id: m.id, ends, tape: taped?.tape, starts: taped?.starts }
    if (taped !== undefined) transfer.push(taped.tape.ints.buffer as ArrayBuffer, taped.tape.floats.buffer as ArrayBuffer)
  }
  parentPort!.postMessage(reply, transfer)
})

parentPort!.postMessage({ id: 0, up: true } satisfies VerifyReply)
