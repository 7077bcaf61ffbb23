// `exchange export-log --data <dir> --out <file>`: writes the whole log, from genesis, as one
// file anyone can audit (`exchange audit --log <file>`); see chain/log-file.ts for the format.
// With `--follow <replication URL>`, the log of a running sequencer as it stood then, read over
// its internal link (replica/log-download.ts): no stop needed.

import path from 'node:path'
import { writeLogFile } from '../chain/log-file.js'
import { OperatorError } from './operator-error.js'
import { LevelLogStore } from '../replica/level-log.js'
import { downloadLog } from '../replica/log-download.js'
import type { Network } from '../replica/network.js'

export async function exportLog(dataDir: string, outFile: string): Promise<number> {
  const log = new LevelLogStore(path.join(dataDir, 'log'))
  await log.open()
  try {
    if (log.firstSeq !== 1) throw new Error(`the log starts at ${log.firstSeq}: an export needs it from genesis`)
    return await writeLogFile(outFile, log.readBatches(1))
  } finally {
    await log.close()
  }
}

/** The running sequencer's log at `url` (its replication endpoint), from genesis to its end when asked. */
export async function exportLogFromSequencer(network: Network, url: string, outFile: string): Promise<number> {
  try {
    return await writeLogFile(outFile, downloadLog(network, url))
  } catch (err) {
    // Said as it is (a refused link, a log that no longer starts at genesis, a bad hash), not as a stack.
    if ((err as { code?: string }).code !== undefined) throw err
    throw new OperatorError(`export from ${url}: ${(err as Error).message}`)
  }
}
