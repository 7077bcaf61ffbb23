// `exchange export-log --data <dir> --out <file>`: writes the whole log, from genesis, as one
// file anyone can audit (`exchange audit --log <file>`); see chain/log-file.ts for the format.
// With `--follow <replication URL>`, the log of a running sequencer as it stood then, read over
// its internal link (replica/log-download.ts): no stop needed.

import { writeLogFile } from '../chain/log-file.js'
import { OperatorError, saidAs } from './operator-error.js'
import type { LogEntry } from '../replica/entry.js'
import { openLogFromGenesis } from './log-from-genesis.js'
import { downloadLog, SILENCE_MS, type DownloadFrom } from '../replica/log-download.js'
import type { Network } from '../replica/network.js'

/** Writes over an existing `outFile` only with `force` (else an OperatorError: it may be the only copy of a log). */
export async function exportLog(dataDir: string, outFile: string, force = false): Promise<number> {
  const log = await openLogFromGenesis(dataDir, 'an export')
  try {
    return await writeLogFile(outFile, log.readBatches(1), { exclusive: !force }).catch(existsSaid(outFile))
  } finally {
    await log.close()
  }
}

/** export-log's refusal of an --out file that exists (made by another writer after main's first look). */
function existsSaid(outFile: string): (err: Error & { code?: string }) => never {
  return (err) => {
    if (err.code === 'EEXIST') throw new OperatorError(existsMessage(outFile))
    throw err
  }
}

export function existsMessage(outFile: string): string {
  return `${outFile} exists: export-log writes a new file (--force to write over it)`
}

/**
 * A running sequencer's log as batches, its first one read already: a link that cannot be
 * opened (nothing there, another master secret) is the operator's error, said in `context`.
 */
export async function openLogDownload(network: Network, url: string, context: string, from?: DownloadFrom): Promise<AsyncIterable<LogEntry[]>> {
  const it = downloadLog(network, url, SILENCE_MS, from)[Symbol.asyncIterator]()
  let first: IteratorResult<LogEntry[]>
  try {
    first = await it.next()
  } catch (err) {
    throw saidAs(err, context)
  }
  return (async function* () {
    if (first.done) return
    yield first.value
    for (let n = await it.next(); !n.done; n = await it.next()) yield n.value
  })()
}

/** The running sequencer's log at `url` (its replication endpoint), from genesis to its end when asked. */
export async function exportLogFromSequencer(network: Network, url: string, outFile: string, force = false): Promise<number> {
  const context = `export from ${url}`
  try {
    return await writeLogFile(outFile, await openLogDownload(network, url, context), { exclusive: !force }).catch(existsSaid(outFile))
  } catch (err) {
    throw saidAs(err, context)
  }
}
