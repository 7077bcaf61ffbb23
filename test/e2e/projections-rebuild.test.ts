// A real exchange process whose projections (in their worker thread) are lost while it is
// stopped: on restart they are rebuilt from the log, and the order history answers as
// before; killed with SIGKILL, the restart catches them up from wherever they stood.

import t from 'tap'
import { rm } from 'node:fs/promises'
import path from 'node:path'
import { restartableNode } from '../helpers/processes.js'

const SECRET = '22'.repeat(32)

t.test('order history survives losing the projections and a SIGKILL', { timeout: 120_000 }, async (t) => {
  const node = await restartableNode(t, 'rebuild', SECRET)
  await node.start()
  const demo = await node.demo()
  const call = async (method: string, p: string, params: Record<string, string> = {}): Promise<any> => {
    const r = await node.call(demo, method, p, params)
    t.equal(r.status, 200, `${method} ${p} ${JSON.stringify(r.body).slice(0, 200)}`)
    return r.body
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
  await node.proc.kill('SIGTERM')
  await rm(path.join(node.dir, 'projections'), { recursive: true, force: true })
  await node.start()
  t.same(await history(), expected, 'rebuilt from the log')
  const order = await call('GET', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', orderId: String(a.orderId) })
  t.same([order.orderId, order.status], [a.orderId, 'CANCELED'], 'a closed order by id, from the history')

  // SIGKILL right after a write: the restart replays what the projections had not written.
  const c = await place('49002')
  await node.proc.kill('SIGKILL')
  await node.start()
  t.same(await history(), [...expected, [c.orderId, 'NEW', '49002.0']], 'caught up after SIGKILL')
})
