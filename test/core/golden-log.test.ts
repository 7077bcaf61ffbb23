// A recorded log replayed against recorded outcomes: how commands already in a log apply must
// not change unnoticed. An exchange anchors the roots its log gave; an auditor replays that log
// with the code of the day. A change that makes an old command apply otherwise (a refusal now
// accepted, a fill now different) gives other roots from that entry on, and the audit fails
// though no one cheated. This test is the tripwire: test/fixtures/golden-log.msgpack.gz holds four
// streams of the simulator's extended command mix, recorded once (session 29, a log declaring
// no rules); golden-log.digests.json holds, per entry, the accept or refusal code and the state
// root after it (a short hash of the two).
//
// A change that trips it changes the rules: the failure names the first entry that differs, and
// the change is to be gated on a new rules version (docs/CORE.md, "Rules versions") so these
// outcomes hold as recorded. `GOLDEN_UPDATE=1 node dist/test/core/golden-log.test.js` records new
// outcomes, for changes only to what no log holds; `GOLDEN_RECORD=1` records the streams
// themselves anew (only when the fixture must change, e.g. genesis commands changed).

import t from 'tap'
import fc from 'fast-check'
import { createHash } from 'node:crypto'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { gunzipSync, gzipSync } from 'node:zlib'
import { Packr } from 'msgpackr'
import { apply } from '../../core/apply.js'
import type { Command, Entry } from '../../core/commands.js'
import { stateRoot } from '../../core/root.js'
import { createState } from '../../core/state.js'
import { commandStream } from '../../sim/model/commands.js'
import { entriesOf } from '../../sim/model/run.js'
import { ROOT } from '../helpers/paths.js'

const LOG_FILE = path.join(ROOT, 'test', 'fixtures', 'golden-log.msgpack.gz')
const DIGEST_FILE = path.join(ROOT, 'test', 'fixtures', 'golden-log.digests.json')
// The log's own body encoding (replica/entry.ts): plain maps and arrays.
const packr = new Packr({ useRecords: false })

type Body = [number, number, Command]

interface Digests {
  /** Per stream: each entry's outcome, 8 hex digits of sha256(code or "ok", "|", root after it), concatenated. */
  streams: string[]
}

function record(): Body[][] {
  const streams = fc.sample(commandStream({ extended: true, minLength: 400, maxLength: 400 }), { seed: 29, numRuns: 4 })
  const logs = streams.map((s) => entriesOf(s).map((e): Body => [e.seq, e.time, e.command]))
  writeFileSync(LOG_FILE, gzipSync(packr.pack(logs)))
  return logs
}

function outcomes(log: readonly Body[]): string {
  const state = createState()
  let out = ''
  for (const [seq, time, command] of log) {
    const entry: Entry = { seq, time, command }
    const r = apply(state, entry)
    out += createHash('sha256').update(`${r.ok ? 'ok' : r.code}|${stateRoot(state)}`).digest('hex').slice(0, 8)
  }
  return out
}

t.test('the recorded log replays to the recorded outcomes, entry by entry', async (t) => {
  const logs = process.env.GOLDEN_RECORD === '1' || !existsSync(LOG_FILE) ? record()
    : packr.unpack(gunzipSync(readFileSync(LOG_FILE))) as Body[][]
  const got: Digests = { streams: logs.map(outcomes) }
  if (process.env.GOLDEN_UPDATE === '1' || process.env.GOLDEN_RECORD === '1') {
    writeFileSync(DIGEST_FILE, JSON.stringify(got, null, 1) + '\n')
    t.comment(`recorded ${logs.map((l) => l.length).join(' + ')} outcomes`)
  }
  const want = JSON.parse(readFileSync(DIGEST_FILE, 'utf8')) as Digests
  t.equal(logs.length, 4)
  for (let s = 0; s < logs.length; s++) {
    const a = got.streams[s]!
    const b = want.streams[s]!
    let i = 0
    while (i * 8 < a.length && a.slice(i * 8, i * 8 + 8) === b.slice(i * 8, i * 8 + 8)) i++
    const same = a === b
    t.ok(same, same ? `stream ${s}: ${logs[s]!.length} entries as recorded`
      : `stream ${s}: entry ${i + 1} of ${logs[s]!.length} applies otherwise than recorded: ${JSON.stringify(logs[s]![i]?.[2])}`)
  }
})
