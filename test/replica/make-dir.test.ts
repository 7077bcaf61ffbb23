// makeDir: `mkdir -p` that answers where Node's recursive mkdir hangs (replica/make-dir.ts).

import t from 'tap'
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { makeDir } from '../../replica/make-dir.js'

t.test('makes missing parents, accepts a directory that is there, refuses a file', async (t) => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'make-dir-'))
  t.teardown(() => rmSync(root, { recursive: true, force: true }))
  const deep = path.join(root, 'a', 'b', 'c')
  await makeDir(deep)
  t.ok(statSync(deep).isDirectory())
  await makeDir(deep)
  await makeDir(root + '/a/')
  const file = path.join(root, 'file')
  writeFileSync(file, '')
  await t.rejects(makeDir(file), { code: 'ENOTDIR', path: file })
  await t.rejects(makeDir(path.join(file, 'below')), { code: 'ENOTDIR' })
  // Ten at once on the same new path: none fails because another made it first.
  await Promise.all(Array.from({ length: 10 }, () => makeDir(path.join(root, 'x', 'y', 'z'))))
  t.ok(statSync(path.join(root, 'x', 'y', 'z')).isDirectory())
})

t.test('a directory the kernel will not make under an existing parent is refused, not waited on', { timeout: 10_000 }, async (t) => {
  await t.rejects(makeDir('/proc/make-dir-test/below'), { code: 'ENOENT', path: '/proc/make-dir-test' })
})
