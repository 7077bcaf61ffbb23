// `exchange export-log --data <dir> --out <file>`: writes the whole log, from genesis, as one
// file anyone can audit (`exchange audit --log <file>`); see chain/log-file.ts for the format.

import path from 'node:path'
import { writeLogFile } from '../chain/log-file.js'
import { LevelLogStore } from '../replica/level-log.js'

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
