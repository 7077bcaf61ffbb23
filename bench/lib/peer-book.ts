// The peer for the core benchmark: the npm package nodejs-order-book fed the book operations
// of the same stream (limit, cancel, market), one book per market. It does no margin, no
// balances, no positions and emits no events: it is a bare price-time matching engine.

import { OrderBook, SelfTradePreventionMode, Side, type LimitOrderOptions, type MarketOrderOptions } from 'nodejs-order-book'
import type { Command } from '../../core/commands.js'

export type PeerOp =
  | { kind: 'limit'; book: number; options: LimitOrderOptions }
  | { kind: 'market'; book: number; options: MarketOrderOptions }
  | { kind: 'cancel'; book: number; id: string }

/**
 * Maps our commands to the peer's calls: ticks become its prices and lots its sizes (both
 * integers), clientOrderIds its order ids, accounts its STP account ids. Our default STP
 * mode is EXPIRE_MAKER, so the peer gets the same.
 */
export function toPeerOps(stream: readonly Command[], marketIds: readonly number[]): PeerOp[] {
  const bookOf = new Map(marketIds.map((id, i) => [id, i]))
  return stream.map((c): PeerOp => {
    if (c.type === 'CancelOrder') {
      if (c.clientOrderId === undefined) throw new Error('peer cancels need a clientOrderId')
      return { kind: 'cancel', book: bookOf.get(c.marketId)!, id: c.clientOrderId }
    }
    if (c.type !== 'PlaceOrder') throw new Error(`no peer operation for ${c.type}`)
    const side = c.side === 'BUY' ? Side.BUY : Side.SELL
    const common = { side, size: c.qtyLots, accountId: c.account, stpMode: SelfTradePreventionMode.EXPIRE_MAKER }
    const book = bookOf.get(c.marketId)!
    if (c.orderType === 'MARKET') return { kind: 'market', book, options: common }
    if (c.orderType !== 'LIMIT' || c.clientOrderId === undefined || c.priceTicks === undefined) {
      throw new Error('peer limit orders need a price and a clientOrderId')
    }
    return { kind: 'limit', book, options: { ...common, id: c.clientOrderId, price: c.priceTicks } }
  })
}

export function freshBooks(n: number): OrderBook[] {
  return Array.from({ length: n }, () => new OrderBook())
}

export interface PeerOutcome {
  accepted: boolean
  /** Maker orders this operation traded against. */
  fills: number
}

/** Applies one operation and reads what it did (the counting pass only; timed passes don't read). */
export function runPeerOp(books: OrderBook[], op: PeerOp): PeerOutcome {
  const book = books[op.book]!
  if (op.kind === 'cancel') return { accepted: book.cancel(op.id) !== undefined, fills: 0 }
  const r = op.kind === 'limit' ? book.limit(op.options) : book.market(op.options)
  if (r.err !== null) return { accepted: false, fills: 0 }
  const takerId = op.kind === 'limit' ? op.options.id : undefined
  // `done` lists fully filled makers, plus the taker itself when it filled completely;
  // `partial` is a partly filled maker unless it is the resting taker.
  let fills = 0
  for (const o of r.done) if (o.id !== takerId) fills += 1
  if (r.partial !== null && r.partial.id !== takerId) fills += 1
  return { accepted: true, fills }
}

/** The timed form: the same calls, results ignored. */
export function applyPeerOp(books: OrderBook[], op: PeerOp): void {
  const book = books[op.book]!
  if (op.kind === 'cancel') book.cancel(op.id)
  else if (op.kind === 'limit') book.limit(op.options)
  else book.market(op.options)
}
