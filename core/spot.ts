// Spot settlement and balance holds. A buy locks quote at its limit price (a market buy:
// the exact cost the book shows), a sell locks base; each fill pays from the lock, returns
// any price improvement, and credits the received asset less the fee, rounded up.

import { mulDivCeil } from './arith.js'
import { assert } from './assert.js'
import { ensureSpotBalance } from './accounts.js'
import type { SpotFillSide } from './events.js'
import { addFee, type Order, type SpotMarket, type State } from './state.js'

const PPM = 1_000_000

/** Ledger units a buy order of these lots locks at its price (quote), or a sell locks (base). */
export function lockFor(m: SpotMarket, o: Order, lots: number, priceTicks: number): number {
  return o.side === 'BUY' ? lots * priceTicks * m.quotePerTickLot : lots * m.basePerLot
}

/** Takes `amount` of the order's held asset from free into locked. */
export function lockSpot(o: Order, amount: number): void {
  const asset = o.side === 'BUY' ? o.market.quote : o.market.base
  const b = ensureSpotBalance(o.owner, asset)
  assert(b.free >= amount, 'spot lock beyond free balance')
  b.free -= amount
  b.locked += amount
  o.lockedRemaining += amount
}

/** Gives `amount` of the order's lock back to free balance (all of it: releaseSpotLock). */
export function unlockSpot(o: Order, amount: number): void {
  const b = ensureSpotBalance(o.owner, o.side === 'BUY' ? o.market.quote : o.market.base)
  b.locked -= amount
  b.free += amount
  o.lockedRemaining -= amount
  assert(b.locked >= 0 && o.lockedRemaining >= 0, 'negative locked balance')
}

export function settleSpotSide(state: State, m: SpotMarket, o: Order, lots: number, priceTicks: number,
  isMaker: boolean, time: number): SpotFillSide {
  const sub = o.owner
  const base = ensureSpotBalance(sub, m.base)
  const quote = ensureSpotBalance(sub, m.quote)
  const quoteAmount = lots * priceTicks * m.quotePerTickLot
  const baseAmount = lots * m.basePerLot
  const feePpm = isMaker ? m.makerFeePpm : m.takerFeePpm
  let fee: number
  let feeAsset: string
  if (o.side === 'BUY') {
    // A limit buy locked at its own price; a market buy locked the exact cost of each fill.
    const release = o.orderType === 'MARKET' ? quoteAmount : lots * o.priceTicks * m.quotePerTickLot
    quote.locked -= release
    o.lockedRemaining -= release
    quote.free += release - quoteAmount
    fee = mulDivCeil(baseAmount, feePpm, PPM)
    feeAsset = m.base
    base.free += baseAmount - fee
  } else {
    base.locked -= baseAmount
    o.lockedRemaining -= baseAmount
    fee = mulDivCeil(quoteAmount, feePpm, PPM)
    feeAsset = m.quote
    quote.free += quoteAmount - fee
  }
  assert(quote.locked >= 0 && base.locked >= 0 && o.lockedRemaining >= 0, 'spot lock went negative')
  if (fee !== 0) addFee(state.fees, feeAsset, fee)

  o.executedQtyLots += lots
  o.cumQuoteTicksLots += lots * priceTicks
  o.updateTime = time
  // A quote-sized order the book ran short for has not got what it asked: it will expire.
  o.status = o.executedQtyLots === o.origQtyLots && !o.quoteShort ? 'FILLED' : 'PARTIALLY_FILLED'
  return {
    account: sub.address, sub: sub.sub, orderId: o.orderId, clientOrderId: o.clientOrderId, side: o.side,
    executedQtyLots: o.executedQtyLots, cumQuoteTicksLots: o.cumQuoteTicksLots, status: o.status,
    fee, feeAsset,
    base: { asset: m.base, free: base.free, locked: base.locked },
    quote: { asset: m.quote, free: quote.free, locked: quote.locked },
  }
}
