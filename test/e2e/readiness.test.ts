// GET /ready on the metrics port, as a load balancer or a readiness probe reads it: a sequencer
// and its follower answer 200 while they serve fresh state; with the sequencer killed the
// follower answers 503 and says why, and 200 again once a sequencer runs on the same data.
// Told to stop (SIGTERM) with --drain-ms, the follower answers 503 while it still serves, then stops.

import t from 'tap'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { freePort } from '../../replica/free-port.js'
import { restartableNode, startExchange } from '../helpers/processes.js'

const SECRET = '33'.repeat(32)

interface Ready { status: number; body: { ready: boolean; role: string; seq: number; behindMs: number; reason?: string } }

async function ready(metricsPort: number): Promise<Ready | undefined> {
  try {
    const r = await fetch(`http://127.0.0.1:${metricsPort}/ready`)
    return { status: r.status, body: await r.json() as Ready['body'] }
  } catch {
    return undefined // not listening
  }
}

/** Polls /ready until `done`; bounded, so a node that never gets there fails the test. */
async function until(metricsPort: number, done: (r: Ready | undefined) => boolean, ms = 60_000): Promise<Ready | undefined> {
  const deadline = Date.now() + ms
  for (;;) {
    const r = await ready(metricsPort)
    if (done(r) || Date.now() > deadline) return r
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

t.test('/ready follows whether a node serves fresh state', { timeout: 180_000 }, async (t) => {
  const seq = await restartableNode(t, 'ready', SECRET)
  await seq.start()
  const s = await until(seq.metrics, (r) => r?.status === 200)
  t.match(s, { status: 200, body: { ready: true, role: 'sequencer' } }, 'the sequencer')

  const dir = await mkdtemp(path.join(os.tmpdir(), 'ready-f-'))
  const [api, metrics] = [await freePort(), await freePort()]
  const fol = startExchange(['replica', '--data', dir, '--port', String(api), '--metrics-port', String(metrics),
    '--follow', `ws://127.0.0.1:${seq.repl}/replication`, '--master-secret', SECRET, '--ready-max-behind-ms', '2000', '--drain-ms', '2000'])
  t.teardown(async () => { await fol.kill(); await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }) })
  await fol.waitFor((l) => l.msg === 'follower running')
  const f = await until(metrics, (r) => r?.status === 200)
  t.match(f, { status: 200, body: { ready: true, role: 'follower' } }, 'its follower, caught up')
  t.ok(f!.body.behindMs <= 2000)

  await seq.proc.kill('SIGKILL')
  t.equal(await ready(seq.metrics), undefined, 'the killed sequencer answers nothing')
  const lost = await until(metrics, (r) => r?.status === 503)
  t.match(lost, { status: 503, body: { ready: false, role: 'follower' } }, 'the follower is not ready once it hears nothing')
  t.match(lost!.body.reason, /^the newest entry applied here is \d+ ms old \(at most 2000\): nothing new from the sequencer$/)
  t.ok(lost!.body.behindMs > 2000)
  const head = await fetch(`http://127.0.0.1:${metrics}/ready`, { method: 'HEAD' })
  t.equal(head.status, 503, 'HEAD says the same')

  await seq.start()
  const back = await until(metrics, (r) => r?.status === 200)
  t.match(back, { status: 200, body: { ready: true, role: 'follower' } }, 'ready again once a sequencer runs on the same data')
  t.ok(back!.body.seq > lost!.body.seq, 'with entries written since')

  const askedAt = Date.now()
  fol.child.kill('SIGTERM')
  const draining = await until(metrics, (r) => r?.status === 503)
  t.match(draining, { status: 503, body: { ready: false, reason: 'stopping: draining before the node stops (--drain-ms)' } })
  const served = await fetch(`http://127.0.0.1:${api}/fapi/v1/time`)
  t.equal(served.status, 200, 'while draining, the gateway still answers')
  await fol.exited
  t.equal(fol.child.exitCode, 0, 'then it stops cleanly')
  t.ok(Date.now() - askedAt >= 1900, 'after the drain')
})
