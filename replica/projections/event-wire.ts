// A committed batch's events as one message to the projections' worker. Structured clone
// of order and trade events (a score of fields each, two nested fill sides) was most of the
// main thread's remaining cost of the projections; these two are written here field by
// field, numbers into one Float64Array (transferred, not copied) and strings into one
// array. Any other event, or one of these with a field this file does not know (an optional
// one present, or one added since), goes by structured clone as it is: what the worker
// gets is always a faithful copy.

import type { Event, OrderEvent, PerpFillSide, PerpTradeEvent } from '../../core/events.js'

/** Per event: how it travels. */
const CLONED = 0
const ORDER = 1
const TRADE = 2

/** Own keys of a plain order event and a plain trade event and fill side (none optional present). */
const ORDER_KEYS = 21
const TRADE_KEYS = 9
const SIDE_KEYS = 16

export interface WireEvents {
  /** Events of each entry, in order. */
  counts: number[]
  kinds: Uint8Array
  nums: Float64Array
  strs: string[]
  cloned: Event[]
}

function keyCount(o: object): number {
  let n = 0
  for (const _ in o) n++
  return n
}

function plainOrder(e: OrderEvent): boolean {
  return keyCount(e) === ORDER_KEYS && e.cond === undefined && e.priceMatch === undefined && e.amendment === undefined
}

function plainSide(s: PerpFillSide): boolean {
  return keyCount(s) === SIDE_KEYS && s.isolatedWallet === undefined
}

function plainTrade(e: PerpTradeEvent): boolean {
  return keyCount(e) === TRADE_KEYS && e.adl === undefined && plainSide(e.maker) && plainSide(e.taker)
}

export class WireWriter {
  private counts: number[] = []
  private kinds = new Uint8Array(256)
  private nk = 0
  private nums = new Float64Array(4096)
  private nn = 0
  private strs: string[] = []
  private cloned: Event[] = []

  get entries(): number { return this.counts.length }

  /** Adds one entry's events (those the projections keep). */
  entry(events: readonly Event[]): void {
    this.counts.push(events.length)
    for (let i = 0; i < events.length; i++) {
      const e = events[i]!
      if (this.nk === this.kinds.length) this.kinds = grow(this.kinds, new Uint8Array(this.kinds.length * 2))
      // Room for the largest event below, so the writers check nothing.
      if (this.nn + 40 > this.nums.length) this.nums = grow(this.nums, new Float64Array(this.nums.length * 2))
      if (e.type === 'order' && plainOrder(e)) {
        this.kinds[this.nk++] = ORDER
        this.order(e)
      } else if (e.type === 'trade' && plainTrade(e)) {
        this.kinds[this.nk++] = TRADE
        this.trade(e)
      } else {
        this.kinds[this.nk++] = CLONED
        this.cloned.push(e)
      }
    }
  }

  /** What was added since the last take, with buffers of its own (safe to transfer). */
  take(): WireEvents {
    const w: WireEvents = { counts: this.counts, kinds: this.kinds.slice(0, this.nk), nums: this.nums.slice(0, this.nn),
      strs: this.strs, cloned: this.cloned }
    this.counts = []
    this.strs = []
    this.cloned = []
    this.nk = this.nn = 0
    return w
  }

  private order(e: OrderEvent): void {
    const n = this.nums
    let i = this.nn
    n[i++] = e.marketId; n[i++] = e.orderId; n[i++] = e.sub; n[i++] = e.priceTicks; n[i++] = e.origQtyLots
    n[i++] = e.executedQtyLots; n[i++] = e.cumQuoteTicksLots; n[i++] = e.reduceOnly ? 1 : 0; n[i++] = e.goodTillDate
    n[i++] = e.time; n[i++] = e.updateTime
    this.nn = i
    this.strs.push(e.execType, e.account, e.clientOrderId, e.side, e.orderType, e.timeInForce, e.status, e.positionSide, e.stp)
  }

