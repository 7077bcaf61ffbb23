// A stopped node's log, for the tools that read all of it (audit, replay, export-log, prove):
// only a log that is there and holds entries (LevelLogStore's `existing`), and only one that
// still starts at genesis, since each of them replays or copies it from its first entry.

import path from 'node:path'
import { LevelLogStore } from '../replica/level-log.js'
import { OperatorError } from './operator-error.js'

/** The open log in `dataDir`; `tool` names who needs it in the refusal ("the audit"). The caller closes it. */
export async function openLogFromGenesis(dataDir: string, tool: string): Promise<LevelLogStore> {
  const dir = path.join(dataDir, 'log')
  const log = new LevelLogStore(dir, { existing: true })
  await log.open()
  if (log.firstSeq !== 1) {
    await log.close()
    throw new OperatorError(`the log in ${dir} starts at ${log.firstSeq}: ${tool} needs it from genesis ` +
      '(what came before is in the node\'s log archive, --log-keep: give that directory as --log, or restore it into a new data directory)')
  }
  return log
}
