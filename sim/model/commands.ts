// fast-check generators of command streams for the core's property tests and the simulator:
// a few accounts trading around a mid price (so books cross often), deposits, transfers,
// withdrawals, leverage and position-mode changes, cancels, and Ticks that jump time far
// enough to expire GTD orders. Streams are plain data and replay exactly from their seed.

import fc from 'fast-check'
import type { Command, ConditionalType, Deposit, ListLeg, PlaceOrder, PlaceOrderList, PlaceOtoList, Side, StpMode, TimeInForce, WorkingType } from '../../core/commands.js'
import { RULES_VERSION } from '../../core/rules.js'

export const MODEL_ACCOUNTS: readonly string[] = ['1', '2', '3', '4', '5', '6'].map((d) => '0x' + d.repeat(40))

/** Time of the first entry (genesis included); later entries only move forward. */
export const START_TIME = 1_700_000_000_000

/** How a generator trades one market: prices around a mid, quantities up to a bound. */
export interface MarketProfile {
  marketId: number
  kind: 'PERP' | 'SPOT'
  base: string
  quote: string
  midTicks: number
  /** Limit prices fall within midTicks ± spreadTicks. */
  spreadTicks: number
  maxLots: number
  /** Largest base-asset deposit, ledger units (spot only). */
  baseDepositMax: number
}

/** The default genesis markets near BTC 30 000 and ETH 2 000 (see core/genesis-spec.ts). */
export const PROFILES = {
  BTCPERP: { marketId: 1, kind: 'PERP', base: 'BTC', quote: 'USDT', midTicks: 300_000, spreadTicks: 12, maxLots: 40, baseDepositMax: 0 },
  ETHPERP: { marketId: 2, kind: 'PERP', base: 'ETH', quote: 'USDT', midTicks: 200_000, spreadTicks: 12, maxLots: 60, baseDepositMax: 0 },
  BTCSPOT: { marketId: 3, kind: 'SPOT', base: 'BTC', quote: 'USDT', midTicks: 3_000_000, spreadTicks: 12, maxLots: 40, baseDepositMax: 100_000_000 },
  ETHSPOT: { marketId: 4, kind: 'SPOT', base: 'ETH', quote: 'USDT', midTicks: 200_000, spreadTicks: 12, maxLots: 100, baseDepositMax: 1_000_000_000 },
} as const satisfies Record<string, MarketProfile>

export interface StreamOptions {
  markets?: readonly MarketProfile[]
  /** How many of MODEL_ACCOUNTS trade (at most 6). */
  accounts?: number
  /** Bounds of the stream after the prelude; lengths are spread evenly between them. */
  minLength?: number
  maxLength?: number
  /** The last account switches to hedge mode first and then sends LONG/SHORT orders. */
  hedgeAccount?: boolean
  /** The quote asset's ledger units per coin (USDT: 10^6). */
  quoteUnit?: number
  /**
   * Also conditional orders of every type, conditional-only CancelAll, isolated margin
   * (ChangeMarginType, AdjustPositionMargin) and a prelude of thin, highly leveraged perp
   * accounts: what the cluster simulator sends. Off for the reference-model streams, which
   * do not model them.
   */
  extended?: boolean
}

/** A command with the sequencer time it is applied at. */
export interface TimedCommand {
  time: number
  command: Command
  /**
   * A cancel aimed at one of the issuer's own open orders, as a client that knows them would
   * send it: the driver (sim/model/run.ts) points it at open order number `cancelPick` modulo
   * their count, by orderId or, when pick is odd, by clientOrderId. With none open it stays as
   * generated (and is rejected).
   */
  cancelPick?: number
}

const QUOTE = 1_000_000
const CLIENT_IDS = ['a', 'b', 'c', 'd', 'e', 'x-1-3', 'x-3-2']

/** A generated command before it is placed in time: GTD and deposit refs are relative. */
interface Draft {
  dtMs: number
  command: Command
  /** For GTD orders: goodTillDate is this far after the entry's time. */
  gtdAheadMs?: number
  /** Deposits: a shared ref from a small pool (so duplicates happen), else a unique one. */
  sharedRef?: number
  /** Cancels: see TimedCommand.cancelPick. */
  cancelPick?: number
}

function weighted<T>(...pairs: [number, fc.Arbitrary<T>][]): fc.Arbitrary<T> {
  return fc.oneof(...pairs.map(([weight, arbitrary]) => ({ weight, arbitrary })))
}

/** Mostly a few ms; now and then a pause long enough to pass a GTD order's date between Ticks. */
const smallDt = weighted([40, fc.integer({ min: 1, max: 50 })], [1, fc.integer({ min: 100_000, max: 1_500_000 })])

