// `exchange replica --follow` at a URL the sequencer turns away (a path it does not serve): the
// follower says so once and asks less and less often, where it logged "unknown path … reconnecting"
// and asked again every 200 ms for ever.

import t from 'tap'
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { RECONNECT_MAX_MS } from '../../replica/follower.js'
import { freePort } from '../../replica/free-port.js'
import { linkToken, wsNetworkWith } from '../../replica/ws-network.js'
import { startExchange } from '../helpers/processes.js'

t.test('a follower turned away: warned once, its connects backed off', { timeout: 60_000 }, async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'turned-away-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const secret = Buffer.alloc(32, 0x44)
  // The sequencer's link port as it answers a path it does not serve (replica/replica.ts).
  const connects: number[] = []
  const link = await wsNetworkWith(linkToken(secret)).listen('127.0.0.1', 0, (conn, at) => {
    connects.push(Date.now())
    conn.close(`unknown path ${at}`)
  })
  t.teardown(() => link.close())
  const node = startExchange(['replica', '--follow', `${link.url}/wrong`, '--data', dir, '--master-secret', secret.toString('hex'),
    '--port', String(await freePort()), '--replication-port', String(await freePort()), '--metrics-port', String(await freePort())])
  t.teardown(() => node.kill())
  await node.waitFor((l) => l.msg === 'follower running')
  // Connects 200, 400, 800 ms apart (at a fixed 200 ms, the third gap was 200 too).
  while (connects.length < 4) await new Promise((r) => setTimeout(r, 50))
  const gaps = connects.slice(1).map((at, i) => at - connects[i]!)
  gaps.forEach((gap, i) => t.ok(gap >= Math.min(200 * 2 ** i, RECONNECT_MAX_MS) - 5, `connect ${i + 2} came ${gap} ms after the one before`))
  const warnings = node.lines.filter((l) => l.level === 40)
  t.same(warnings.map((l) => [l.msg, l.reason]), [['cannot connect to the sequencer; retrying', 'unknown path /wrong']], 'said once')
})
