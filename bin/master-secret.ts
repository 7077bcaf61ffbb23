// The gateway master secret, apart from the runtime: the commands that only talk to a running
// node (`account`, `withdraw-fees`, `audit --follow`, `export-log --follow`) need it, and would
// otherwise load the whole runtime (LevelDB, the projections, the replica: ~100 files more) for it.

import { randomBytes } from 'node:crypto'
import { readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { makeDir } from '../replica/make-dir.js'
import type { Config } from './config.js'
import { OperatorError } from './operator-error.js'

/**
 * The gateway master secret: EXCHANGE_MASTER_SECRET (hex) when set, else a random one kept in
 * the data directory so restarts keep every session's secret valid. Gateways that serve the
 * same sessions must share it.
 */
export async function masterSecret(config: Config): Promise<Uint8Array> {
  return (await loadMasterSecret(config)).secret
}

/** masterSecret, and the file it was written to if this call made it (a data directory without one). */
export async function loadMasterSecret(config: Config): Promise<{ secret: Uint8Array; madeIn?: string }> {
  if (config.masterSecretHex) return { secret: Buffer.from(config.masterSecretHex, 'hex') }
  const file = path.join(config.dataDir, 'gateway-secret')
  try {
    return { secret: Buffer.from((await readFile(file, 'utf8')).trim(), 'hex') }
  } catch {
    const secret = randomBytes(32)
    await makeDir(config.dataDir)
    await writeFile(file, secret.toString('hex') + '\n', { mode: 0o600 })
    return { secret, madeIn: file }
  }
}

/**
 * The master secret of the running node a command connects to: --master-secret, or the node's
 * own file in --data. Never made: a fresh one could only be refused by the node (401), and
 * would be left behind in a directory that may not even be the node's.
 */
export async function runningNodeSecret(config: Config): Promise<Uint8Array> {
  if (config.masterSecretHex) return Buffer.from(config.masterSecretHex, 'hex')
  const file = path.join(config.dataDir, 'gateway-secret')
  try {
    return Buffer.from((await readFile(file, 'utf8')).trim(), 'hex')
  } catch (err) {
    if ((err as { code?: string }).code !== 'ENOENT' && (err as { code?: string }).code !== 'ENOTDIR') throw err
    throw new OperatorError(`there is no gateway-secret at ${file}: give the running node's --master-secret, or its --data (the directory holding its gateway-secret)`)
  }
}