/** Field values an order is sometimes sent with to draw each rejection code (integers only). */
const MANGLES: Partial<Record<keyof PlaceOrder, unknown>>[] = [
  { marketId: 99 }, { qtyLots: 0 }, { qtyLots: -3 }, { qtyLots: 10_000_000 }, { priceTicks: 0 }, { priceTicks: 1 },
  { priceTicks: 2_000_000_000 }, { side: 'BOTH' }, { orderType: 'OCO' }, { timeInForce: 'DAY' }, { stp: 'EXPIRE_ALL' },
  { clientOrderId: 'no spaces allowed' }, { positionSide: 'BOTH' }, { account: '0x12' }, { sub: 40 },
]

interface Who { account: string; sub: number; hedge: boolean }

function who(o: Required<StreamOptions>): fc.Arbitrary<Who> {
  const n = Math.min(o.accounts, MODEL_ACCOUNTS.length)
  return fc.record({ i: fc.integer({ min: 0, max: n - 1 }), sub: weighted([9, fc.constant(0)], [1, fc.constant(1)]) })
    .map(({ i, sub }) => ({ account: MODEL_ACCOUNTS[i]!, sub, hedge: o.hedgeAccount && i === n - 1 && sub === 0 }))
}

const stpArb: fc.Arbitrary<StpMode | undefined> = weighted<StpMode | undefined>(
  [4, fc.constant(undefined)], [4, fc.constant('NONE')], [1, fc.constant('EXPIRE_TAKER')],
  [1, fc.constant('EXPIRE_MAKER')], [1, fc.constant('EXPIRE_BOTH')])
/** Spot orders add Binance spot's DECREMENT and TRANSFER (core/prevention.ts). */
const spotStpArb: fc.Arbitrary<StpMode | undefined> = weighted<StpMode | undefined>(
  [4, fc.constant(undefined)], [4, fc.constant('NONE')], [1, fc.constant('EXPIRE_TAKER')],
  [1, fc.constant('EXPIRE_MAKER')], [1, fc.constant('EXPIRE_BOTH')], [2, fc.constant('DECREMENT')], [1, fc.constant('TRANSFER')])

