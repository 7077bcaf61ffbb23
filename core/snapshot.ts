// Snapshot of the whole state at an exact seq, as msgpack bytes. Restoring it gives the same
// state root and the same results for every later command: books keep their FIFO order and
// each account's open orders keep their placement order.

import { Packr } from 'msgpackr'
import { assert } from './assert.js'
import { arm } from './conditional.js'
import { indexSpotStop } from './spot-stops.js'
import { indexPending } from './oto-lists.js'
import { DEFAULT_LIQUIDATION_FEE_PPM, DEFAULT_PRICE_BAND_PPM, DEFAULT_TRIGGER_PROTECT_PPM, perpMarketOf, spotMarketOf, type PerpFields, type SpotFields } from './genesis.js'
import { isConditionalType } from './trigger-index.js'
import { newPriceState } from './prices.js'
import { isClosing } from './records.js'
import type { ConditionalType, CreatePerpMarket, MarginType, OrderType, PegPriceType, PositionSide, PriceMatch, Side, StpMode, TimeInForce, WorkingType } from './commands.js'
import type { OrderStatus, Peg, WithdrawalStatus } from './events.js'
import { addMarginLots, openOrderOf } from './resting.js'
import {
  createState, newSubAccount,
  type Conditional, type Market, type Order, type OrderList, type PerpHolding, type PerpMarket, type Position, type Session, type SpotMarket, type State, type SubAccount, type Withdrawal,
} from './state.js'

const VERSION = 1
const packr = new Packr({ useRecords: false })

type PositionTuple = [number, number, number, number?, number?]
type OrderTuple = [number, string, number, string, Side, OrderType, TimeInForce, number, number, number, number,
  OrderStatus, PositionSide, boolean, StpMode, number, number, number, boolean, number, (CondTuple | null)?, (ExtraTuple | null)?, (ListTuple | null)?,
  (IcebergTuple | null)?, (PegTuple | null)?, (PreventedTuple | null)?, StrategyTuple?]
/**
 * A conditional order's trigger state (core/conditional.ts), appended to its order tuple; a
 * spot trailing stop's delta and trailing time last, only on those.
 */
type CondTuple = [ConditionalType, number, number, number, WorkingType, boolean, boolean, boolean, number, number, string, number?, number?]
/** Amendment count and priceMatch, appended (after a null cond) only when either is set. */
type ExtraTuple = [number, PriceMatch | '']
/**
 * A list's order (core/order-lists.ts, oto-lists.ts): the list's id, client id, done, placement
 * time, contingency, the working order's id while it works (0 otherwise), every order's ids, and
 * (only when set) the OPO flag; after a null cond and extra when those are absent.
 */
type ListTuple = [number, string, boolean, number, OrderList['contingency'], number, [number, string][], true?]
/** An iceberg's slice and the lots it shows now; only on icebergs. */
type IcebergTuple = [number, number]
/** A pegged order's peg (core/peg.ts); only on pegged orders. */
type PegTuple = [PegPriceType, number, number]
/** Lots DECREMENT self-trade prevention took off the order and its last prevented match (core/prevention.ts); only on such orders. */
type PreventedTuple = [number, number]
/** A spot order's strategyId and strategyType (rules 7, core/strategy.ts; -1 and 0 for one not sent); last, only on tagged orders. */
type StrategyTuple = [number, number]

// Trailing zeros (realized PnL, realized since open) are left out.
const posTuple = (p: Position): PositionTuple => p.realizedSinceOpen !== 0
  ? [p.qtyLots, p.costTicksLots, p.updateTime, p.realizedPnl, p.realizedSinceOpen]
  : p.realizedPnl === 0 ? [p.qtyLots, p.costTicksLots, p.updateTime] : [p.qtyLots, p.costTicksLots, p.updateTime, p.realizedPnl]
const fromPos = (t: PositionTuple): Position => ({ qtyLots: t[0], costTicksLots: t[1], updateTime: t[2], isolatedWallet: 0,
  realizedPnl: t[3] ?? 0, realizedSinceOpen: t[4] ?? 0 })
