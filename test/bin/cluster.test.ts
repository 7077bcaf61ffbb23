// `exchange cluster status`, `forget <node>` and `raise-epoch <term>` against a real etcd: the
// status names the leader and its epoch, the standbys and which are up, and while no one leads the
// round's votes and whom the election waits for; forgetting a standby lost for good lets the
// election name a winner, and is refused for a node that is up or leads; raising the epoch makes
// the next leader's epoch pass a given term, and is refused while a node leads. An etcd that does
// not answer, or a URL that is no etcd, is said in a line.

import t from 'tap'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { clusterStatus, forgetStandby, raiseEpoch, RAISE_EPOCH_MAX } from '../../bin/cluster.js'
import { EtcdKv } from '../../bin/etcd.js'
import { systemClock } from '../../replica/clock.js'
import { freePort } from '../../replica/free-port.js'
import { EpochBehindError, Leadership } from '../../replica/leadership.js'
import { etcdSkip, startEtcd, type Etcd } from '../helpers/etcd.js'
import { exchangeCli as cli } from '../helpers/processes.js'

const skip = etcdSkip()
let etcd: Etcd

t.before(async () => {
  if (!skip) etcd = await startEtcd()
})
t.teardown(() => etcd?.stop())

t.test('status, and forgetting a standby lost for good', { skip }, async (t) => {
  const kv = new EtcdKv([etcd.url])
  const node = (name: string): Leadership => new Leadership({ kv, clock: systemClock, prefix: '/blue/', node: name, leaseMs: 2000, syncReplicas: 1,
    onLost: () => {} })
  const a = node('A')
  const s1 = node('S1')
  const s2 = node('S2')
  await Promise.all([a.start(), s1.start(), s2.start()])
  t.teardown(() => Promise.all([a.stop(), s1.stop(), s2.stop()]))
  await s1.join()
  await s2.join()
  const epoch = await a.lead('ws://a:1')

  const leading = await clusterStatus(kv, 'blue')
  t.same(leading, { cluster: 'blue', leader: { epoch, node: 'A', url: 'ws://a:1' }, term: { epoch, syncReplicas: 1 }, standbys: ['S1', 'S2'], up: ['S1', 'S2'] },
    'the leader, its term, the standbys, all up')
  await t.rejects(forgetStandby(kv, 'blue', 'A'), { message: `A leads epoch ${epoch}: stop it first (its standbys then elect another)` })
  await t.rejects(forgetStandby(kv, 'blue', 'S2'), { message: 'S2 is up (its lease is live): stop it first, or let it vote' })

  // The leader and S2 are gone; S1 votes and the election waits for S2, which may hold what S1 lacks.
  await a.stop()
  await s2.stop()
  await s1.vote(epoch, { seq: 40, epoch })
  const waiting = await clusterStatus(kv, 'blue')
  t.same(waiting.election, { round: epoch, votes: [{ node: 'S1', seq: 40, epoch }], winner: null, waitingFor: ['S2'] }, 'no one leads: it waits for S2')
  t.same([waiting.leader, waiting.up], [null, ['S1']])

  // Through the CLI: status as JSON; forgetting a node that is no standby is refused, saying which are.
  const status = await cli(['cluster', 'status', '--etcd', etcd.url, '--cluster', 'blue'])
  t.equal(status.code, 0, status.stderr)
  t.same(JSON.parse(status.stdout), waiting, 'the CLI prints the same status')
  const unknown = await cli(['cluster', 'forget', 'S9', '--etcd', etcd.url, '--cluster', 'blue'])
  t.equal(unknown.code, 1)
  t.match(unknown.stderr, 'no standby S9 in cluster blue; its standbys: S1, S2')
  const forgot = await cli(['cluster', 'forget', 'S2', '--etcd', etcd.url, '--cluster', 'blue'])
  t.equal(forgot.code, 0, forgot.stderr)
  const after = JSON.parse(forgot.stdout) as Awaited<ReturnType<typeof clusterStatus>>
  t.same([after.standbys, after.election?.winner, after.election?.waitingFor], [['S1'], 'S1', []], 'S2 forgotten, the election names S1')
})

t.test('raise-epoch: the next leader\'s epoch passes the term given', { skip }, async (t) => {
  const kv = new EtcdKv([etcd.url])
  const probe = new Leadership({ kv, clock: systemClock, prefix: '/green/', node: 'P', leaseMs: 2000, syncReplicas: 1, onLost: () => {} })
  await probe.start()
  const low = await probe.lead('ws://p:1')
  await probe.stop()
  const term = low + 500
  const behind = new Leadership({ kv, clock: systemClock, prefix: '/green/', node: 'B', leaseMs: 2000, syncReplicas: 1, onLost: () => {} })
  await behind.start()
  await t.rejects(behind.lead('ws://b:1', term), EpochBehindError, 'a claim whose epoch is not above the log\'s term is given up')
  t.equal(await behind.leader(), undefined, 'with its lease: no one leads')
  const raised = await raiseEpoch(kv, 'green', term)
  t.ok(raised.from > low && raised.revision > term && raised.revision <= term + 3, `raised from ${raised.from} to ${raised.revision}, just past ${term}`)
  const again = await raiseEpoch(kv, 'green', term)
  t.equal(again.revision, again.from, 'already past it: nothing written but the reading')

  const a = new Leadership({ kv, clock: systemClock, prefix: '/green/', node: 'A', leaseMs: 2000, syncReplicas: 1, onLost: () => {} })
  await a.start()
  t.teardown(() => a.stop())
  const epoch = await a.lead('ws://a:1')
  t.ok(epoch > term, `the next leader's epoch ${epoch} is above ${term}`)
  await t.rejects(raiseEpoch(kv, 'green', epoch + 10), { message: `A leads epoch ${epoch}: nothing to raise while a node leads` })
  await t.rejects(raiseEpoch(kv, 'green', RAISE_EPOCH_MAX + 1), { message: /raise-epoch takes the log's newest term, an integer in \[1, 10000000\]/ })
})

t.test('an etcd that does not answer, or is no etcd: one line naming it, exit 1 (it was a stack)', async (t) => {
  const port = await freePort()
  t.same(await cli(['cluster', 'status', '--etcd', `http://127.0.0.1:${port}`]), { code: 1, stdout: '',
    stderr: `exchange: cluster status: etcd at http://127.0.0.1:${port} unreachable: fetch failed (ECONNREFUSED)\n` })
  const [a, b] = [await freePort(), await freePort()]
  const raise = await cli(['cluster', 'raise-epoch', '5', '--etcd', `http://127.0.0.1:${a},http://127.0.0.1:${b}`])
  t.same([raise.code, raise.stderr], [1, `exchange: cluster raise-epoch: etcd at http://127.0.0.1:${b} unreachable: fetch failed (ECONNREFUSED)\n`],
    'the last one tried named')
  // A web server where etcd should be: its page is not taken for etcd's JSON.
  const server = createServer((_req, res) => { res.writeHead(404); res.end('<html>not here</html>') })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => server.close())
  const web = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  t.same(await cli(['cluster', 'status', '--etcd', web]), { code: 1, stdout: '',
    stderr: `exchange: cluster status: ${web} is not etcd's client URL: /v3/kv/range answered HTTP 404, not JSON\n` })
})