function placeDraft(p: MarketProfile, o: Required<StreamOptions>): fc.Arbitrary<Draft> {
  const perp = p.kind === 'PERP'
  return fc.record({
    who: who(o),
    dtMs: smallDt,
    side: fc.constantFrom<Side>('BUY', 'SELL'),
    type: weighted([14, fc.constant('LIMIT' as const)], [3, fc.constant('MARKET' as const)], [2, fc.constant('POST_ONLY' as const)]),
    tif: weighted([6, fc.constant(undefined)], [6, fc.constant('GTC' as const)], [3, fc.constant('IOC' as const)],
      [3, fc.constant('FOK' as const)], [2, fc.constant('GTX' as const)], [3, fc.constant('GTD' as const)]),
    offset: fc.integer({ min: -p.spreadTicks, max: p.spreadTicks }),
    lots: fc.integer({ min: 1, max: p.maxLots }),
    clientOrderId: weighted([1, fc.constant(undefined)], [1, fc.constantFrom(...CLIENT_IDS)]),
    stp: perp ? stpArb : spotStpArb,
    reduceOnly: perp ? weighted([8, fc.constant(undefined)], [2, fc.constant(true)], [1, fc.constant(false)]) : fc.constant(undefined),
    hedgeSide: fc.constantFrom('LONG' as const, 'SHORT' as const),
    strayPositionSide: weighted([20, fc.constant(false)], [1, fc.constant(true)]),
    gtdAheadMs: weighted([5, fc.integer({ min: 600_001, max: 3_000_000 })], [1, fc.integer({ min: 0, max: 600_000 })]),
    mangle: weighted([30, fc.constant(undefined)], [1, fc.constantFrom(...MANGLES)]),
  }).map((r): Draft => {
    const command: PlaceOrder = {
      type: 'PlaceOrder', account: r.who.account, sub: r.who.sub, marketId: p.marketId, side: r.side, orderType: r.type,
      qtyLots: r.lots,
    }
    // About a third of spot market orders are sized by quote (quoteOrderQty): the cost of their
    // lots a few ticks off the mid (1 quote unit per tick·lot on the default spot markets).
    // Drawn from the offset a market order does not use, so the streams' other draws, and the
    // seeds the suite pins, stay as they were.
    if (!perp && r.type === 'MARKET' && Math.abs(r.offset) % 3 === 0) {
      command.qtyLots = 0
      command.quoteQty = r.lots * (p.midTicks + r.offset)
    }
    if (r.type !== 'MARKET') command.priceTicks = p.midTicks + r.offset
    if (r.type === 'LIMIT' && r.tif !== undefined) command.timeInForce = r.tif
    // Extended streams: a spot post-only order at an odd offset is a stop instead, from the draws
    // it leaves unused (the time in force picks stop-loss or take-profit, the offset market or
    // limit form and the distance), so the streams' other draws stay as they were. Its stop lies
    // on the side that waits, 2–24 ticks from the mid; a limit form's price a tick beyond it.
    if (o.extended && !perp && r.type === 'POST_ONLY' && Math.abs(r.offset) % 2 === 1) Object.assign(command, spotStop(p, r))
    // A third of them trail (trailingDelta 10–99 BIPS), from the GTD lead a post-only draft leaves
    // unused; a short hedge side (unused on spot) drops the stop price, so those trail at once.
    if (command.stopPriceTicks !== undefined && r.gtdAheadMs % 3 === 0) {
      command.trailingDeltaBips = 10 + r.gtdAheadMs % 90
      if (r.hedgeSide === 'SHORT') delete command.stopPriceTicks
    }
    // A sixth of spot limit orders (and limit stops) are icebergs, again from draws spot leaves
    // unused (a short hedge side, the GTD lead): slices of 1–4 lots, at least a tenth of the
    // order (ICEBERG_PARTS), but a fifth of 1 lot (too many parts over 10 lots); those not GTC are refused.
    if (!perp && r.hedgeSide === 'SHORT' && r.gtdAheadMs % 3 === 1 && command.priceTicks !== undefined) {
      command.icebergLots = r.gtdAheadMs % 5 === 1 ? 1 : Math.max(Math.ceil(r.lots / 10), 1 + r.gtdAheadMs % 4)
    }
    if (r.clientOrderId !== undefined) command.clientOrderId = r.clientOrderId
    if (r.stp !== undefined) command.stp = r.stp
    if (perp) {
      if (r.who.hedge !== r.strayPositionSide) command.positionSide = r.hedgeSide
      else if (r.reduceOnly !== undefined) command.reduceOnly = r.reduceOnly
    }
    if (r.mangle !== undefined) Object.assign(command, r.mangle)
    // Some of those stops, stop losses a multiple of 8 ticks and 3 or 5 more from the mid, go
    // with a LIMIT_MAKER as far on the other side in an OCO list, again from unused draws.
    const k = Math.abs(r.offset)
    if (command.stopPriceTicks !== undefined && r.mangle === undefined && (command.orderType === 'STOP' || command.orderType === 'STOP_MARKET')
      && (k % 8 === 3 || k % 8 === 5)) {
      return { dtMs: r.dtMs, command: ocoOf(p, command) }
    }
    // And some spot GTC limits (a long hedge side and a GTD lead a multiple of 4 ms, both unused
    // on spot) are an OTO list's working order, exiting at its mirror across the mid, or at it
    // and at a stop as far on the other side (OTOCO); a third of the buys among them exit with
    // what they bring (OPO, OPOCO).
    if (o.extended && !perp && r.mangle === undefined && command.orderType === 'LIMIT' && command.timeInForce === 'GTC'
      && r.hedgeSide === 'LONG' && r.gtdAheadMs % 4 === 0) {
      return { dtMs: r.dtMs, command: otoOf(p, command, r.gtdAheadMs % 8 === 0, command.side === 'BUY' && r.gtdAheadMs % 3 === 0) }
    }
    // About a sixth of the other spot limit and post-only orders (and limit stops, in extended
    // streams) are pegged, from draws spot leaves unused (a stray position side, the GTD lead):
    // MARKET_PEG or PRIMARY_PEG by the quantity, a level offset of 0–2 by the delay, the price sent
    // with it or not by the offset. Some are refused: a MARKET_PEG post-only, a PRIMARY_PEG not GTC, no level.
    if (!perp && (r.strayPositionSide || r.gtdAheadMs % 9 === 3) && command.priceTicks !== undefined && r.mangle === undefined) {
      command.pegPriceType = r.lots % 3 === 0 ? 'MARKET_PEG' : 'PRIMARY_PEG'
      if (r.dtMs % 2 === 0) command.pegOffsetLevels = r.dtMs % 3
      if (Math.abs(r.offset) % 2 === 0) delete command.priceTicks
    }
    const draft: Draft = { dtMs: r.dtMs, command }
    if (command.timeInForce === 'GTD') draft.gtdAheadMs = r.gtdAheadMs
    return draft
  })
}

/** An OTO (or OTOCO; `opo`: OPO, OPOCO) list around a spot limit (see placeDraft). */
function otoOf(p: MarketProfile, working: PlaceOrder, pair: boolean, opo: boolean): PlaceOtoList {
  const exit = working.side === 'BUY' ? 'SELL' : 'BUY'
  const away = Math.max(2, Math.abs(p.midTicks - working.priceTicks!))
  const profit = exit === 'SELL' ? p.midTicks + away : p.midTicks - away
  const loss = exit === 'SELL' ? p.midTicks - 2 * away : p.midTicks + 2 * away
  const list: PlaceOtoList = { type: 'PlaceOtoList', account: working.account, sub: working.sub, marketId: working.marketId,
    working: { orderType: 'LIMIT', side: working.side, priceTicks: working.priceTicks!, qtyLots: working.qtyLots, timeInForce: 'GTC' },
    pendingSide: exit, pendingQtyLots: Math.max(1, working.qtyLots - 1) }
  const maker: ListLeg = { orderType: 'POST_ONLY', priceTicks: profit }
  const stop: ListLeg = { orderType: 'STOP_MARKET', stopPriceTicks: loss }
  if (!pair) list.pending = maker
  else if (exit === 'SELL') Object.assign(list, { pendingAbove: maker, pendingBelow: stop })
  else Object.assign(list, { pendingAbove: stop, pendingBelow: maker })
  if (working.clientOrderId !== undefined) list.working.clientOrderId = working.clientOrderId
  if (working.stp !== undefined) list.stp = working.stp
  if (opo) Object.assign(list, { opo, pendingQtyLots: 0 })
  return list
}

