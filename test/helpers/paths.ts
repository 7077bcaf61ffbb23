// Files of the checkout, named alike from the test sources and from their compiled copies in
// dist/test, which are what tap runs (package.json).

import { existsSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

function findRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${from}`)
  }
}

/** The checkout's root: the nearest folder above this file with a package.json. */
export const ROOT = findRoot(path.dirname(fileURLToPath(import.meta.url)))
/** The compiled tree. */
export const DIST = path.join(ROOT, 'dist')
/** The `exchange` command. */
export const EXCHANGE_BIN = path.join(ROOT, 'bin', 'exchange.js')

/**
 * The environment for a process a test starts: the runner's own, less the loader hooks tap adds
 * to NODE_OPTIONS, so the process runs as users run it (and starts ~1 s sooner).
 */
export function childEnv(): NodeJS.ProcessEnv {
  const options = (process.env.NODE_OPTIONS ?? '').split(/\s+/).filter((o) => o !== '' && !o.includes('@tapjs/'))
  return { ...process.env, NODE_OPTIONS: options.join(' ') }
}
