// The market-stream sockets in the fan-out process (`fanOut: 'process'`, the exchange's
// setting): the gateway process hands each routed connection over and sends each event once.
// Every other stream test runs against it too with TEST_WS_FAN_OUT=process; these are the
// things only this mode has: where the sockets are, the handover, and losing the process.

import { execFile, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import t from 'tap'
import type { FanOutConfig } from '../../gateway/ws/fan-out.js'
import { DEFAULT_LIMITS } from '../../gateway/ws/server.js'
import { limit } from '../helpers/commands.js'
import { ALICE, BOB, BTCSPOT } from '../helpers/exchange.js'
import { DIST, NODE, NODE_ARGS } from '../helpers/paths.js'
import { connect, ok, sleep, streamRig } from './client.js'

const run = promisify(execFile)

/** The sockets a process holds open, as `socket:[inode]` names, from /proc. */
function sockets(pid: number): Set<string> {
  const out = new Set<string>()
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const link = readlinkSync(`/proc/${pid}/fd/${fd}`)
      if (link.startsWith('socket:')) out.add(link)
    } catch { /* closed meanwhile */ }
  }
  return out
}

t.test('events and replies reach clients whose sockets the fan-out process holds', async (t) => {
  const rig = await streamRig({ fanOut: 'process' })
  t.teardown(() => rig.close())
  t.equal(rig.streams.fanOut!.pid, undefined, 'no process before the first connection')
  const raw = await connect(`${rig.base}/ws/btcusdtperp@trade`)
  const pid = rig.streams.fanOut!.pid!
  t.not(pid, process.pid)
  const before = sockets(pid).size
  const combined = await connect(`${rig.base}/stream?streams=btcusdtperp@trade/btcusdtperp@bookTicker`)
  t.equal(sockets(pid).size, before + 1, 'the next connection\'s socket is in the fan-out process too')

  t.same(await combined.request({ method: 'LIST_SUBSCRIPTIONS', id: 1 }), { result: ['btcusdtperp@trade', 'btcusdtperp@bookTicker'], id: 1 })
  await ok(rig, limit(ALICE, 'SELL', 500_000, 1000))
  await ok(rig, limit(BOB, 'BUY', 500_000, 400))
  const time = rig.ex.time
  const trade = { e: 'trade', E: time, T: time, s: 'BTCUSDTPERP', t: 1, p: '50000.0', q: '0.400', X: 'MARKET', m: false }
  t.same(await raw.next(), trade)
  t.same(await combined.next((m) => m.stream === 'btcusdtperp@trade'), { stream: 'btcusdtperp@trade', data: trade })

  // A subscription is in place before its reply: the next trade after the reply arrives.
  t.same(await raw.request({ method: 'SUBSCRIBE', params: ['btcusdtperp@bookTicker'], id: 2 }), { result: null, id: 2 })
  await ok(rig, limit(BOB, 'BUY', 500_000, 100))
  t.match(await raw.next((m) => m.e === 'bookTicker'), { e: 'bookTicker', a: '50000.0', A: '0.500' })
  t.match(await raw.next((m) => m.e === 'trade'), { e: 'trade', t: 2, q: '0.100' })
  t.same(await raw.request({ method: 'UNSUBSCRIBE', params: ['btcusdtperp@trade'], id: 3 }), { result: null, id: 3 })
  await ok(rig, limit(BOB, 'BUY', 500_000, 100))
  t.match(await raw.next(), { e: 'bookTicker', a: '50000.0', A: '0.400' }, 'no trade after the unsubscribe')
  await sleep(100)
  t.same(raw.messages, [])
  raw.close()
  combined.close()
})

t.test('timeUnit=MICROSECOND reaches the fan-out process: a spot trade in µs there, in ms beside it', async (t) => {
  const rig = await streamRig({ fanOut: 'process' })
  t.teardown(() => rig.close())
  await rig.run({ type: 'Deposit', account: ALICE, sub: 0, asset: 'BTC', amount: 100_000_000, wallet: 'SPOT', ref: 'btc' })
  await rig.run({ type: 'Deposit', account: BOB, sub: 0, asset: 'USDT', amount: 1_000_000 * 1_000_000, wallet: 'SPOT', ref: 'usdt' })
  const ms = await connect(`${rig.base}/ws/btcusdt@trade`)
  const us = await connect(`${rig.base}/stream?streams=btcusdt@trade/btcusdtperp@trade&timeUnit=MICROSECOND`)
  await ok(rig, limit(ALICE, 'SELL', 500_000, 100, { marketId: BTCSPOT }))
  await ok(rig, limit(BOB, 'BUY', 500_000, 100, { marketId: BTCSPOT }))
  await ok(rig, limit(ALICE, 'SELL', 500_000, 100))
  await ok(rig, limit(BOB, 'BUY', 500_000, 100))
  const trade = await ms.next()
  t.same((await us.next((m) => m.stream === 'btcusdt@trade')).data, { ...trade, E: trade.E * 1000, T: trade.T * 1000 })
  t.match((await us.next((m) => m.stream === 'btcusdtperp@trade')).data, { T: rig.ex.time }, 'a perpetual\'s in ms')
  ms.close()
  us.close()
})