/** Margin type and isolated wallets of a holding (BOTH, LONG, SHORT); absent when all default. */
type IsolatedTuple = [MarginType, number, number, number]

function orderTuple(o: Order): OrderTuple {
  const t: OrderTuple = [o.orderId, o.owner.address, o.owner.sub, o.clientOrderId, o.side, o.orderType, o.timeInForce, o.priceTicks,
    o.origQtyLots, o.executedQtyLots, o.cumQuoteTicksLots, o.status, o.positionSide, o.reduceOnly, o.stp,
    o.goodTillDate, o.time, o.updateTime, o.marginCounted, o.lockedRemaining]
  // The optional parts follow in a fixed order, absent ones as null, trailing ones left out.
  const c = o.cond
  let ct: CondTuple | null = null
  if (c) {
    ct = [c.origType, c.stopPriceTicks, c.activationPriceTicks, c.callbackPermille, c.workingType, c.priceProtect,
      c.closePosition, c.activated, c.extremeTicks, c.triggerTime, c.reason]
    if (c.trailingDeltaBips !== 0) ct.push(c.trailingDeltaBips, c.trailingTime)
  }
  const extra: ExtraTuple | null = o.amendCount || o.priceMatch !== undefined ? [o.amendCount, o.priceMatch ?? ''] : null
  const l = o.list
  let lt: ListTuple | null = null
  if (l !== null) {
    lt = [l.orderListId, l.listClientOrderId, l.done, l.time, l.contingency, l.working?.orderId ?? 0,
      l.orders.map((x) => [x.orderId, x.clientOrderId])]
    if (l.opo) lt.push(true)
  }
  const iceberg: IcebergTuple | null = o.icebergLots !== 0 ? [o.icebergLots, o.visibleLots] : null
  const peg: PegTuple | null = o.peg !== null ? [o.peg.type, o.peg.offsetLevels, o.peg.sentPriceTicks] : null
  const prevented: PreventedTuple | null = o.preventedLots !== 0 ? [o.preventedLots, o.preventedMatchId] : null
  const strategy: StrategyTuple | null = o.strategyId >= 0 || o.strategyType !== 0 ? [o.strategyId, o.strategyType] : null
  const parts = [ct, extra, lt, iceberg, peg, prevented, strategy]
  let n = parts.length
  while (n > 0 && parts[n - 1] === null) n--
  for (let i = 0; i < n; i++) (t as unknown[]).push(parts[i])
  return t
}

/** Sets the amendment count and priceMatch an order tuple carries (absent from older snapshots). */
function restoreExtra(o: Order, t: ExtraTuple | null | undefined): void {
  if (t === undefined || t === null) return
  if (t[0] > 0) o.amendCount = t[0]
  if (t[1] !== '') o.priceMatch = t[1]
}

function pegFrom(t: PegTuple | undefined): Peg | null {
  return t === undefined ? null : { type: t[0], offsetLevels: t[1], sentPriceTicks: t[2] }
}

function condOf(t: CondTuple | null | undefined): Conditional | null {
  if (t === undefined || t === null) return null
  return {
    origType: t[0], stopPriceTicks: t[1], activationPriceTicks: t[2], callbackPermille: t[3], workingType: t[4],
    priceProtect: t[5], closePosition: t[6], activated: t[7], extremeTicks: t[8], triggerTime: t[9], reason: t[10],
    trailingDeltaBips: t[11] ?? 0, trailingTime: t[12] ?? 0, entry: null,
  }
}

function marketData(m: Market): Record<string, unknown> {
  const { book, gtd: _gtd, gtdOpen: _open, ...rest } = m
  const orders: OrderTuple[] = []
  // Worst level to best, each level head to tail: re-adding in this order rebuilds FIFO.
  for (const side of [book.bids, book.asks]) {
    for (const level of side.levels) for (let o = level.head; o; o = o.next) orders.push(orderTuple(o))
  }
  if (m.kind !== 'PERP') {
    // Waiting stops in placement order, as a perpetual's conditional orders, and OTO lists'
    // pending orders (each only when there are any).
    const { stops, ...spot } = rest as Omit<SpotMarket, 'book' | 'gtd' | 'gtdOpen'>
    const out: Record<string, unknown> = { ...spot, orders }
    if (stops.live.size > 0) out.conditionals = [...stops.live.values()].map(orderTuple)
    if (stops.pending.size > 0) out.pending = [...stops.pending.values()].map(orderTuple)
    return out
  }
  // Waiting conditional orders in placement order; the trigger heaps are rebuilt from them.
  const { triggers, ...perp } = rest as Omit<PerpMarket, 'book' | 'gtd' | 'gtdOpen'>
  return { ...perp, orders, conditionals: [...triggers.live.values()].map(orderTuple) }
}

