// The log of a running sequencer, from genesis to where it stood when asked, read over its
// replication link (open to holders of the master secret) as a follower would read it: every
// hash recomputed from the bytes received, nothing skipped. What `exchange export-log
// --follow` writes to a file, so a live exchange's log is exported (and audited) without
// stopping it.

import { GENESIS_HASH, type LogEntry } from './entry.js'
import type { Network } from './network.js'
import { decodeMessage, encodeMessage, REPLICATION_PATH, verifyWire, type Message } from './replication.js'

/**
 * How long to wait for a message before the end is known: the sequencer sends its log's end as
 * soon as it has sent the log, so only a build that does not (before session 32) keeps silent.
 */
export const SILENCE_MS = 15_000

/** Where a download goes on from: the last entry already held (an archive's, read first). */
export interface DownloadFrom {
  seq: number
  hash: Uint8Array
}

/**
 * The sequencer's log from seq 1 (or after `from`) to its end when the link opened, batch by
 * batch. `url`: its replication base URL.
 */
export async function* downloadLog(network: Network, url: string, silenceMs = SILENCE_MS, from?: DownloadFrom): AsyncGenerator<LogEntry[]> {
  const base = url.replace(/\/+$/, '')
  const conn = await network.connect(base.endsWith(REPLICATION_PATH) ? base : base + REPLICATION_PATH)
  const inbox: Message[] = []
  let closed: string | undefined
  let wake: (() => void) | undefined
  conn.onMessage((bytes) => {
    try {
      inbox.push(decodeMessage(bytes))
    } catch (err) {
      closed = (err as Error).message
      conn.close('malformed message')
    }
    wake?.()
  })
  conn.onClose((reason) => {
    closed ??= reason || 'closed'
    wake?.()
  })
  let lastSeq = from?.seq ?? 0
  let lastHash = from?.hash ?? GENESIS_HASH
  let end: number | undefined
  try {
    conn.send(encodeMessage(['hello', lastSeq + 1, ['live']]))
    while (end === undefined || lastSeq < end) {
      const m = inbox.shift()
      if (m === undefined) {
        if (closed !== undefined) throw new Error(`the sequencer closed the link at seq ${lastSeq}: ${closed}`)
        const heard = await new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(false), silenceMs)
          wake = () => { clearTimeout(timer); resolve(true) }
        })
        wake = undefined
        if (!heard && end === undefined) {
          throw new Error(`the sequencer said nothing for ${silenceMs} ms and never where its log ends (a build before export over the link?)`)
        }
        continue
      }
      switch (m[0]) {
        case 'batch': {
          const entries = verifyWire(m, lastSeq, lastHash)
          // Live batches past the end are not part of this download.
          const within = end === undefined ? entries : entries.filter((e) => e.seq <= end!)
          if (within.length === 0) continue
          lastSeq = within[within.length - 1]!.seq
          lastHash = within[within.length - 1]!.hash
          yield within
          continue
        }
        case 'live':
          end = m[1]
          continue
        case 'snapshot':
          throw new Error(from === undefined
            ? `the sequencer's log no longer starts at genesis (it sent a snapshot at ${m[1].seq}): an export needs it whole; ` +
              'read what its archiver moved out first (--log <its --log-archive directory>)'
            : `the sequencer's log no longer reaches back to seq ${from.seq + 1} (it sent a snapshot at ${m[1].seq}): the archive read first ends too early`)
        case 'error':
          throw new Error(`the sequencer refused: ${m[1]}`)
        default:
          // Checkpoint roots and anchors: the audit recomputes and checks them itself.
          continue
      }
    }
  } finally {
    conn.close('download complete')
  }
}
