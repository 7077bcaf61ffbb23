// A node that keeps only the newest entries of its log (`--log-keep`): older ones move into
// archive segments while it runs, within what is anchored. The auditor audits the archive and
// then the running node's log after it against the Vault; an export of the node's log alone is
// refused, saying where the rest is, and so is a new replica with nothing, until it is started
// with the archive to catch up from; one made from the archive (`exchange restore`) follows on
// from the archive's end with the whole history; and the node restarts on its cut log with the
// same answers.

import t from 'tap'
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { freePort } from '../../replica/free-port.js'
import { exchangeCli as cli, explained, restartableNode, scrapeGauges, signedRequest, startExchange, type DemoAccount } from '../helpers/processes.js'

const SECRET = '77'.repeat(32)
// Ticks every 50 ms: 10 s of log.
const KEEP = 200
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

t.test('an archiving node: audited from its archive and log, a replica made from the archive, a restart on the cut log', { timeout: 180_000 }, (t) => explained(t, async (t, procs) => {
  // Ticks every 50 ms and a checkpoint every 25 entries: the log passes the keep within seconds.
  const node = await restartableNode(t, 'log-archive', SECRET, ['--log-keep', String(KEEP), '--checkpoint-interval', '25',
    '--tick-ms', '50', '--anchor-interval-ms', '500', '--chain-poll-ms', '50'])
  await node.start()
  procs.push(node.proc)
  const chain = await node.proc.waitFor((l) => l.msg === 'chain services running', 30_000)
  const [rpc, vault] = [chain.rpc as string, chain.vault as string]
  const demo = await node.demo()

  // History made early, so it ends up in the archive.
  const order = (price: string): Record<string, string> =>
    ({ symbol: 'BTCUSDTPERP', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.010', price })
  const placed = await node.call(demo, 'POST', '/fapi/v1/order', order('20000'))
  t.equal(placed.status, 200, JSON.stringify(placed.body))
  t.equal((await node.call(demo, 'DELETE', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', orderId: String(placed.body.orderId) })).status, 200)
  t.equal((await node.call(demo, 'POST', '/fapi/v1/order', order('21000'))).status, 200)
  const history = async (call: (who: DemoAccount, m: string, p: string, q?: Record<string, string>) => Promise<{ body: any }>): Promise<unknown> =>
    (await call(demo, 'GET', '/fapi/v1/allOrders', { symbol: 'BTCUSDTPERP' })).body
  const orders = await history(node.call)
  t.equal((orders as unknown[]).length, 2, 'a canceled order and a resting one')
  const madeAt = (await scrapeGauges(node.metrics)).exchange_seq!

  // The log is cut past that history (and at most to what is anchored).
  let gauges = await scrapeGauges(node.metrics)
  for (let i = 0; i < 300 && gauges.exchange_log_first_seq! <= madeAt + 1; i++) {
    await sleep(100)
    gauges = await scrapeGauges(node.metrics)
  }
  const firstSeq = gauges.exchange_log_first_seq!
  t.ok(firstSeq > madeAt + 1, `the log now starts at ${firstSeq}, after the orders (seq ${madeAt})`)
  t.ok(firstSeq - 1 <= gauges.exchange_anchored_seq!, `never past what is anchored (${gauges.exchange_anchored_seq})`)
  t.ok(gauges.exchange_seq! - firstSeq + 1 >= KEEP, `it keeps at least ${KEEP} entries (${gauges.exchange_seq! - firstSeq + 1})`)
  t.ok(gauges.exchange_log_segments_archived_total! >= 1, 'counted')
  t.ok(gauges['exchange_disk_free_bytes{dir="data"}']! > 0 && gauges['exchange_disk_free_bytes{dir="log-archive"}']! > 0,
    'the free space of the data\'s disk and the archive\'s')
  t.equal(gauges['exchange_disk_size_bytes{dir="log-archive"}'], gauges['exchange_disk_size_bytes{dir="data"}'], 'here one disk')
  const archive = path.join(node.dir, 'log-archive')
  const segments = (await readdir(archive)).filter((n) => n.endsWith('.log.gz')).sort()
  t.match(segments[0], /^000000000001-\d{12}\.log\.gz$/, `segments from genesis: ${segments.join(', ')}`)
  const served = await node.call(demo, 'GET', '/fapi/v1/allOrders', { symbol: 'BTCUSDTPERP' })
  t.same([served.status, served.body], [200, orders], 'history is served as before')

  // The auditor: the archive, then the node's log from where it ends, against the Vault.
  const link = `ws://127.0.0.1:${node.repl}/replication`
  const audit = await cli(['audit', '--log', archive, '--follow', link, '--master-secret', SECRET, '--rpc', rpc, '--vault', vault])
  t.equal(audit.code, 0, audit.stdout + audit.stderr)
  t.match(audit.stdout, /^audit of .*log-archive then ws:\/\/127\.0\.0\.1:\d+\/replication\n  entries +\d+ replayed, hash chain intact/)
  t.match(audit.stdout, /anchors +(\d+) of \1 on \S+ match/)
  t.notMatch(audit.stdout, /anchors +0 of/)
  t.match(audit.stdout, /PASS\n$/)
  // The node's log alone is no longer whole: an export says where the rest is.
  const exported = await cli(['export-log', '--follow', link, '--master-secret', SECRET, '--out', path.join(node.dir, 'x.log')])
  t.equal(exported.code, 1)
  t.match(exported.stderr, /no longer starts at genesis \(it sent a snapshot at \d+\): an export needs it whole; read what its archiver moved out first/)

  // A new replica with nothing: the node no longer has the entries its history needs, and it stops saying so.
  const empty = await mkdtemp(path.join(os.tmpdir(), 'empty-replica-'))
  t.teardown(() => rm(empty, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }))
  const refused = startExchange(['replica', '--data', empty, '--port', String(await freePort()), '--metrics-port', String(await freePort()),
    '--follow', link, '--master-secret', SECRET])
  procs.push(refused)
  await refused.exited
  t.equal(refused.child.exitCode, 1)
  const said = refused.lines.map((l) => String(l.err ?? l.msg)).join('\n') + refused.stderr()
  t.match(said, /the sequencer's log no longer reaches back to seq 1 \(it sent a snapshot at \d+: its archiver, --log-keep, moved what came before into its archive\), and its history read models need every entry: start it with --catch-up-from <the archive's directory>, or make it again from the archive/)

  // Started again with the archive to catch up from (where the operator keeps it), just after a
  // cut: it appends what it lacks, then follows from the archive's end.
  let seen = node.proc.lines.length
  await node.proc.waitFor((l) => l.msg === 'log archived and cut' && node.proc.lines.indexOf(l) >= seen, 30_000)
  const emptyApi = await freePort()
  const caughtUp = startExchange(['replica', '--data', empty, '--port', String(emptyApi), '--metrics-port', String(await freePort()),
    '--follow', link, '--master-secret', SECRET, '--catch-up-from', archive])
  procs.push(caughtUp)
  const appended = await caughtUp.waitFor((l) => l.msg === 'caught up from the log archive', 30_000)
  t.ok(Number(appended.appended) > madeAt, `appended ${appended.appended} entries from the archive`)
  await caughtUp.waitFor((l) => l.msg === 'follower running', 30_000)
  t.same(await history((who, m, p, q) => callAt(emptyApi, who, m, p, q)), orders, 'its history whole')
  await caughtUp.kill()

  // A new replica: the archive restored, then following the node from its end. Taken just after
  // a cut, so the node's log still reaches back to the archive's end until the next, some KEEP
  // entries later, by when the replica follows live.
  const dir = await mkdtemp(path.join(os.tmpdir(), 'from-archive-'))
  t.teardown(() => rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }))
  seen = node.proc.lines.length
  await node.proc.waitFor((l) => l.msg === 'log archived and cut' && node.proc.lines.indexOf(l) >= seen, 30_000)
  const restored = await cli(['restore', '--log', archive, '--data', dir])
  t.equal(restored.code, 0, restored.stderr)
  const [api, metrics] = [await freePort(), await freePort()]
  // It archives too, into its own data directory.
  const replica = startExchange(['replica', '--data', dir, '--port', String(api), '--metrics-port', String(metrics),
    '--follow', link, '--master-secret', SECRET, '--log-keep', String(KEEP)])
  procs.push(replica)
  await replica.waitFor((l) => l.msg === 'follower running', 30_000)
  t.notOk(replica.lines.some((l) => l.msg === 'installing snapshot from the sequencer'), 'it went on from the archive, no snapshot')
  t.same(await history((who, m, p, q) => callAt(api, who, m, p, q)), orders, 'the replica serves the whole history, the archived part too')
  let own = await scrapeGauges(metrics)
  for (let i = 0; i < 300 && own.exchange_log_first_seq! === 1; i++) {
    await sleep(100)
    own = await scrapeGauges(metrics)
  }
  t.ok(own.exchange_log_first_seq! > 1, `the replica cut its own log too, at ${own.exchange_log_first_seq! - 1}`)
  t.ok(own.exchange_log_first_seq! - 1 <= own.exchange_anchored_seq!, `within what its sequencer says is anchored (${own.exchange_anchored_seq})`)
  t.match((await readdir(path.join(dir, 'log-archive')))[0], /^000000000001-\d{12}\.log\.gz$/)

  // The node restarts on its cut log: from the snapshot at its base or later.
  await node.proc.kill()
  await node.start()
  procs.push(node.proc)
  t.same(await history(node.call), orders, 'the same history after the restart')
  const after = await scrapeGauges(node.metrics)
  t.ok(after.exchange_log_first_seq! >= firstSeq, `still cut (${after.exchange_log_first_seq})`)
  // Stopped, its cut log is no log from genesis for the tools that replay one.
  await node.proc.kill()
  const offline = await cli(['export-log', '--data', node.dir, '--out', path.join(node.dir, 'x.log')])
  t.equal(offline.code, 1)
  t.match(offline.stderr, /starts at \d+: an export needs it from genesis \(what came before is in the node's log archive, --log-keep: give that directory as --log/)
}))

function callAt(port: number, who: DemoAccount, method: string, p: string, params: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  return signedRequest(`http://127.0.0.1:${port}`, who, method, p, params)
}