function subData(s: SubAccount): unknown[] {
  const holdings = [...s.perp.values()].map((h) => {
    const row: unknown[] = [h.marketId, h.leverage, posTuple(h.both), posTuple(h.long), posTuple(h.short)]
    if (h.marginType !== 'CROSSED' || h.both.isolatedWallet !== 0 || h.long.isolatedWallet !== 0 || h.short.isolatedWallet !== 0) {
      row.push([h.marginType, h.both.isolatedWallet, h.long.isolatedWallet, h.short.isolatedWallet] satisfies IsolatedTuple)
    }
    return row
  })
  const spot = [...s.spot].map(([asset, b]) => [asset, b.free, b.locked])
  const orders = [...s.orders.values()].map((o) => [o.market.marketId, o.orderId])
  return [s.sub, s.perpWallet, s.dualSide, s.pendingWithdrawals, spot, holdings, orders, s.sessionKey, s.lastNonce, [...s.riskFlags],
    [...s.countdowns]]
}

/**
 * Lifetime totals and fees as numbers while they are exact (they encode as before), bigints
 * (msgpack 64-bit integers, which decode as bigints) past that.
 */
function totalsData(map: Map<string, number | bigint>): [string, number | bigint][] {
  return [...map].map(([a, n]) => [a, typeof n === 'bigint' && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n])
}

export function encodeSnapshot(state: State): Uint8Array {
  const accounts = [...state.accounts.values()].map((a) => [a.address, a.subs.filter((s) => s !== undefined).map((s) => subData(s!))])
  const parts: unknown[] = [
    VERSION, state.seq, state.time, [...state.assets.values()].map((a) => [a.name, a.scale]),
    state.markets.filter((m) => m !== undefined).map(marketData), accounts,
    [...state.depositRefs], [...state.withdrawals.values()], state.nextWithdrawalId,
    totalsData(state.fees), totalsData(state.deposited), totalsData(state.withdrawn), [...state.sessions.values()], [...state.insurance],
    state.nextOrderListId,
  ]
  // Last, and only once declared (core/rules.ts): an undeclared log's snapshots encode as before.
  if (state.rules !== 0) parts.push(state.rules)
  // After it, once a declaration brought one (rules 2 on).
  if (state.leafSeed !== '') parts.push(state.leafSeed)
  // After it (a chain is declared only under salted rules, so the seed is there).
  assert(state.chain === null || state.leafSeed !== '', 'a chain declared without a leaf seed')
  if (state.chain !== null) parts.push([state.chain.chainId, state.chain.vault, state.chain.tokens.map((t) => [t.asset, t.address, t.decimals])])
  // After it, once a leader's term opened (core/term.ts): the places before it held (null when unset).
  if (state.epoch !== 0) {
    while (parts.length < 18) parts.push(null)
    parts.push(state.epoch)
  }
  return packr.pack(parts)
}

