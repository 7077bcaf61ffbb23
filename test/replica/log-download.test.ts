// The log of a running sequencer read over its replication link (replica/log-download.ts):
// from genesis to where it stood when asked, every entry with its hash, while the sequencer
// goes on; and said plainly when the log no longer starts at genesis, when a hash does not
// match, when the sequencer closes the link, or when it never says where its log ends (a link
// refused for another master secret: test/chain/live-proof.test.ts).

import t from 'tap'
import { hex, type LogEntry } from '../../replica/entry.js'
import { downloadLog } from '../../replica/log-download.js'
import { encodeBatchMessage, encodeMessage, REPLICATION_PATH } from '../../replica/replication.js'
import { wsNetwork } from '../../replica/ws-network.js'
import { deposit, leader, order, truncatedLeader, until } from '../helpers/replication-rig.js'

async function all(batches: AsyncIterable<LogEntry[]>): Promise<LogEntry[]> {
  const out: LogEntry[] = []
  for await (const b of batches) out.push(...b)
  return out
}

const summary = (entries: readonly LogEntry[]) => entries.map((e) => [e.seq, hex(e.hash), hex(e.prevHash)])

t.test('from genesis to the end when asked, hashes as the sequencer stores them, while it goes on', async (t) => {
  const L = await leader(t)
  await L.submit(Array.from({ length: 300 }, (_, i) => deposit(i)))
  await until(() => L.log.lastSeq === L.node.state.seq)
  const end = L.log.lastSeq
  const reading = all(downloadLog(wsNetwork, L.url))
  // Entries sequenced while the download runs are past its end.
  const more = L.submit(Array.from({ length: 50 }, (_, i) => order(i)))
  const got = await reading
  await more
  t.equal(got[0]!.seq, 1, 'from genesis')
  t.ok(got.length >= end, `${got.length} entries, at least the ${end} there when it connected`)
  t.same(summary(got), summary(await L.log.read(1, got.length)), 'each entry with its hash and link, as stored')
  t.ok(L.log.lastSeq > got.length || got.length === L.log.lastSeq, 'what came after its end is left out')
  t.same(summary(await all(downloadLog(wsNetwork, L.url.replace(REPLICATION_PATH, '/')))), summary(await L.log.read(1, L.log.lastSeq)),
    'the base URL works too (a trailing slash as well), and a second download reads the log as it is now')
})

t.test("a log that no longer starts at genesis, a forged batch, a closed link, a sequencer that never says its end", async (t) => {
  const { L, snapshotSeq } = await truncatedLeader(t)
  await t.rejects(all(downloadLog(wsNetwork, L.url)), new RegExp(`no longer starts at genesis \\(it sent a snapshot at ${snapshotSeq}\\)`))

  // A server that sends a batch whose body does not match its hash, and one that never says where its log ends.
  const entries = await L.log.read(L.log.firstSeq, L.log.firstSeq + 1)
  const forged = await wsNetwork.listen('127.0.0.1', 0, (conn) => conn.onMessage(() => {
    const e = { ...entries[0]!, seq: 1 }
    conn.send(encodeBatchMessage([e]))
  }))
  t.teardown(() => forged.close())
  await t.rejects(all(downloadLog(wsNetwork, forged.url)), /refused at seq 1/)
  const silent = await wsNetwork.listen('127.0.0.1', 0, () => {})
  t.teardown(() => silent.close())
  await t.rejects(all(downloadLog(wsNetwork, silent.url, 200)), /said nothing for 200 ms and never where its log ends/)
  const closing = await wsNetwork.listen('127.0.0.1', 0, (conn) => conn.onMessage(() => {
    conn.send(encodeMessage(['error', 'sequencer shutting down']))
    conn.close('sequencer shutting down')
  }))
  t.teardown(() => closing.close())
  await t.rejects(all(downloadLog(wsNetwork, closing.url)), /the sequencer refused: sequencer shutting down/)
})
