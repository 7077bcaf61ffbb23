// A node whose disk fills warns first, then stops, naming the file it could not write, and
// loses nothing it acknowledged. A sequencer's data directory sits on a small tmpfs (mounted
// here: root only), filled to within 256 KiB: /metrics shows it and the log warns; eight
// accounts place and cancel orders until the node stops. With the space given back it starts
// again, and every order it answered 200 is there with the status its last answer gave it (one
// whose cancel went unanswered, either way).

import { execFileSync } from 'node:child_process'
import { mkdtemp, rm, statfs, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { Wallet } from 'ethers'
import t from 'tap'
import type { Command } from '../../core/commands.js'
import { freePort } from '../../replica/free-port.js'
import { genesisLog, restSession, writeLog, type RestSession } from '../helpers/node-fixtures.js'
import { scrapeGauges, startExchange, type Proc } from '../helpers/processes.js'

const ACCOUNTS = 8
const LEFT_FREE = 256 * 1024

const dir = await mkdtemp(path.join(os.tmpdir(), 'disk-full-'))
/** Why the test cannot run here, if it cannot: mounting needs root. */
function mountFailure(): string | undefined {
  if (process.getuid?.() !== 0) return 'mounting a small tmpfs needs root'
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=24m', 'tmpfs', dir], { stdio: 'pipe' })
    return undefined
  } catch (err) {
    return `could not mount a tmpfs: ${(err as { stderr?: Buffer }).stderr?.toString().trim() ?? (err as Error).message}`
  }
}
const missing = mountFailure()
t.teardown(async () => {
  if (missing === undefined) execFileSync('umount', ['-l', dir])
  await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 })
})

interface Acked {
  session: number
  orderId: number
  status: 'NEW' | 'CANCELED'
  /** Its cancel was sent and no answer came (the node stopped): it may or may not have happened. */
  cancelUnanswered?: boolean
}

/** One account placing resting orders and canceling every other one, until its node stops answering. */
async function trade(s: RestSession, index: number, proc: Proc, acked: Acked[], serverErrors: string[]): Promise<void> {
  const deadline = Date.now() + 60_000
  for (let i = 0; proc.child.exitCode === null && Date.now() < deadline; i++) {
    try {
      const placed = await s.call('POST', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC',
        quantity: '0.01', price: String(20_000 + (i % 200)) })
      if (placed.status >= 500) serverErrors.push(JSON.stringify(placed))
      if (placed.status === 429) await new Promise((r) => setTimeout(r, 1000))
      if (placed.status !== 200) continue
      const order: Acked = { session: index, orderId: placed.body.orderId, status: 'NEW' }
      acked.push(order)
      if (i % 2 === 1) continue
      order.cancelUnanswered = true
      const canceled = await s.call('DELETE', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', orderId: String(order.orderId) })
      order.cancelUnanswered = false
      if (canceled.status >= 500) serverErrors.push(JSON.stringify(canceled))
      if (canceled.status === 200) order.status = 'CANCELED'
    } catch {
      return // the node is gone: the request's answer never came
    }
  }
}

t.test('a nearly full disk is shown and warned of; a full one stops the node, which restarted with room has every order it acknowledged', { skip: missing ?? false, timeout: 180_000 },
  async (t) => {
    const wallets = Array.from({ length: ACCOUNTS }, () => Wallet.createRandom())
    await writeLog(dir, [...genesisLog(), ...wallets.map((w, i): Command =>
      ({ type: 'Deposit', account: w.address, sub: 0, asset: 'USDT', amount: 100_000_000_000, wallet: 'PERP', ref: `d${i}` }))], Date.now())
    const [port, repl, metrics] = [await freePort(), await freePort(), await freePort()]
    const args = ['sequencer', '--data', dir, '--port', String(port), '--replication-port', String(repl), '--metrics-port', String(metrics),
      '--chain', 'off', '--price-feed', 'off']
    const base = `http://127.0.0.1:${port}`

    const first = startExchange(args)
    t.teardown(() => first.kill())
    await first.waitFor((l) => l.msg === 'sequencer running')
    const sessions = await Promise.all(wallets.map((w) => restSession(base, w)))
    const ballast = path.join(dir, 'ballast')
    const fs = await statfs(dir)
    await writeFile(ballast, Buffer.alloc(fs.bavail * fs.bsize - LEFT_FREE))
    const gauges = await scrapeGauges(metrics)
    t.ok(gauges['exchange_disk_free_bytes{dir="data"}']! <= LEFT_FREE && gauges['exchange_disk_free_bytes{dir="data"}']! > 0,
      `/metrics shows the space left (${gauges['exchange_disk_free_bytes{dir="data"}']} bytes)`)
    t.equal(gauges['exchange_disk_size_bytes{dir="data"}'], 24 * 1024 * 1024, 'and the disk\'s size')
    t.match(await first.waitFor((l) => l.msg === 'disk nearly full: the node stops when it cannot write'),
      { level: 40, dir: 'data', path: dir, sizeBytes: 24 * 1024 * 1024 }, 'the log warns')

    const acked: Acked[] = []
    const serverErrors: string[] = []
    await Promise.all(sessions.map((s, i) => trade(s, i, first, acked, serverErrors)))
    await first.exited
    t.equal(first.child.exitCode, 1, 'the node stopped, exit code 1')
    const fault = first.lines.find((l) => l.msg === 'stopping on a fault')
    t.match(fault, { level: 60, err: new RegExp(`^IO error: ${dir}/\\S+: No space left on device$`) }, 'naming the file it could not write')
    t.same(serverErrors, [], 'no request was answered with a 5xx meanwhile')
    t.ok(acked.length > 100, `orders were acknowledged before it stopped (${acked.length})`)

    await rm(ballast)
    const second = startExchange(args)
    t.teardown(() => second.kill())
    await second.waitFor((l) => l.msg === 'sequencer running')
    const found = new Map<string, string>()
    for (const [i, s] of sessions.entries()) {
      const all = await s.call('GET', '/fapi/v1/allOrders', { symbol: 'BTCUSDTPERP', limit: '1000' })
      for (const o of all.body as { orderId: number; status: string }[]) found.set(`${i}:${o.orderId}`, o.status)
    }
    // An order whose cancel got no answer is there either way; every other one as its last answer said.
    const lost = acked.filter((a) => {
      const status = found.get(`${a.session}:${a.orderId}`)
      return a.cancelUnanswered === true ? status !== 'NEW' && status !== 'CANCELED' : status !== a.status
    }).map((a) => ({ ...a, found: found.get(`${a.session}:${a.orderId}`) ?? 'missing' }))
    t.same(lost, [], `each of the ${acked.length} acknowledged orders is there as its answer said`)
    const again = await sessions[0]!.call('POST', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC',
      quantity: '0.01', price: '19000' })
    t.match(again, { status: 200, body: { symbol: 'BTCUSDTPERP', orderId: Number } }, 'and it takes orders again')
  })