export function decodeSnapshot(bytes: Uint8Array): State {
  const [version, seq, time, assets, markets, accounts, refs, withdrawals, nextWithdrawalId, fees, deposited, withdrawn, sessions,
    insurance, nextOrderListId, rules, leafSeed, chain, epoch] =
    packr.unpack(bytes) as [number, number, number, [string, number][], Record<string, unknown>[], [string, unknown[][]][],
      string[], Withdrawal[], number, [string, number | bigint][], [string, number | bigint][], [string, number | bigint][], Session[],
      [string, number][] | undefined, number | undefined, number | undefined, string | undefined,
      [number, string, [string, string, number][]] | null | undefined, number | undefined]
  assert(version === VERSION, `snapshot version ${version} unknown`)
  const state = createState()
  state.seq = seq
  state.time = time
  for (const [name, scale] of assets) state.assets.set(name, { name, scale })
  for (const [address, subs] of accounts) {
    const account = { address, subs: [] as (SubAccount | undefined)[] }
    state.accounts.set(address, account)
    for (const [sub, perpWallet, dualSide, pending, spot, holdings, , sessionKey, lastNonce, riskFlags, countdowns] of subs as [number, number,
      boolean, number, [string, number, number][], [number, number, PositionTuple, PositionTuple, PositionTuple, IsolatedTuple?][], unknown,
      string, number, [string, number][]?, [number, number][]?][]) {
      const s = newSubAccount(address, sub)
      Object.assign(s, { perpWallet, dualSide, pendingWithdrawals: pending, sessionKey, lastNonce })
      for (const [asset, free, locked] of spot) s.spot.set(asset, { free, locked })
      for (const [key, flags] of riskFlags ?? []) s.riskFlags.set(key, flags)
      for (const [marketId, deadline] of countdowns ?? []) s.countdowns.set(marketId, deadline)
      if (s.countdowns.size > 0) state.countdownSubs.add(s)
      for (const [marketId, leverage, both, long, short, iso] of holdings) {
        const h: PerpHolding = { marketId, leverage, marginType: iso?.[0] ?? 'CROSSED', both: fromPos(both), long: fromPos(long),
          short: fromPos(short), buyLots: 0, buyNotional: 0, sellLots: 0, sellNotional: 0 }
        if (iso) [h.both.isolatedWallet, h.long.isolatedWallet, h.short.isolatedWallet] = [iso[1], iso[2], iso[3]]
        s.perp.set(marketId, h)
      }
      account.subs[sub] = s
    }
  }
  const lists = new Map<number, OrderList>()
  for (const data of markets) restoreMarket(state, data, lists)
  // Each list's legs in orderId order, as placement left them.
  for (const l of lists.values()) l.legs.sort((a, b) => a.orderId - b.orderId)
  state.nextOrderListId = nextOrderListId ?? 1
  state.rules = rules ?? 0
  state.leafSeed = leafSeed ?? ''
  state.epoch = epoch ?? 0
  state.chain = chain === undefined || chain === null ? null
    : { chainId: chain[0], vault: chain[1], tokens: chain[2].map(([asset, address, decimals]) => ({ asset, address, decimals })) }
  // Account order indexes in their original placement order.
  for (const [address, subs] of accounts) {
    for (const sd of subs) {
      const s = state.accounts.get(address)!.subs[sd[0] as number]!
      for (const [marketId, orderId] of sd[6] as [number, number][]) {
        const o = openOrderOf(state.markets[marketId]!, orderId)
        assert(o !== undefined, 'snapshot order missing from its book')
        s.orders.set(o.clientOrderId, o)
        s.openByMarket.set(marketId, (s.openByMarket.get(marketId) ?? 0) + 1)
        if (o.marginCounted) addMarginLots(s.perp.get(marketId)!, o, o.origQtyLots - o.executedQtyLots)
        if (o.goodTillDate > 0) {
          const m = state.markets[marketId]!
          m.gtdOpen += 1
          m.gtd.push({ goodTillDate: o.goodTillDate, marketId, orderId })
        }
      }
    }
  }
  for (const ref of refs) state.depositRefs.add(ref)
  for (const w of withdrawals) state.withdrawals.set(w.withdrawalId, { ...w, status: w.status as WithdrawalStatus })
  state.nextWithdrawalId = nextWithdrawalId
  for (const [a, n] of fees) state.fees.set(a, n)
  for (const [a, n] of deposited) state.deposited.set(a, BigInt(n))
  for (const [a, n] of withdrawn) state.withdrawn.set(a, BigInt(n))
  for (const s of sessions) state.sessions.set(s.apiKey, { ...s, permissions: [...s.permissions] })
  for (const [a, n] of insurance ?? []) state.insurance.set(a, n)
  return state
}