/** An OCO list around a spot stop loss (see placeDraft): a LIMIT_MAKER mirrored across the mid. */
function ocoOf(p: MarketProfile, stop: PlaceOrder): PlaceOrderList {
  const stopLeg: ListLeg = { orderType: stop.orderType, stopPriceTicks: stop.stopPriceTicks }
  if (stop.trailingDeltaBips !== undefined) stopLeg.trailingDeltaBips = stop.trailingDeltaBips
  if (stop.priceTicks !== undefined) Object.assign(stopLeg, { priceTicks: stop.priceTicks, timeInForce: stop.timeInForce })
  const maker: ListLeg = { orderType: 'POST_ONLY', priceTicks: 2 * p.midTicks - stop.stopPriceTicks! }
  if (stop.clientOrderId !== undefined) maker.clientOrderId = stop.clientOrderId
  // An iceberg stop limit (see placeDraft): both legs show slices of that size.
  if (stop.icebergLots !== undefined) stopLeg.icebergLots = maker.icebergLots = stop.icebergLots
  const list: PlaceOrderList = { type: 'PlaceOrderList', account: stop.account, sub: stop.sub, marketId: stop.marketId, side: stop.side,
    qtyLots: stop.qtyLots, above: stop.side === 'SELL' ? maker : stopLeg, below: stop.side === 'SELL' ? stopLeg : maker }
  if (stop.stp !== undefined) list.stp = stop.stp
  return list
}

/** The stop fields of a spot post-only draft turned stop (see placeDraft). */
function spotStop(p: MarketProfile, r: { side: Side; offset: number; tif: TimeInForce | undefined }): Partial<PlaceOrder> {
  const k = Math.abs(r.offset)
  const takeProfit = r.tif === 'IOC' || r.tif === 'FOK'
  const marketForm = k % 4 === 1
  const orderType = takeProfit ? (marketForm ? 'TAKE_PROFIT_MARKET' : 'TAKE_PROFIT') : marketForm ? 'STOP_MARKET' : 'STOP'
  // STOP BUY and TAKE_PROFIT SELL fire as the price rises: their stop is above the mid.
  const rising = !takeProfit === (r.side === 'BUY')
  const stopPriceTicks = p.midTicks + (rising ? 2 * k : -2 * k)
  const out: Partial<PlaceOrder> = { orderType, stopPriceTicks, priceTicks: undefined, timeInForce: undefined }
  if (!marketForm) {
    out.priceTicks = stopPriceTicks + (r.side === 'BUY' ? 1 : -1)
    out.timeInForce = 'GTC'
  }
  return out
}

function cancelDraft(p: MarketProfile, o: Required<StreamOptions>): fc.Arbitrary<Draft> {
  const generatedId = fc.integer({ min: 1, max: 60 }).map((n) => `x-${p.marketId}-${n}`)
  return fc.record({
    who: who(o),
    dtMs: smallDt,
    by: weighted([2, fc.constant('id' as const)], [2, fc.constant('cid' as const)], [1, fc.constant('both' as const)],
      [6, fc.constant('open' as const)]),
    orderId: fc.integer({ min: 1, max: 60 }),
    clientOrderId: weighted([3, fc.constantFrom(...CLIENT_IDS)], [1, generatedId]),
    pick: fc.nat({ max: 15 }),
    restriction: weighted([8, fc.constant(undefined)], [1, fc.constant('ONLY_NEW' as const)],
      [1, fc.constant('ONLY_PARTIALLY_FILLED' as const)]),
  }).map((r): Draft => {
    const command: Command = { type: 'CancelOrder', account: r.who.account, sub: r.who.sub, marketId: p.marketId }
    if (r.by !== 'cid') command.orderId = r.orderId
    if (r.by === 'cid' || r.by === 'both') command.clientOrderId = r.clientOrderId
    if (r.restriction !== undefined) command.restriction = r.restriction
    // Now and then the cancel names itself (spot's newClientOrderId), from the pick a cancel by
    // both ids leaves unused: the streams' other draws stay as they were.
    if (r.by === 'both' && r.pick % 2 === 0) command.cancelClientOrderId = `cancel-${r.pick}`
    const draft: Draft = { dtMs: r.dtMs, command }
    if (r.by === 'open') draft.cancelPick = r.pick
    return draft
  })
}

