// The depth streams' levels (gateway/ws/depth-book.ts) are rebuilt from core events alone; on
// random command streams they must equal the book after every entry: fills, cancels,
// amendments, triggered stops, list legs, and icebergs showing one slice at a time.

import t from 'tap'
import fc from 'fast-check'
import { apply } from '../../core/apply.js'
import type { Command } from '../../core/commands.js'
import type { Event } from '../../core/events.js'
import { createState, type State } from '../../core/state.js'
import { DepthBook } from '../../gateway/ws/depth-book.js'
import { commandStream, PROFILES, type StreamOptions } from '../../sim/model/commands.js'
import { entriesOf } from '../../sim/model/run.js'
import { limit } from '../helpers/commands.js'
import { ALICE, BOB, BTCPERP, TestExchange } from '../helpers/exchange.js'
import { runs } from '../helpers/property.js'

/**
 * Applies the stream's entries, checking the levels each touched against the book: the state and
 * levels after them, and the first entry whose levels differed (null when none did).
 */
function replay(stream: Parameters<typeof entriesOf>[0]): { state: State; depth: DepthBook; mismatch: string | null } {
  const state = createState()
  const depth = new DepthBook(state, 1)
  let mismatch: string | null = null
  for (const entry of entriesOf(stream)) {
    const r = apply(state, entry)
    const touched = new Set<number>()
    depth.applyEntry(r.events, touched)
    for (const id of touched) {
      // As the market feed: a market no order has rested in yet has no levels to check.
      const m = state.markets[id]!
      const levels = depth.markets.get(id)
      if (levels !== undefined && !levels.matches(m)) mismatch ??= `seq ${entry.seq} (${entry.command.type}): ${m.symbol}'s levels differ from its book`
    }
  }
  return { state, depth, mismatch }
}

const agrees = (stream: Parameters<typeof entriesOf>[0]): void => {
  const { mismatch } = replay(stream)
  if (mismatch !== null) throw new Error(mismatch)
}

const SPOT = { markets: [PROFILES.BTCSPOT, PROFILES.ETHSPOT], accounts: 4, maxLength: 300 } satisfies StreamOptions

t.test('levels from events equal the book after every entry: spot streams (icebergs, amendments)', async (t) => {
  fc.assert(fc.property(commandStream(SPOT), agrees), runs(30))
  t.pass()
})

t.test('levels from events equal the book after every entry: the simulator\'s extended streams (stops, lists, perpetuals)', async (t) => {
  const markets = [PROFILES.BTCPERP, PROFILES.ETHPERP, PROFILES.BTCSPOT, PROFILES.ETHSPOT]
  fc.assert(fc.property(commandStream({ markets, accounts: 5, maxLength: 300, extended: true }), agrees), runs(20))
  t.pass()
})

t.test('the check can fail: a level the events did not build is found', async (t) => {
  // The same run, with one resting iceberg's slice shown whole on the book behind the events' back.
  const stream = fc.sample(commandStream(SPOT), { numRuns: 40, seed: 7 })
  let found = 0
  for (const s of stream) {
    const { state, depth } = replay(s)
    const m = state.markets.find((x) => x?.kind === 'SPOT' && [...x.book.orders.values()].some((o) => o.icebergLots !== 0 && o.visibleLots > 1))
    if (m === undefined) continue
    const o = [...m.book.orders.values()].find((x) => x.icebergLots !== 0 && x.visibleLots > 1)!
    o.level!.qtyLots -= 1
    depth.markets.get(m.marketId)!.checkLater(o.side === 'BUY', o.priceTicks)
    t.notOk(depth.markets.get(m.marketId)!.matches(m), 'a level one lot off is told apart')
    found++
    if (found >= 3) break
  }
  t.ok(found > 0, 'the streams leave icebergs resting')
})

t.test('found by the property: a stop set off by a placement takes its remainder in the same entry', async (t) => {
  const ex = new TestExchange()
  ex.fund(ALICE, 10_000)
  ex.fund(BOB, 10_000)
  const depth = new DepthBook(ex.state, 1)
  const levels = depth.market(BTCPERP)
  const step = (c: Command): Event[] => {
    const events = ex.ok(c).events
    depth.applyEntry(events, new Set())
    return events
  }
  step({ ...limit(ALICE, 'SELL', 300_000, 4), orderType: 'POST_ONLY' })
  step({ type: 'PlaceOrder', account: BOB, sub: 0, marketId: BTCPERP, side: 'SELL', orderType: 'TAKE_PROFIT_MARKET', qtyLots: 4,
    stopPriceTicks: 299_985 })
  // Alice's buy of 5 takes her own 4 (STP NONE) and rests 1; the trade at 30,000.0 sets off Bob's
  // take profit, whose market sell takes that 1 in the same entry.
  const events = step(limit(ALICE, 'BUY', 300_000, 5, { stp: 'NONE' }))
  t.same(events.filter((e) => e.type === 'trade').map((e) => e.type === 'trade' && [e.maker.orderId, e.taker.orderId, e.qtyLots]),
    [[1, 3, 4], [3, 2, 1]], 'the stop\'s market sell met the new bid as a maker')
  t.equal(ex.state.markets[BTCPERP]!.book.bids.levels.length, 0)
  t.equal(levels.qty(true, 300_000), 0, 'no bid left at 30,000.0 in the levels either')
  levels.checkLater(true, 300_000)
  t.ok(levels.matches(ex.state.markets[BTCPERP]!))
})
