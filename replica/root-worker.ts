// The checkpoint root's thread (see root-hasher.ts): restores a checkpoint's snapshot bytes and
// computes their state root, so the thread that sequences and applies only encodes them.

import { parentPort } from 'node:worker_threads'
import { stateRoot } from '../core/root.js'
import { decodeSnapshot } from '../core/snapshot.js'
import type { RootReply, RootRequest } from './root-hasher.js'
import { nameThread } from './thread-name.js'
import { lowerThreadPriority } from './thread-priority.js'

// A root may come a little later; applying should not wait for a core (thread-priority.ts).
lowerThreadPriority()
nameThread('root-hasher')

parentPort!.on('message', (m: RootRequest) => {
  let reply: RootReply
  try {
    reply = { id: m.id, root: stateRoot(decodeSnapshot(m.bytes)) }
  } catch (err) {
    reply = { id: m.id, error: (err as Error).message }
  }
  parentPort!.postMessage(reply)
})

parentPort!.postMessage({ id: 0, up: true } satisfies RootReply)