/** The list an order tuple names, made on its first leg and shared by the second. */
function restoreList(o: Order, t: ListTuple | null | undefined, lists: Map<number, OrderList>): void {
  if (t === undefined || t === null) return
  let l = lists.get(t[0])
  if (l === undefined) {
    l = { orderListId: t[0], listClientOrderId: t[1], contingency: t[4], working: null, opo: t[7] === true, legs: [],
      orders: t[6].map(([orderId, clientOrderId]) => ({ orderId, clientOrderId })), done: t[2], time: t[3] }
    lists.set(t[0], l)
  }
  l.legs.push(o)
  if (t[5] === o.orderId) l.working = o
  o.list = l
}

function restoreMarket(state: State, data: Record<string, unknown>, lists: Map<number, OrderList>): void {
  const { orders, conditionals, pending, ...fields } = data as { orders: OrderTuple[]; conditionals?: OrderTuple[]; pending?: OrderTuple[];
    kind: Market['kind'] }
  let m: Market
  if (fields.kind === 'PERP') {
    const f = fields as Partial<PerpFields>
      & Omit<PerpFields, 'triggerProtectPpm' | 'prices' | 'liquidationFeePpm' | 'percentPricePpm' | 'marketTakeBoundPpm'>
    m = perpMarketOf({
      ...f,
      // Snapshots from before conditional orders existed: Binance's default triggerProtect.
      triggerProtectPpm: f.triggerProtectPpm ?? DEFAULT_TRIGGER_PROTECT_PPM,
      // Snapshots from before prices existed: the market's default price state (no oracle yet).
      prices: f.prices ?? newPriceState({ brackets: f.brackets } as CreatePerpMarket, state.assets.get(f.quote)?.scale ?? 0)!,
      // Snapshots from before liquidation existed: the default clearance fee.
      liquidationFeePpm: f.liquidationFeePpm ?? DEFAULT_LIQUIDATION_FEE_PPM,
      // Snapshots from before the price band: the default band.
      percentPricePpm: f.percentPricePpm ?? DEFAULT_PRICE_BAND_PPM,
      marketTakeBoundPpm: f.marketTakeBoundPpm ?? DEFAULT_PRICE_BAND_PPM,
    })
  } else m = spotMarketOf(fields as SpotFields)
  state.markets[m.marketId] = m
  state.marketsBySymbol.set(m.symbol, m)
  for (const t of [...orders, ...conditionals ?? [], ...pending ?? []]) {
    const owner = state.accounts.get(t[1])?.subs[t[2]]
    assert(owner !== undefined, 'snapshot order without its account')
    const o: Order = {
      orderId: t[0], market: m, owner, clientOrderId: t[3], side: t[4], orderType: t[5], timeInForce: t[6],
      priceTicks: t[7], origQtyLots: t[8], executedQtyLots: t[9], cumQuoteTicksLots: t[10], status: t[11],
      positionSide: t[12], reduceOnly: t[13], stp: t[14], goodTillDate: t[15], time: t[16], updateTime: t[17],
      marginCounted: t[18], lockedRemaining: t[19], level: null, prev: null, next: null, cond: condOf(t[20]), amendCount: 0, priceMatch: undefined, quoteQty: 0, quoteShort: false, list: null,
      icebergLots: t[23]?.[0] ?? 0, visibleLots: t[23]?.[1] ?? t[8] - t[9],
      peg: pegFrom(t[24] ?? undefined), preventedLots: t[25]?.[0] ?? 0, preventedMatchId: t[25]?.[1] ?? -1,
      strategyId: t[26]?.[0] ?? -1, strategyType: t[26]?.[1] ?? 0,
    }
    restoreExtra(o, t[21])
    restoreList(o, t[22], lists)
    if (m.kind === 'SPOT' && o.status === 'PENDING_NEW') indexPending(m, o)
    else if (m.kind === 'PERP' && isConditionalType(o.orderType)) arm(m, o)
    else if (m.kind === 'SPOT' && isConditionalType(o.orderType)) indexSpotStop(m, o)
    else {
      m.book.insert(o)
      if (m.kind === 'PERP' && isClosing(o)) owner.closingResting += 1
    }
  }
}
