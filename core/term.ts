// A leader's term in the log (Lead): the epoch the consensus service gave the sequencer that
// wrote the entries after it (replica/leadership.ts). Kept in the state and its snapshots, so a
// node knows the newest term its log reached without reading the log; not a leaf of the root,
// which covers what the exchange holds, not who wrote it.

import type { Lead } from './commands.js'
import type { Result } from './events.js'
import { accept, reject } from './results.js'
import type { State } from './state.js'

/** Node ids as `--node-id` takes them. */
const NODE_ID = /^[A-Za-z0-9._:-]{1,128}$/

export function lead(state: State, cmd: Lead): Result {
  if (!Number.isSafeInteger(cmd.epoch) || cmd.epoch <= state.epoch || typeof cmd.node !== 'string' || !NODE_ID.test(cmd.node)) {
    return reject('EPOCH_INVALID')
  }
  state.epoch = cmd.epoch
  return accept([])
}
