// `mkdir -p` that fails where it must: Node 20's recursive mkdir loops forever when the kernel
// answers ENOENT for a directory whose parent exists (a --data under /proc, say), so a
// mistyped path hung the node instead of saying what is wrong with it.

import { mkdir, stat } from 'node:fs/promises'
import path from 'node:path'

/** Creates `dir` and any missing parents; an existing directory is fine, anything else throws its system error. */
export async function makeDir(dir: string): Promise<void> {
  try {
    await mkdir(dir)
  } catch (err) {
    const code = (err as { code?: string }).code
    if (code === 'EEXIST') {
      if ((await stat(dir)).isDirectory()) return
      throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${dir}'`), { code: 'ENOTDIR', path: dir })
    }
    const parent = path.dirname(dir)
    if (code !== 'ENOENT' || parent === dir) throw err
    await makeDir(parent)
    // A second ENOENT, with the parent there, is the kernel's refusal: thrown as is.
    await mkdir(dir).catch((again: { code?: string }) => { if (again.code !== 'EEXIST') throw again })
  }
}
