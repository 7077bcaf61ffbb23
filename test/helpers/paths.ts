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
 * How a test runs `node` in a child process, as users run it: `spawn(NODE, [...NODE_ARGS, file, …])`.
 * tap's processinfo hook (process-on-spawn) puts its module loader back into the NODE_OPTIONS of
 * every child, whatever env the spawn names; that loader made each exchange process start ~1.5 s
 * later on a 2-core host. `env -u NODE_OPTIONS` drops it after the hook has run, and execs node
 * (the child's pid is node's, so signals reach it).
 */
export const NODE = '/usr/bin/env'
export const NODE_ARGS: readonly string[] = ['-u', 'NODE_OPTIONS', process.execPath]