/**
 * A conditional order (extended streams): each type, both working types, closePosition and
 * reduce-only, its trigger mostly on the side that waits (a trigger that would fire at once
 * is refused), mostly within 1 % of the mid, at most 3 %; a client re-centres it on the price of the moment.
 */
function conditionalDraft(p: MarketProfile, o: Required<StreamOptions>): fc.Arbitrary<Draft> {
  return fc.record({
    who: who(o),
    dtMs: smallDt,
    side: fc.constantFrom<Side>('BUY', 'SELL'),
    type: fc.constantFrom<ConditionalType>('STOP', 'STOP_MARKET', 'TAKE_PROFIT', 'TAKE_PROFIT_MARKET', 'TRAILING_STOP_MARKET'),
    workingType: weighted<WorkingType | undefined>([2, fc.constant(undefined)], [2, fc.constant('CONTRACT_PRICE')], [3, fc.constant('MARK_PRICE')]),
    distPpm: weighted([4, fc.integer({ min: 50, max: 2_000 })], [2, fc.integer({ min: 2_000, max: 10_000 })],
      [1, fc.integer({ min: 10_000, max: 30_000 })]),
    waits: weighted([6, fc.constant(true)], [1, fc.constant(false)]),
    limitOffset: fc.integer({ min: -p.spreadTicks, max: p.spreadTicks }),
    lots: fc.integer({ min: 1, max: p.maxLots }),
    close: weighted([4, fc.constant(false)], [1, fc.constant(true)]),
    reduceOnly: weighted([3, fc.constant(undefined)], [1, fc.constant(true)]),
    callbackPermille: fc.integer({ min: 1, max: 30 }),
    activation: fc.boolean(),
    priceProtect: weighted([5, fc.constant(undefined)], [1, fc.constant(true)]),
    hedgeSide: fc.constantFrom('LONG' as const, 'SHORT' as const),
    clientOrderId: weighted([3, fc.constant(undefined)], [1, fc.constantFrom(...CLIENT_IDS)]),
  }).map((r): Draft => {
    const buy = r.side === 'BUY'
    // Rising triggers (price ≥ stop): STOP BUY, TAKE_PROFIT SELL, a trailing SELL's activation.
    const rising = r.type === 'STOP' || r.type === 'STOP_MARKET' ? buy : !buy
    const dist = Math.max(1, Math.round(p.midTicks * r.distPpm / 1_000_000))
    const trigger = p.midTicks + ((rising === r.waits) ? dist : -dist)
    const command: PlaceOrder = {
      type: 'PlaceOrder', account: r.who.account, sub: r.who.sub, marketId: p.marketId, side: r.side, orderType: r.type,
      qtyLots: r.lots,
    }
    if (r.type === 'TRAILING_STOP_MARKET') {
      command.callbackPermille = r.callbackPermille
      if (r.activation) command.activationPriceTicks = trigger
    } else {
      command.stopPriceTicks = trigger
    }
    if (r.type === 'STOP' || r.type === 'TAKE_PROFIT') {
      command.priceTicks = trigger + r.limitOffset
      command.timeInForce = 'GTC'
    }
    if (r.workingType !== undefined) command.workingType = r.workingType
    if (r.priceProtect !== undefined) command.priceProtect = r.priceProtect
    if (r.clientOrderId !== undefined) command.clientOrderId = r.clientOrderId
    if (r.who.hedge) command.positionSide = r.hedgeSide
    if (r.close && (r.type === 'STOP_MARKET' || r.type === 'TAKE_PROFIT_MARKET')) {
      // Closes the whole position at trigger: no quantity; in hedge mode the side it closes.
      command.closePosition = true
      delete (command as { qtyLots?: number }).qtyLots
      if (r.who.hedge) command.positionSide = buy ? 'SHORT' : 'LONG'
    } else if (r.reduceOnly !== undefined && !r.who.hedge) {
      command.reduceOnly = r.reduceOnly
    }
    return { dtMs: r.dtMs, command }
  })
}

