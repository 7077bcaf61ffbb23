// The market streams of a real `exchange start` process: a client keeping a local book from
// the diff stream and the REST snapshot while two accounts trade over signed HTTP ends with
// the book REST serves, and the trade stream reports the trades REST lists.

import t from 'tap'
import { startLiveExchange, type LiveAccount as Account } from '../helpers/live-exchange.js'
import { connect, sleep } from './client.js'

type Levels = [string, string][]

t.test('streams of a running exchange follow its book and trades', { timeout: 90_000 }, async (t) => {
  const live = await startLiveExchange(t)
  const [demo, second, base] = [live.maker, live.taker, live.base]
  const port = new URL(base).port
  const order = (who: Account, params: Record<string, string>) =>
    live.signed(who, 'POST', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', ...params }) as Promise<Record<string, unknown>>

  const c = await connect(`ws://127.0.0.1:${port}/stream?streams=btcusdtperp@depth@100ms/btcusdtperp@trade`)
  const snap = await (await fetch(`${base}/fapi/v1/depth?symbol=BTCUSDTPERP&limit=1000`)).json() as
    { lastUpdateId: number; bids: Levels; asks: Levels }
  const bids = new Map(snap.bids)
  const asks = new Map(snap.asks)
  let lastU: number | null = null
  const broken: string[] = []
  const apply = () => {
    for (const m of c.messages.splice(0).filter((m: any) => m.stream.includes('@depth')) as { data: any }[]) {
      const e = m.data
      if (lastU === null) {
        if (e.u < snap.lastUpdateId) continue
        if (!(e.U <= snap.lastUpdateId && e.u >= snap.lastUpdateId)) broken.push(`first ${e.U}..${e.u} vs ${snap.lastUpdateId}`)
      } else if (e.pu !== lastU) broken.push(`pu ${e.pu} after ${lastU}`)
      for (const [p, q] of e.b) q === '0.000' ? bids.delete(p) : bids.set(p, q)
      for (const [p, q] of e.a) q === '0.000' ? asks.delete(p) : asks.set(p, q)
      lastU = e.u
    }
  }
  const trades: any[] = []
  c.ws.on('message', () => {
    for (const m of c.messages) if ((m as any).stream.endsWith('@trade')) trades.push((m as any).data)
    apply()
  })

  // Both accounts place at once, so the sequencer batches them; some cross.
  const placed = []
  for (let i = 0; i < 30; i++) {
    const side = i % 2 === 0 ? 'BUY' : 'SELL'
    const price = (i % 2 === 0 ? 60000 - (i % 7) + 3 : 60000 + (i % 5) - 2).toFixed(1)
    placed.push(order(i % 3 === 0 ? demo : second, { side, type: 'LIMIT', timeInForce: 'GTC', quantity: '0.010', price }))
  }
  const results = await Promise.all(placed)
  t.ok(results.every((r) => typeof r.orderId === 'number'), 'every order accepted')

  // The sequencer's ticks move the seq without touching the book (and so send no diff): wait
  // until the last diff has arrived, that is until the books agree, for at most 10 s.
  const sorted = (m: Map<string, string>, desc: boolean) => [...m].sort((a, b) => (desc ? -1 : 1) * (Number(a[0]) - Number(b[0])))
  let depth = { lastUpdateId: 0, bids: [] as Levels, asks: [] as Levels }
  for (let tries = 0; tries < 100; tries++) {
    depth = await (await fetch(`${base}/fapi/v1/depth?symbol=BTCUSDTPERP&limit=1000`)).json() as typeof depth
    if (JSON.stringify([sorted(bids, true), sorted(asks, false)]) === JSON.stringify([depth.bids, depth.asks])) break
    await sleep(100)
  }
  t.same(broken, [], 'the update ids chain')
  t.ok(lastU !== null, 'diffs were applied')
  t.same(sorted(bids, true), depth.bids, 'local bids are the exchange\'s')
  t.same(sorted(asks, false), depth.asks, 'local asks are the exchange\'s')
  t.ok(depth.bids.length + depth.asks.length > 0)

  const rest = await (await fetch(`${base}/fapi/v1/trades?symbol=BTCUSDTPERP&limit=1000`)).json() as
    { id: number; price: string; qty: string; time: number; isBuyerMaker: boolean }[]
  t.ok(rest.length > 0, 'some orders crossed')
  t.same(trades.map((e) => [e.t, e.p, e.q, e.T, e.m]), rest.map((r) => [r.id, r.price, r.qty, r.time, r.isBuyerMaker]),
    'the trade stream carried exactly the trades REST lists')
  c.close()
})