  private trade(e: PerpTradeEvent): void {
    const n = this.nums
    let i = this.nn
    n[i++] = e.marketId; n[i++] = e.tradeId; n[i++] = e.time; n[i++] = e.priceTicks; n[i++] = e.qtyLots
    n[i++] = e.buyerIsMaker ? 1 : 0
    this.nn = i
    this.side(e.maker)
    this.side(e.taker)
  }

  private side(s: PerpFillSide): void {
    const n = this.nums
    let i = this.nn
    n[i++] = s.sub; n[i++] = s.orderId; n[i++] = s.executedQtyLots; n[i++] = s.cumQuoteTicksLots; n[i++] = s.fee
    n[i++] = s.realizedPnl; n[i++] = s.positionQtyLots; n[i++] = s.positionCostTicksLots; n[i++] = s.positionRealizedPnl
    n[i++] = s.positionRealizedSinceOpen; n[i++] = s.wallet
    this.nn = i
    this.strs.push(s.account, s.clientOrderId, s.side, s.positionSide, s.status)
  }
}

function grow<T extends Uint8Array | Float64Array>(from: T, to: T): T {
  to.set(from)
  return to
}

/** Reads the events back, entry by entry, in the worker. */
export function readWire(w: WireEvents): Event[][] {
  const out: Event[][] = []
  let k = 0
  let ni = 0
  let si = 0
  let ci = 0
  const { kinds, nums: n, strs: s, cloned } = w
  const side = (): PerpFillSide => {
    const i = ni
    ni += 11
    const j = si
    si += 5
    return {
      account: s[j]!, sub: n[i]!, orderId: n[i + 1]!, clientOrderId: s[j + 1]!, side: s[j + 2] as PerpFillSide['side'],
      positionSide: s[j + 3] as PerpFillSide['positionSide'], executedQtyLots: n[i + 2]!, cumQuoteTicksLots: n[i + 3]!,
      status: s[j + 4] as PerpFillSide['status'], fee: n[i + 4]!, realizedPnl: n[i + 5]!, positionQtyLots: n[i + 6]!,
      positionCostTicksLots: n[i + 7]!, positionRealizedPnl: n[i + 8]!, positionRealizedSinceOpen: n[i + 9]!, wallet: n[i + 10]!,
    }
  }
  for (const count of w.counts) {
    const events: Event[] = []
    for (let c = 0; c < count; c++) {
      const kind = kinds[k++]
      if (kind === ORDER) {
        const i = ni
        const j = si
        ni += 11
        si += 9
        events.push({
          type: 'order', execType: s[j] as OrderEvent['execType'], marketId: n[i]!, orderId: n[i + 1]!, account: s[j + 1]!,
          sub: n[i + 2]!, clientOrderId: s[j + 2]!, side: s[j + 3] as OrderEvent['side'], orderType: s[j + 4] as OrderEvent['orderType'],
          timeInForce: s[j + 5] as OrderEvent['timeInForce'], priceTicks: n[i + 3]!, origQtyLots: n[i + 4]!,
          executedQtyLots: n[i + 5]!, cumQuoteTicksLots: n[i + 6]!, status: s[j + 6] as OrderEvent['status'],
          positionSide: s[j + 7] as OrderEvent['positionSide'], reduceOnly: n[i + 7] === 1, stp: s[j + 8] as OrderEvent['stp'],
          goodTillDate: n[i + 8]!, time: n[i + 9]!, updateTime: n[i + 10]!,
        })
      } else if (kind === TRADE) {
        const i = ni
        ni += 6
        const maker = side()
        const taker = side()
        events.push({ type: 'trade', marketId: n[i]!, tradeId: n[i + 1]!, time: n[i + 2]!, priceTicks: n[i + 3]!,
          qtyLots: n[i + 4]!, buyerIsMaker: n[i + 5] === 1, maker, taker })
      } else {
        events.push(cloned[ci++]!)
      }
    }
    out.push(events)
  }
  return out
}