/** Isolated margin (extended streams): margin type changes and isolated wallet top-ups and withdrawals. */
function marginDrafts(o: Required<StreamOptions>, perps: readonly MarketProfile[]): [number, fc.Arbitrary<Draft>][] {
  const q = o.quoteUnit
  const market = fc.constantFrom(...perps.map((p) => p.marketId))
  return [
    [1, fc.record({ who: who(o), dtMs: smallDt, marketId: market, isolated: fc.boolean() })
      .map((r): Draft => ({ dtMs: r.dtMs, command: { type: 'ChangeMarginType', account: r.who.account, sub: r.who.sub,
        marketId: r.marketId, marginType: r.isolated ? 'ISOLATED' : 'CROSSED' } }))],
    [2, fc.record({
      who: who(o), dtMs: smallDt, marketId: market, side: fc.constantFrom('LONG' as const, 'SHORT' as const),
      add: fc.boolean(), amount: fc.integer({ min: 1, max: 300 * q }), isolatedOne: fc.boolean(),
    }).map((r): Draft => {
      // Half aimed at the account the prelude made isolated in the first perpetual.
      const w = r.isolatedOne ? { account: MODEL_ACCOUNTS[1]!, sub: 0, hedge: false } : r.who
      const marketId = r.isolatedOne ? perps[0]!.marketId : r.marketId
      return { dtMs: r.dtMs, command: { type: 'AdjustPositionMargin', account: w.account, sub: w.sub,
        marketId, positionSide: w.hedge ? r.side : 'BOTH', amount: r.amount, direction: r.add ? 'ADD' : 'REDUCE' } }
    })],
  ]
}

function depositDraft(o: Required<StreamOptions>, spots: readonly MarketProfile[]): fc.Arbitrary<Draft> {
  const q = o.quoteUnit
  const kinds: [number, fc.Arbitrary<{ asset: string; wallet: 'SPOT' | 'PERP'; amount: number }>][] = [
    // (Extended streams keep perp wallets thin: leverage is what they exercise.)
    [3, fc.integer({ min: 50 * q, max: (o.extended ? 500 : 5_000) * q }).map((amount) => ({ asset: 'USDT', wallet: 'PERP' as const, amount }))],
    [2, fc.integer({ min: 50 * q, max: 20_000 * q }).map((amount) => ({ asset: 'USDT', wallet: 'SPOT' as const, amount }))],
  ]
  for (const s of spots) {
    kinds.push([2, fc.integer({ min: 1, max: s.baseDepositMax }).map((amount) => ({ asset: s.base, wallet: 'SPOT' as const, amount }))])
  }
  return fc.record({
    who: who(o), dtMs: smallDt, what: weighted(...kinds),
    sharedRef: weighted([9, fc.constant(undefined)], [1, fc.integer({ min: 0, max: 3 })]),
  }).map((r): Draft => ({
    dtMs: r.dtMs, sharedRef: r.sharedRef,
    command: { type: 'Deposit', account: r.who.account, sub: r.who.sub, ref: '', ...r.what },
  }))
}

function walletDrafts(o: Required<StreamOptions>, spots: readonly MarketProfile[]): [number, fc.Arbitrary<Draft>][] {
  const q = o.quoteUnit
  const assets = ['USDT', ...spots.map((s) => s.base)]
  return [
    [5, depositDraft(o, spots)],
    [4, fc.record({
      who: who(o), dtMs: smallDt, toPerp: fc.boolean(), amount: fc.integer({ min: 1, max: (o.extended ? 300 : 3_000) * q }),
    }).map((r): Draft => ({ dtMs: r.dtMs, command: { type: 'Transfer', account: r.who.account, sub: r.who.sub,
      direction: r.toPerp ? 'SPOT_TO_PERP' : 'PERP_TO_SPOT', amount: r.amount } }))],
    // Between sub-accounts 0, 1 and 2 (made by the transfer), asked by the source or the master.
    [2, fc.record({
      who: who(o), dtMs: smallDt, to: fc.integer({ min: 0, max: 2 }), byMaster: fc.boolean(), asset: fc.constantFrom(...assets),
      fromPerp: fc.boolean(), toPerp: fc.boolean(), amount: fc.integer({ min: 1, max: 3_000 * q }),
    }).map((r): Draft => ({ dtMs: r.dtMs, command: { type: 'SubAccountTransfer', account: r.who.account, sub: r.byMaster ? 0 : r.who.sub,
      fromSub: r.who.sub, toSub: r.to, asset: r.fromPerp || r.toPerp ? 'USDT' : r.asset,
      fromWallet: r.fromPerp ? 'PERP' : 'SPOT', toWallet: r.toPerp ? 'PERP' : 'SPOT', amount: r.amount } }))],
    [2, fc.record({
      who: who(o), dtMs: smallDt, asset: fc.constantFrom(...assets), amount: fc.integer({ min: 1, max: 2_000 * q }),
    }).map((r): Draft => ({ dtMs: r.dtMs, command: { type: 'WithdrawalRequest', account: r.who.account, sub: r.who.sub,
      asset: r.asset, amount: r.amount, address: r.who.account } }))],
    [2, fc.record({ dtMs: smallDt, id: fc.integer({ min: 1, max: 12 }), complete: fc.boolean() })
      .map((r): Draft => ({ dtMs: r.dtMs, command: r.complete
        ? { type: 'WithdrawalComplete', withdrawalId: r.id, txId: `0xtx${r.id}` }
        : { type: 'WithdrawalFail', withdrawalId: r.id, reason: 'rejected by the chain' } }))],
  ]
}

