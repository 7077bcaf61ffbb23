// `exchange restore` from an export cut short (a copy that stopped early): one line naming the
// file and where it ends, exit 1, and nothing left behind; msgpackr's end-of-data error had
// killed the process as an unhandled 'error' event, leaving an empty log.restoring.

import t from 'tap'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { genesisLog, writeLog } from '../helpers/node-fixtures.js'
import { exchangeCli } from '../helpers/processes.js'

t.test('a truncated export: not a whole exported log, where it ends, no directory left, exit 1', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'restore-cut-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  await writeLog(path.join(dir, 'node'), genesisLog(), 1_700_000_000_000)
  const whole = path.join(dir, 'whole.msgpack')
  const exported = await exchangeCli(['export-log', '--data', path.join(dir, 'node'), '--out', whole])
  t.equal(exported.code, 0, exported.stderr)
  const bytes = readFileSync(whole)
  // Inside the header (37 bytes), just past it, inside the first record, and halfway.
  for (const [size, where] of [[5, 'its header'], [36, 'its header'], [40, 'record 1'], [60, 'record 1'], [bytes.length >> 1, 'record \\d+']] as const) {
    const file = path.join(dir, `cut-${size}.msgpack`)
    writeFileSync(file, bytes.subarray(0, size))
    const data = path.join(dir, `restored-${size}`)
    const r = await exchangeCli(['restore', '--log', file, '--data', data])
    t.equal(r.code, 1, `${size} bytes: exit 1`)
    t.match(r.stderr, new RegExp(`^exchange: restore from ${file}: ${file} is not a whole exported log: it ends inside ${where}, ` +
      `at byte ${size} \\(truncated or damaged there\\); nothing restored\\n$`), `${size} bytes: one line`)
    t.notOk(existsSync(data), `${size} bytes: no data directory left (it made it)`)
  }
  // Into a directory that was there: it stays, without the log.restoring the restore made in it.
  const into = await exchangeCli(['restore', '--log', path.join(dir, 'cut-40.msgpack'), '--data', dir])
  t.equal(into.code, 1)
  t.notOk(existsSync(path.join(dir, 'log.restoring')), 'no log.restoring left')
  t.ok(existsSync(whole), 'the directory that was there stays')
})
