// Diff and partial depth at 100, 250 and 500 ms. Diff events carry log seqs: for each market
// and cadence, pu is the previous event's u, U = pu + 1 and u the last seq received, so the
// events of a stream cover every seq once, and the one covering a REST snapshot's
// lastUpdateId (the replica's seq) has U <= lastUpdateId <= u. Each level changed in the
// window is sent with its absolute quantity at u (0: removed). No change, no event: the next
// event's U still follows the last u. Partial depth is the top of the replica's book, sent
// every cadence while someone listens: in USD-M's form for a perpetual, in Binance spot's
// {lastUpdateId, bids, asks} for a spot market.

import type { Market, State } from '../../core/state.js'
import type { StreamHub } from './hub.js'
import type { DepthBook, MarketLevels } from './depth-book.js'
import { depthEvent, levelsOf, partialDepth } from './format-stream.js'
import { DEPTH_SPEEDS, PARTIAL_LEVELS, streamName, type DepthSpeed } from './streams.js'

export interface FeedPosition {
  /** Last seq and entry time the feed has received. */
  seq: number
  time: number
}

export class DepthFeed {
  /** u of the last diff event per cadence index and market. */
  private readonly lastU: Map<number, number>[] = DEPTH_SPEEDS.map(() => new Map())
  private readonly lastPartialU: Map<string, number> = new Map()

  constructor(private readonly hub: StreamHub, private readonly book: DepthBook, private readonly state: () => State,
    private readonly position: () => FeedPosition, private readonly now: () => number, private readonly baseSeq: number) {}

  /** Emits the diff (and partial) events of one cadence; called by its timer. */
  tick(cadence: number): void {
    const speed = DEPTH_SPEEDS[cadence]!
    const state = this.state()
    const pos = this.position()
    for (const [marketId, levels] of this.book.markets) {
      const m = state.markets[marketId]
      if (m !== undefined) this.diff(cadence, speed, m, levels, pos)
    }
    this.partials(speed, state)
  }

  private diff(cadence: number, speed: DepthSpeed, m: Market, levels: MarketLevels, pos: FeedPosition): void {
    const changed = levels.changed[cadence]!
    if (changed.bids.size === 0 && changed.asks.size === 0) return
    const lastU = this.lastU[cadence]!
    const pu = lastU.get(m.marketId) ?? this.baseSeq
    lastU.set(m.marketId, pos.seq)
    const name = streamName.depth(m.symbol.toLowerCase(), speed, 0)
    // A perpetual's RPI diff stream is its 500 ms diff stream: no RPI orders here (as GET /fapi/v1/rpiDepth).
    const rpi = speed === 500 && m.kind === 'PERP' ? streamName.rpiDepth(m.symbol.toLowerCase()) : null
    const toRpi = rpi !== null && this.hub.has(rpi)
    if (this.hub.has(name) || toRpi) {
      // Best first, as Binance lists them.
      const b = [...changed.bids].sort((x, y) => y - x).map((p): [number, number] => [p, levels.qty(true, p)])
      const a = [...changed.asks].sort((x, y) => x - y).map((p): [number, number] => [p, levels.qty(false, p)])
      const event = JSON.stringify(depthEvent(m, { U: pu + 1, u: pos.seq, pu, T: pos.time }, this.now(), levelsOf(m, b), levelsOf(m, a)))
      if (this.hub.has(name)) this.hub.publish(name, event, m.kind === 'SPOT')
      if (toRpi) this.hub.publish(rpi, event)
    }
    changed.bids.clear()
    changed.asks.clear()
  }

  private partials(speed: DepthSpeed, state: State): void {
    for (const m of state.markets) {
      if (m === undefined) continue
      const symbol = m.symbol.toLowerCase()
      for (const limit of PARTIAL_LEVELS) {
        const name = streamName.depth(symbol, speed, limit)
        if (!this.hub.has(name)) continue
        // The book is read as it is now, so its ids are the replica's (as REST depth's are). Not
        // `spot` to publish: a spot market's partial depth has no time field.
        const pu = this.lastPartialU.get(name) ?? state.seq
        this.lastPartialU.set(name, state.seq)
        const { b, a } = partialDepth(m, limit)
        this.hub.publish(name, m.kind === 'SPOT' ? { lastUpdateId: state.seq, bids: b, asks: a }
          : depthEvent(m, { U: Math.min(pu + 1, state.seq), u: state.seq, pu, T: state.time }, this.now(), b, a))
      }
    }
  }
}
