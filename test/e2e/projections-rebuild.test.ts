// A real exchange process whose projections (in their worker thread) are lost while it is
// stopped: on restart they are rebuilt from the log, and the order history answers as
// before; killed with SIGKILL, the restart catches them up from wherever they stood.

import t from 'tap'
import { createHmac } from 'node:crypto'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { freePort, startExchange, type Proc } from '../helpers/processes.js'

const SECRET = '22'.repeat(32)

t.test('order history survives losing the projections and a SIGKILL', { timeout: 120_000 }, async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'rebuild-'))
  const [api, repl, metrics] = [await freePort(), await freePort(), await freePort()]
  let proc: Proc | undefined
  t.teardown(async () => {
    await proc?.kill()
    await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 })
  })
  const start = async (): Promise<void> => {
    proc = startExchange(['start', '--data', dir, '--port', String(api), '--replication-port', String(repl),
      '--metrics-port', String(metrics), '--master-secret', SECRET])
    await proc.waitFor((l) => l.msg === 'sequencer running', 30_000)
  }
  await start()
  await proc!.waitFor((l) => l.msg === 'demo account funded')
  const demo = JSON.parse(await readFile(path.join(dir, 'demo-account.json'), 'utf8')) as { apiKey: string; secretKey: string }

  const call = async (method: string, p: string, params: Record<string, string> = {}): Promise<any> => {
    const q = new URLSearchParams({ ...params, timestamp: String(Date.now()) }).toString()
    const sig = createHmac('sha256', demo.secretKey).update(q).digest('hex')
    const r = await fetch(`http://127.0.0.1:${api}${p}?${q}&signature=${sig}`, { method, headers: { 'X-MBX-APIKEY': demo.apiKey } })
    const body = await r.json()
    t.equal(r.status, 200, `${method} ${p} ${JSON.stringify(body).slice(0, 200)}`)
    return body
  }
  const place = (price: string) => call('POST', '/fapi/v1/order',
    { symbol: 'BTCUSDTPERP', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.003', price })
  const history = async (): Promise<unknown[]> => {
    const all = (await call('GET', '/fapi/v1/allOrders', { symbol: 'BTCUSDTPERP' })) as { orderId: number; status: string; price: string }[]
    return all.map((o) => [o.orderId, o.status, o.price])
  }

  const a = await place('49000')
  const b = await place('49001.5')
  await call('DELETE', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', orderId: String(a.orderId) })
  const expected = [[a.orderId, 'CANCELED', '49000.0'], [b.orderId, 'NEW', '49001.5']]
  t.same(await history(), expected, 'read back at once')

  // Stopped cleanly, projections deleted: the restart rebuilds them from the log.
  await proc!.kill('SIGTERM')
  await rm(path.join(dir, 'projections'), { recursive: true, force: true })
  await start()
  t.same(await history(), expected, 'rebuilt from the log')
  const order = await call('GET', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', orderId: String(a.orderId) })
  t.same([order.orderId, order.status], [a.orderId, 'CANCELED'], 'a closed order by id, from the history')

  // SIGKILL right after a write: the restart replays what the projections had not written.
  const c = await place('49002')
  await proc!.kill('SIGKILL')
  await start()
  t.same(await history(), [...expected, [c.orderId, 'NEW', '49002.0']], 'caught up after SIGKILL')
})