function settingsDrafts(o: Required<StreamOptions>, perps: readonly MarketProfile[]): [number, fc.Arbitrary<Draft>][] {
  const out: [number, fc.Arbitrary<Draft>][] = [
    [1, fc.record({ who: who(o), dtMs: smallDt, dualSide: fc.boolean() })
      .map((r): Draft => ({ dtMs: r.dtMs, command: { type: 'ChangePositionMode', account: r.who.account, sub: r.who.sub,
        dualSide: r.dualSide } }))],
    [3, fc.integer({ min: 1, max: 1_500_000 }).map((dtMs): Draft => ({ dtMs, command: { type: 'Tick' } }))],
    // Halts are rare and short: a market is set back to TRADING six times as often.
    ...(['HALT', 'TRADING'] as const).map((status): [number, fc.Arbitrary<Draft>] => [status === 'HALT' ? 1 : 6,
      fc.record({ dtMs: smallDt, marketId: fc.constantFrom(...o.markets.map((m) => m.marketId)) })
        .map((r): Draft => ({ dtMs: r.dtMs, command: { type: 'SetMarketStatus', marketId: r.marketId, status } }))]),
  ]
  if (perps.length > 0) {
    out.push([2, fc.record({
      who: who(o), dtMs: smallDt, marketId: fc.constantFrom(...perps.map((p) => p.marketId)),
      leverage: fc.constantFrom(0, 1, 2, 3, 5, 10, 20, 20, 50, 75, 100, 125, 125, 126),
    }).map((r): Draft => ({ dtMs: r.dtMs, command: { type: 'ChangeLeverage', account: r.who.account, sub: r.who.sub,
      marketId: r.marketId, leverage: r.leverage } }))])
  }
  return out
}

/** Every account starts with money in each wallet; the hedge account turns hedge mode on. */
function preludeDrafts(o: Required<StreamOptions>, spots: readonly MarketProfile[], perps: readonly MarketProfile[]): fc.Arbitrary<Draft[]> {
  const n = Math.min(o.accounts, MODEL_ACCOUNTS.length)
  const q = o.quoteUnit
  const perAccount = (i: number): fc.Arbitrary<Draft[]> => fc.record({
    // Extended streams: thin perp wallets, so leveraged positions meet their liquidation price.
    perp: o.extended ? fc.integer({ min: 100 * q, max: 2_000 * q }) : fc.integer({ min: 200 * q, max: 20_000 * q }),
    // (A constant draws nothing: the model's streams stay as they were.)
    extra: o.extended ? fc.record({ leverage: fc.constantFrom(20, 50, 75, 100, 125), isolated: fc.boolean() })
      : fc.constant({ leverage: 0, isolated: false }),
    spot: fc.integer({ min: 200 * q, max: 50_000 * q }),
    bases: fc.tuple(...spots.map((s) => fc.integer({ min: 1, max: s.baseDepositMax }))),
  }).map((r) => {
    const account = MODEL_ACCOUNTS[i]!
    const dep = (asset: string, wallet: 'SPOT' | 'PERP', amount: number): Draft =>
      ({ dtMs: 1, command: { type: 'Deposit', account, sub: 0, asset, amount, wallet, ref: '' } })
    const out = [dep('USDT', 'PERP', r.perp), dep('USDT', 'SPOT', r.spot)]
    spots.forEach((s, k) => out.push(dep(s.base, 'SPOT', r.bases[k]!)))
    if (o.hedgeAccount && i === n - 1) out.push({ dtMs: 1, command: { type: 'ChangePositionMode', account, sub: 0, dualSide: true } })
    if (o.extended) {
      for (const p of perps) out.push({ dtMs: 1, command: { type: 'ChangeLeverage', account, sub: 0, marketId: p.marketId, leverage: r.extra.leverage } })
      // The second account trades the first perpetual isolated (set while it is still flat).
      if (i === 1 && perps.length > 0) {
        out.push({ dtMs: 1, command: { type: 'ChangeMarginType', account, sub: 0, marketId: perps[0]!.marketId, marginType: 'ISOLATED' } })
      } else if (r.extra.isolated && perps.length > 1) {
        out.push({ dtMs: 1, command: { type: 'ChangeMarginType', account, sub: 0, marketId: perps[1]!.marketId, marginType: 'ISOLATED' } })
      }
    }
    return out
  })
  // Half the streams declare the newest rules first (their sub-account transfers apply), half
  // declare none (those transfers are unknown commands, as on a log from before rules 3).
  const rules: fc.Arbitrary<Draft[]> = fc.boolean().map((declared) => declared
    ? [{ dtMs: 1, command: { type: 'SetRules', version: RULES_VERSION, leafSeed: `0x${'5e'.repeat(32)}` } }] : [])
  return fc.tuple(rules, ...Array.from({ length: n }, (_, i) => perAccount(i))).map((all) => all.flat())
}

