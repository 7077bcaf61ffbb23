// A build step after `tsc -b` (package.json "build"): deletes what dist/ holds for sources that
// no longer exist. The build is incremental (tsc -b: about 1 s when nothing changed, against
// 20-45 s from scratch, and `npm test` builds after `npm ci` already has), and tsc never removes
// the output of a source deleted or renamed since, which npm test would then still run as a
// test file. Plain JavaScript because it runs after tsc, on what tsc wrote.

import { existsSync, readdirSync, rmSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)))
const dist = path.join(root, 'dist')
/** What tsc writes for a source `x.ts`: `x.js` and its source map (no declarations are emitted). */
const OUTPUT = /\.js(\.map)?$/

let removed = 0
if (existsSync(dist)) {
  for (const file of readdirSync(dist, { recursive: true })) {
    if (!OUTPUT.test(file)) continue
    const source = path.join(root, file.replace(OUTPUT, '.ts'))
    if (existsSync(source)) continue
    rmSync(path.join(dist, file))
    removed++
  }
}
if (removed > 0) console.log(`prune-dist: removed ${removed} outputs of deleted sources from dist/`)
