// The gateway master secret, apart from the runtime: the commands that only talk to a running
// node (`account`, `withdraw-fees`, `session`) need it, and would otherwise load the whole
// runtime (LevelDB, the projections, the replica: ~100 files more) for it.

import { randomBytes } from 'node:crypto'
import { readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { makeDir } from '../replica/make-dir.js'
import type { Config } from './config.js'

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