/** Places drafts in time: absolute times, GTD dates and deposit refs. */
function timeline(drafts: Draft[]): TimedCommand[] {
  let time = START_TIME
  return drafts.map((d, i) => {
    time += d.dtMs
    let command = d.command
    if (d.gtdAheadMs !== undefined) command = { ...command, goodTillDate: time + d.gtdAheadMs } as PlaceOrder
    if (command.type === 'Deposit') {
      command = { ...command, ref: d.sharedRef !== undefined ? `shared-${d.sharedRef}` : `dep-${i}` } as Deposit
    }
    return d.cancelPick === undefined ? { time, command } : { time, command, cancelPick: d.cancelPick }
  })
}

/** How far the spot prices of an extended stream drift at most: 0.6 % of the mid, past most trailing deltas (10–99 BIPS). */
const SPOT_DRIFT_PPM = 6_000

/**
 * Extended streams: the spot prices drift up and back (a triangle over the stream, its top
 * SPOT_DRIFT_PPM above the mid), so that the last price moves far enough for trailing stops to
 * trail and fire, and stops and pegged orders meet a moving book. Every price of a spot order or
 * list moves with it; a price far from the mid (a mangled one) stays as drawn.
 */
function drifted(drafts: Draft[], spots: readonly MarketProfile[]): Draft[] {
  const n = drafts.length
  return drafts.map((d, i) => {
    const c = d.command
    const p = 'marketId' in c ? spots.find((x) => x.marketId === c.marketId) : undefined
    if (p === undefined || (c.type !== 'PlaceOrder' && c.type !== 'PlaceOrderList' && c.type !== 'PlaceOtoList')) return d
    const half = n / 2
    const shift = Math.round((p.midTicks * SPOT_DRIFT_PPM / 1_000_000) * (i < half ? i / half : (n - i) / half))
    // A copy with its prices moved; fields it lacks stay absent.
    const moved = <T extends { priceTicks?: number; stopPriceTicks?: number }>(x: T): T => {
      const out = { ...x }
      for (const k of ['priceTicks', 'stopPriceTicks'] as const) {
        const v = x[k]
        if (v !== undefined && Math.abs(v - p.midTicks) < p.midTicks / 10) out[k] = v + shift
      }
      return out
    }
    if (c.type === 'PlaceOrder') return { ...d, command: moved(c) }
    if (c.type === 'PlaceOrderList') return { ...d, command: { ...c, above: moved(c.above), below: moved(c.below) } }
    const list: PlaceOtoList = { ...c, working: moved(c.working) }
    if (c.pending !== undefined) list.pending = moved(c.pending)
    if (c.pendingAbove !== undefined) list.pendingAbove = moved(c.pendingAbove)
    if (c.pendingBelow !== undefined) list.pendingBelow = moved(c.pendingBelow)
    return { ...d, command: list }
  })
}

/** A random stream of commands (after genesis), starting with the funding prelude. */
export function commandStream(options: StreamOptions = {}): fc.Arbitrary<TimedCommand[]> {
  const o: Required<StreamOptions> = {
    markets: [PROFILES.BTCPERP, PROFILES.BTCSPOT], accounts: 4, minLength: 1, maxLength: 250,
    hedgeAccount: true, quoteUnit: QUOTE, extended: false, ...options,
  }
  const perps = o.markets.filter((m) => m.kind === 'PERP')
  const spots = o.markets.filter((m) => m.kind === 'SPOT')
  const drafts: [number, fc.Arbitrary<Draft>][] = [
    ...walletDrafts(o, spots),
    ...settingsDrafts(o, perps),
  ]
  for (const p of o.markets) {
    const share = p.kind === 'PERP' ? 36 / perps.length : 20 / spots.length
    drafts.push([Math.max(1, Math.round(share)), placeDraft(p, o)])
    drafts.push([Math.max(1, Math.round(share / 4)), cancelDraft(p, o)])
    drafts.push([1, fc.record({ who: who(o), dtMs: smallDt }).map((r): Draft => ({ dtMs: r.dtMs,
      command: { type: 'CancelAll', account: r.who.account, sub: r.who.sub, marketId: p.marketId } }))])
    if (o.extended && p.kind === 'PERP') {
      drafts.push([Math.max(1, Math.round(share / 2)), conditionalDraft(p, o)])
      drafts.push([1, fc.record({ who: who(o), dtMs: smallDt }).map((r): Draft => ({ dtMs: r.dtMs,
        command: { type: 'CancelAll', account: r.who.account, sub: r.who.sub, marketId: p.marketId, conditionalOnly: true } }))])
    }
  }
  if (o.extended && perps.length > 0) drafts.push(...marginDrafts(o, perps))
  return fc.tuple(preludeDrafts(o, spots, perps), fc.array(weighted(...drafts), { minLength: o.minLength, maxLength: o.maxLength, size: 'max' }))
    .map(([prelude, body]) => timeline([...prelude, ...(o.extended ? drifted(body, spots) : body)]))
}
