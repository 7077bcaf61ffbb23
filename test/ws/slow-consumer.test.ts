// A consumer that stops reading is cut off once its outbound buffer passes the bound, while a
// fast consumer of the same streams receives every event. The slow client pauses its socket,
// so the kernel's buffers fill first (a few MB on loopback) and then the server's.

import t from 'tap'
import { limit, market } from '../helpers/commands.js'
import { ALICE, BOB } from '../helpers/exchange.js'
import { connect, ok, streamRig } from './client.js'

const S = 'btcusdtperp'
const STREAMS = [`${S}@trade`, `${S}@depth@100ms`, `${S}@depth`, `${S}@depth@500ms`, `${S}@bookTicker`, '!bookTicker',
  `${S}@depth20@100ms`]
const MAKERS = 200

t.test('a slow consumer is cut off; a fast one on the same streams misses nothing', async (t) => {
  const rig = await streamRig({ maxBufferedBytes: 64 * 1024, closeGraceMs: 30_000 })
  t.teardown(() => rig.close())
  const url = `${rig.base}/stream?streams=${STREAMS.join('/')}`
  const slow = await connect(url)
  const fast = await connect(url)
  // Stops reading: what the server sends piles up in the kernel, then in the server's buffer.
  ;(slow.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket.pause()

  let trades = 0
  let cycles = 0
  // Makers at improving prices (each one a new best, so a book ticker too), then a market order
  // that takes them all; sides alternate so positions stay flat.
  const cycle = async () => {
    const sell = cycles % 2 === 0
    for (let i = 0; i < MAKERS; i++) {
      await ok(rig, limit(ALICE, sell ? 'SELL' : 'BUY', sell ? 501_200 - i : 499_000 + i, 3))
    }
    const r = await ok(rig, market(BOB, sell ? 'BUY' : 'SELL', 3 * MAKERS))
    trades += r.events.filter((e) => e.type === 'trade').length
    cycles++
  }
  while (rig.streams.connections.size === 2 && cycles < 200) await cycle()
  t.equal(rig.streams.connections.size, 1, `the slow consumer was cut off (after ${cycles} cycles)`)
  t.equal(slow.closed, null, 'it has not read its close frame yet: its socket is paused')
  // The feed goes on for the fast consumer.
  await cycle()
  await cycle()
  await fast.next((m) => m.stream === `${S}@trade` && m.data.t === trades, 10_000).then((m) => fast.messages.push(m))
  const seen = fast.messages.filter((m: any) => m.stream === `${S}@trade`).map((m: any) => m.data.t as number)
  t.equal(seen.length, trades, 'the fast consumer received every trade')
  t.same(seen, Array.from({ length: trades }, (_, i) => i + 1), 'in order, none missing')
  t.equal(fast.closed, null)

  // Once the slow one reads again it finds, after its backlog, the close frame saying why.
  ;(slow.ws as unknown as { _socket: { resume(): void } })._socket.resume()
  t.same(await slow.closedWith(20_000), { code: 1008, reason: 'Outbound queue full: consumer too slow' })
  const slowTrades = slow.messages.filter((m: any) => m.stream === `${S}@trade`).length
  t.ok(slowTrades < trades, `the slow consumer got only what was sent before the cut (${slowTrades} of ${trades} trades)`)
  fast.close()
  t.same(rig.feedErrors, [], 'the feed\'s depth levels always matched the book')
})
