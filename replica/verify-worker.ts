// The chain verifier's thread (see chain-verifier.ts): checks the hash chain of stored batches
// from their bytes alone, and writes their bodies to a tape (body-tape.ts), so the main thread
// only builds the commands and applies them.

import { parentPort } from 'node:worker_threads'
import { decodeEnvelope, verifyBodies } from './batch-codec.js'
import { tapeBodies } from './body-tape.js'
import { LogCorruptError } from './chain.js'
import type { VerifyReply, VerifyRequest } from './chain-verifier.js'
import { nameThread } from './thread-name.js'

nameThread('chain-verifier')

const corrupt = (seq: number, reason: string): Error => new LogCorruptError(seq, reason)

parentPort!.on('message', (m: VerifyRequest) => {
  let reply: VerifyReply
  let transfer: ArrayBuffer[] = []
  try {
    const env = decodeEnvelope(m.firstSeq, m.bytes)
    const ends = verifyBodies(m.firstSeq, env.prevHash, env.hashes, env.bodies, corrupt)
    const tape = tapeBodies(env.bodies, ends)
    reply = { id: m.id, ends, tape }
    transfer = [ends.buffer as ArrayBuffer, tape.nums.buffer as ArrayBuffer]
  } catch (err) {
    reply = err instanceof LogCorruptError
      ? { id: m.id, seq: err.seq, reason: err.reason }
      : { id: m.id, seq: m.firstSeq, reason: `verifier failed: ${(err as Error).message}` }
  }
  parentPort!.postMessage(reply, transfer)
})

parentPort!.postMessage({ id: 0, up: true } satisfies VerifyReply)