t.test('when the fan-out process dies its clients are dropped, and a new one serves new connections', async (t) => {
  const errors: string[] = []
  const rig = await streamRig({ fanOut: 'process', onError: (err) => { errors.push(String(err)) } })
  t.teardown(() => rig.close())
  const c = await connect(`${rig.base}/ws/btcusdtperp@trade`)
  const first = rig.streams.fanOut!.pid!
  t.equal(rig.streams.connections.size, 1)
  process.kill(first, 'SIGKILL')
  t.equal((await c.closedWith()).code, 1006, 'dropped without a close frame')
  while (rig.streams.connections.size > 0) await sleep(10)
  t.same(errors, ['Error: WebSocket fan-out process exited (SIGKILL); restarting it'])
  t.not(rig.streams.fanOut!.pid, first)

  const again = await connect(`${rig.base}/ws/btcusdtperp@trade`)
  await ok(rig, limit(ALICE, 'SELL', 500_000, 1000))
  await ok(rig, limit(BOB, 'BUY', 500_000, 400))
  t.match(await again.next(), { e: 'trade', t: 1, q: '0.400' })
  t.equal(rig.streams.connections.size, 1)
  again.close()
})

/**
 * Opens `n` connections one after another from a process of its own, sending a request on each
 * as soon as it opens; prints the ids left unanswered after 5 s. (A client in the gateway's
 * own process could not send while the gateway is between handing a socket over and hearing
 * that the fan-out process has it, which is the moment this is about.)
 */
const FIRST_REQUESTS = `
import WebSocket from 'ws'
const [url, n] = [process.argv[1], Number(process.argv[2])]
const unanswered = []
for (let id = 1; id <= n; id++) {
  const answered = await new Promise((resolve) => {
    const ws = new WebSocket(url)
    const done = (v) => { clearTimeout(timer); ws.terminate(); resolve(v) }
    const timer = setTimeout(() => done(false), 5000)
    ws.on('open', () => ws.send(JSON.stringify({ method: 'LIST_SUBSCRIPTIONS', id })))
    ws.on('message', (d) => { if (JSON.parse(String(d)).id === id) done(true) })
    ws.on('error', () => done(false))
  })
  if (!answered) unanswered.push(id)
}
console.log(JSON.stringify(unanswered))
`

t.test('a request sent the moment the handshake completes is answered, connection after connection', async (t) => {
  // The gateway hands each socket over once upgraded; a frame the client sends as soon as the
  // handshake reply arrives must reach the fan-out process, never be read by the gateway's copy.
  const rig = await streamRig({ fanOut: 'process' })
  t.teardown(() => rig.close())
  // Once the fan-out process is up (its start is not what this measures).
  const first = await connect(`${rig.base}/ws`)
  t.same(await first.request({ method: 'LIST_SUBSCRIPTIONS', id: 0 }), { result: [], id: 0 })
  first.close()
  const { stdout } = await run(NODE, [...NODE_ARGS, '--input-type=module', '-e', FIRST_REQUESTS, `${rig.base}/ws`, '200'])
  t.same(JSON.parse(stdout), [], 'every connection\'s first request was answered')
})

t.test('a fan-out process whose gateway is gone before its first send exits quietly', async (t) => {
  // The gateway can die (a start refused: a port in use) after the child has last read its
  // channel and before it says ready; the child's send then meets EPIPE. Here the child's first
  // import holds it, synchronously, until the parent has closed the channel: with no event-loop
  // turn in between, the child still takes the channel for open when it sends.
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fan-out-orphan-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(path.join(dir, 'hold.mjs'), `import { existsSync, writeFileSync } from 'node:fs'
writeFileSync(${JSON.stringify(path.join(dir, 'booted'))}, '')
const cell = new Int32Array(new SharedArrayBuffer(4))
while (!existsSync(${JSON.stringify(path.join(dir, 'go'))})) Atomics.wait(cell, 0, 0, 5)
`)
  const child = pathToFileURL(path.join(DIST, 'gateway', 'ws', 'fan-out-process.js')).href
  writeFileSync(path.join(dir, 'entry.mjs'), `import './hold.mjs'\nimport ${JSON.stringify(child)}\n`)
  const config = JSON.stringify({ limits: DEFAULT_LIMITS, maxPayload: 4096 } satisfies FanOutConfig)
  const p = spawn(NODE, [...NODE_ARGS, path.join(dir, 'entry.mjs'), config],
    { stdio: ['ignore', 'ignore', 'pipe', 'ipc'], serialization: 'advanced' })
  let stderr = ''
  p.stderr!.on('data', (d: Buffer) => { stderr += d.toString() })
  const ended = Promise.all([
    new Promise<number | null>((resolve) => p.once('exit', resolve)),
    new Promise<void>((resolve) => p.stderr!.once('end', resolve)),
  ])
  while (!existsSync(path.join(dir, 'booted'))) await sleep(5)
  p.disconnect()
  writeFileSync(path.join(dir, 'go'), '')
  const [code] = await ended
  t.equal(stderr, '', 'nothing on the stderr it shares with the gateway')
  t.equal(code, 0)
})
