// The reference exchange: the same commands as the core, applied to the naive book and the
// bigint ledger, written from the rules rather than from the core's code. Dry runs (FOK,
// market-order margin, market-buy holds) simply run the real sweep on a deep copy, so the
// core's separate `simulate` is checked against its own `sweep` as well.
//
// Modeled: genesis (trusted), deposits, transfers, withdrawals, leverage, position mode,
// LIMIT/MARKET/POST_ONLY with GTC/IOC/FOK/GTX/GTD, reduce-only, hedge mode, every STP mode,
// cancels, cancel-all, spot amendments keeping priority, GTD expiry (on Tick, or when a taker
// meets an expired maker), cross liquidation with the insurance fund and ADL
// (reference-liquidation.ts). Not modeled: the size limits of core/limits.ts (streams stay
// far below them) and malformed numbers (non-integers).

import type { Command, PlaceOrder, Side } from '../../core/commands.js'
import type { OrderStatus } from '../../core/events.js'
import {
  levelsOf, nextMaker, bestPrice, remainingLots, removeOrder, shownLots, type RefOrder,
} from './reference-book.js'
import {
  available, balance, exposure, isClosing, maxNotionalAt, maxWithdrawable, newRefSub, orderMarginCode,
  reducibleLots, settlePerp, settleSpot, subKey, type RefMarket, type RefSub,
} from './reference-ledger.js'
import type { BookView, LedgerView, Observed, ObservedResult, SubView } from './observe.js'
import { refLiquidations } from './reference-liquidation.js'

export interface RefWithdrawal {
  withdrawalId: number
  key: string
  asset: string
  amount: bigint
}

export interface RefState {
  time: number
  assets: Map<string, number>
  markets: Map<number, RefMarket>
  subs: Map<string, RefSub>
  depositRefs: Set<string>
  /** Withdrawals still processing. */
  withdrawals: Map<number, RefWithdrawal>
  nextWithdrawalId: number
  fees: Map<string, bigint>
  /** Insurance fund per quote asset (reference-liquidation.ts). */
  insurance: Map<string, bigint>
  deposited: Map<string, bigint>
  withdrawn: Map<string, bigint>
  restCounter: number
  /** The rules declared (0: none): sub-account transfers need 3. */
  rules: number
}

export function createReference(): RefState {
  return {
    time: 0, assets: new Map(), markets: new Map(), subs: new Map(), depositRefs: new Set(),
    withdrawals: new Map(), nextWithdrawalId: 1, fees: new Map(), insurance: new Map(), deposited: new Map(), withdrawn: new Map(),
    restCounter: 0, rules: 0,
  }
}

const LEDGER_MAX = 2n ** 52n
const ADDRESS = /^0x[0-9a-fA-F]{40}$/
const CLIENT_ID = /^[.A-Z:/a-z0-9_-]{1,36}$/
const big = BigInt

type Out = Observed[]
const rejected = (code: string): ObservedResult => ({ ok: false, code, events: [] })
const accepted = (events: Out): ObservedResult => ({ ok: true, events })

function add(map: Map<string, bigint>, key: string, n: bigint): void {
  map.set(key, (map.get(key) ?? 0n) + n)
}

function perps(st: RefState): RefMarket[] {
  return [...st.markets.values()].filter((m) => m.kind === 'PERP').sort((a, b) => a.marketId - b.marketId)
}

function marginAsset(st: RefState): string | undefined {
  return perps(st)[0]?.quote
}

function ensureSub(st: RefState, account: string, sub: number): RefSub {
  const key = subKey(account, sub)
  let s = st.subs.get(key)
  if (s === undefined) {
    s = newRefSub(account, sub)
    st.subs.set(key, s)
  }
  return s
}

function validIssuer(c: { account: string; sub: number }): boolean {
  return ADDRESS.test(c.account) && Number.isInteger(c.sub) && c.sub >= 0 && c.sub < 32
}

function validAmount(n: number): boolean {
  return Number.isSafeInteger(n) && n > 0 && big(n) <= LEDGER_MAX
}

export function refApply(st: RefState, time: number, c: Command): ObservedResult {
  st.time = time
  switch (c.type) {
    case 'CreateAsset':
      st.assets.set(c.asset, c.scale)
      return accepted([])
    case 'CreatePerpMarket':
    case 'CreateSpotMarket':
      createMarket(st, c)
      return accepted([])
    case 'SetMarketStatus':
      st.markets.get(c.marketId)!.status = c.status
      return accepted([])
    // The rules version (core/rules.ts): one set of rules is modeled.
    case 'SetRules':
      st.rules = c.version
      return accepted([])
    // A leader's term (core/term.ts): who wrote the entries, nothing the model compares.
    case 'Lead':
      return accepted([])
    // The chain a log declares (core/chain-declaration.ts) and fee withdrawals are not modeled; the streams have neither.
    case 'DeclareChain':
    case 'FeeWithdrawal':
      return rejected('COMMAND_UNKNOWN')
    case 'Deposit': return deposit(st, c)
    case 'Transfer': return transfer(st, c)
    case 'SubAccountTransfer': return subAccountTransfer(st, c)
    case 'WithdrawalRequest': return requestWithdrawal(st, c)
    case 'WithdrawalComplete': return endWithdrawal(st, c.withdrawalId, 'COMPLETED', c.txId)
    case 'WithdrawalFail': return endWithdrawal(st, c.withdrawalId, 'FAILED', 'x')
    case 'ChangeLeverage': return changeLeverage(st, c)
    case 'ChangePositionMode': return changePositionMode(st, c)
    case 'PlaceOrder': return trimClosing(st, afterPriceMove(st, c.marketId, placeOrder(st, c)))
    case 'CancelOrder': return trimClosing(st, afterPriceMove(st, c.marketId, cancelOrder(st, c)))
    case 'CancelAll': return trimClosing(st, afterPriceMove(st, c.marketId, cancelAll(st, c)))
    case 'AmendKeepPriority': return amendKeepPriority(st, c)
    case 'Tick': return tick(st)
    // The generators make no sessions: they change nothing the model compares.
    case 'CreateSession':
    case 'RevokeSession':
    case 'RegisterRsaKey':
    case 'ListenKey':
    // Nor amendments (yet): the generators send none.
    case 'ModifyOrder':
    // Nor oracle prices: without them marks follow trades, as modeled.
    case 'SetOracle':
    case 'OraclePrice':
    // Nor pending-deposit notes (they change no balance).
    case 'DepositPending':
    // Nor isolated margin: every modeled position is cross.
    case 'ChangeMarginType':
    case 'AdjustPositionMargin':
    // Nor countdowns (core/countdown.ts has its own hand-computed tests).
    case 'CountdownCancelAll':
    // Nor sub-account creation (test/core/sub-transfer.test.ts has its hand-computed tests).
    case 'CreateSubAccount':
    // Nor OCO lists, which hang on spot stops (test/core/order-lists.test.ts has their property).
    case 'PlaceOrderList':
    case 'PlaceOtoList':
    case 'CancelOrderList':
      throw new Error(`${c.type} is not modeled`)
  }
}

/**
 * After a command that traded (core/reduce-only.ts): every resting closing order in a market
 * that traded, larger than the position it may still reduce, expires, by orderId.
 */
function trimClosing(st: RefState, r: ObservedResult): ObservedResult {
  if (!r.ok) return r
  const traded = new Set<number>()
  for (const e of r.events) if (e.type === 'trade') traded.add(e.marketId)
  for (const marketId of [...traded].sort((a, b) => a - b)) {
    const m = st.markets.get(marketId)!
    if (m.kind !== 'PERP') continue
    const tooLarge = m.book.orders
      .filter((o) => isClosing(o) && remainingLots(o) > reducibleLots(st.subs.get(o.owner)!, marketId, o))
      .sort((a, b) => a.orderId - b.orderId)
    for (const o of tooLarge) retire(st, o, 'EXPIRED', r.events)
  }
  return r
}

/** After an accepted order command in a perpetual: the liquidations it calls for. */
function afterPriceMove(st: RefState, marketId: number, r: ObservedResult): ObservedResult {
  if (!r.ok || st.markets.get(marketId)?.kind !== 'PERP') return r
  refLiquidations({
    markets: st.markets, subs: st.subs, insurance: st.insurance,
    sweep: (m, taker, out) => { sweep(st, m, taker, out) },
    openOrders: (key) => openOrdersOf(st, key),
    cancel: (o, out) => { retire(st, o, 'CANCELED', out) },
    observe: orderObserved,
  }, r.events)
  return r
}

// ---- genesis -------------------------------------------------------------------------------

function createMarket(st: RefState, c: Extract<Command, { type: 'CreatePerpMarket' | 'CreateSpotMarket' }>): void {
  const quoteScale = st.assets.get(c.quote)!
  const baseScale = st.assets.get(c.base)!
  // One tick is tickSize·10^-pricePrecision quote, one lot stepSize·10^-quantityPrecision base.
  const tickLotNum = big(c.tickSize) * big(c.stepSize) * 10n ** big(quoteScale)
  const tickLotDen = 10n ** big(c.pricePrecision + c.quantityPrecision)
  const lotNum = big(c.stepSize) * 10n ** big(baseScale)
  const lotDen = 10n ** big(c.quantityPrecision)
  if (tickLotNum % tickLotDen !== 0n || lotNum % lotDen !== 0n) throw new Error('reference: inexact market units')
  const perp = c.type === 'CreatePerpMarket'
  st.markets.set(c.marketId, {
    marketId: c.marketId, kind: perp ? 'PERP' : 'SPOT', base: c.base, quote: c.quote, status: 'TRADING',
    minPriceTicks: c.minPriceTicks, maxPriceTicks: c.maxPriceTicks, minQtyLots: c.minQtyLots, maxQtyLots: c.maxQtyLots,
    marketMaxQtyLots: c.marketMaxQtyLots, minNotional: big(c.minNotional),
    makerFeePpm: big(c.makerFeePpm), takerFeePpm: big(c.takerFeePpm),
    quotePerTickLot: tickLotNum / tickLotDen, basePerLot: lotNum / lotDen,
    brackets: perp ? c.brackets.map((b) => ({ notionalCap: big(b.notionalCap), maxLeverage: b.maxLeverage, mmrPpm: big(b.mmrPpm) })) : [],
    liquidationFeePpm: big(perp ? c.liquidationFeePpm ?? 12_500 : 0),
    percentPricePpm: big(perp ? c.percentPricePpm ?? 50_000 : 0), marketTakeBoundPpm: big(perp ? c.marketTakeBoundPpm ?? 50_000 : 0),
    maxLeverage: perp ? c.brackets[0]!.maxLeverage : 0, defaultLeverage: perp ? c.defaultLeverage : 0,
    nextOrderId: 1, nextTradeId: 1, markPriceTicks: 0, book: { orders: [] },
    priceRange: c.type === 'CreateSpotMarket' ? c.priceRange ?? null : null, trades: [],
  })
}

// ---- wallet --------------------------------------------------------------------------------

function deposit(st: RefState, c: Extract<Command, { type: 'Deposit' }>): ObservedResult {
  if (!validIssuer(c)) return rejected('ACCOUNT_INVALID')
  if (!st.assets.has(c.asset)) return rejected('ASSET_UNKNOWN')
  if (!validAmount(c.amount)) return rejected('AMOUNT_INVALID')
  if (c.ref.length === 0 || c.ref.length > 100) return rejected('COMMAND_INVALID')
  if (st.depositRefs.has(c.ref)) return rejected('DEPOSIT_DUPLICATE')
  if (c.wallet === 'PERP' && c.asset !== marginAsset(st)) return rejected('ASSET_UNKNOWN')
  const existing = st.subs.get(subKey(c.account, c.sub))
  const before = c.wallet === 'PERP' ? existing?.perpWallet ?? 0n : existing?.spot.get(c.asset)?.free ?? 0n
  if (before + big(c.amount) > LEDGER_MAX) return rejected('OVERFLOW')
  const s = ensureSub(st, c.account, c.sub)
  st.depositRefs.add(c.ref)
  add(st.deposited, c.asset, big(c.amount))
  if (c.wallet === 'PERP') s.perpWallet += big(c.amount)
  else balance(s, c.asset).free += big(c.amount)
  return accepted([])
}

function transfer(st: RefState, c: Extract<Command, { type: 'Transfer' }>): ObservedResult {
  if (!validIssuer(c)) return rejected('ACCOUNT_INVALID')
  if (!validAmount(c.amount)) return rejected('AMOUNT_INVALID')
  const asset = marginAsset(st)
  if (asset === undefined) return rejected('ASSET_UNKNOWN')
  const s = st.subs.get(subKey(c.account, c.sub))
  if (s === undefined) return rejected('BALANCE_INSUFFICIENT')
  const amount = big(c.amount)
  const spotFree = s.spot.get(asset)?.free ?? 0n
  const toPerp = c.direction === 'SPOT_TO_PERP'
  if (toPerp ? spotFree < amount : maxWithdrawable(s, perps(st)) < amount) return rejected('BALANCE_INSUFFICIENT')
  if ((toPerp ? s.perpWallet : spotFree) + amount > LEDGER_MAX) return rejected('OVERFLOW')
  const signed = toPerp ? amount : -amount
  balance(s, asset).free -= signed
  s.perpWallet += signed
  return accepted([])
}

/** Between two sub-accounts of one account, under rules 3; the source or sub-account 0 asks. */
function subAccountTransfer(st: RefState, c: Extract<Command, { type: 'SubAccountTransfer' }>): ObservedResult {
  if (st.rules < 3) return rejected('COMMAND_UNKNOWN')
  const subOk = (n: number): boolean => Number.isInteger(n) && n >= 0 && n < 32
  if (!validIssuer(c) || !subOk(c.fromSub) || !subOk(c.toSub) || (c.sub !== 0 && c.sub !== c.fromSub)) return rejected('ACCOUNT_INVALID')
  const wallets = ['SPOT', 'PERP']
  if (c.fromSub === c.toSub || !wallets.includes(c.fromWallet) || !wallets.includes(c.toWallet)) return rejected('COMMAND_INVALID')
  if ((c.clientTranId ?? '').length > 64) return rejected('COMMAND_INVALID')
  if (!st.assets.has(c.asset)) return rejected('ASSET_UNKNOWN')
  if ((c.fromWallet === 'PERP' || c.toWallet === 'PERP') && c.asset !== marginAsset(st)) return rejected('ASSET_UNKNOWN')
  if (!validAmount(c.amount)) return rejected('AMOUNT_INVALID')
  const amount = big(c.amount)
  const from = st.subs.get(subKey(c.account, c.fromSub))
  const has = from === undefined ? 0n : c.fromWallet === 'PERP' ? maxWithdrawable(from, perps(st)) : from.spot.get(c.asset)?.free ?? 0n
  if (has < amount) return rejected('BALANCE_INSUFFICIENT')
  const existing = st.subs.get(subKey(c.account, c.toSub))
  const before = existing === undefined ? 0n : c.toWallet === 'PERP' ? existing.perpWallet : existing.spot.get(c.asset)?.free ?? 0n
  if (before + amount > LEDGER_MAX) return rejected('OVERFLOW')
  const to = ensureSub(st, c.account, c.toSub)
  if (c.fromWallet === 'PERP') from!.perpWallet -= amount
  else balance(from!, c.asset).free -= amount
  if (c.toWallet === 'PERP') to.perpWallet += amount
  else balance(to, c.asset).free += amount
  return accepted([])
}

function requestWithdrawal(st: RefState, c: Extract<Command, { type: 'WithdrawalRequest' }>): ObservedResult {
  if (!validIssuer(c)) return rejected('ACCOUNT_INVALID')
  if (!st.assets.has(c.asset)) return rejected('ASSET_UNKNOWN')
  if (!validAmount(c.amount)) return rejected('AMOUNT_INVALID')
  if (!ADDRESS.test(c.address)) return rejected('COMMAND_INVALID')
  if ((c.withdrawOrderId ?? '').length > 64) return rejected('COMMAND_INVALID')
  const s = st.subs.get(subKey(c.account, c.sub))
  if (s === undefined || (s.spot.get(c.asset)?.free ?? 0n) < big(c.amount)) return rejected('BALANCE_INSUFFICIENT')
  if (s.pendingWithdrawals >= 100) return rejected('LIMIT_REACHED')
  balance(s, c.asset).free -= big(c.amount)
  s.pendingWithdrawals += 1
  const w: RefWithdrawal = { withdrawalId: st.nextWithdrawalId++, key: s.key, asset: c.asset, amount: big(c.amount) }
  st.withdrawals.set(w.withdrawalId, w)
  return { ok: true, withdrawalId: w.withdrawalId,
    events: [{ type: 'withdrawal', withdrawalId: w.withdrawalId, status: 'PROCESSING', amount: w.amount }] }
}

function endWithdrawal(st: RefState, id: number, status: 'COMPLETED' | 'FAILED', txId: string): ObservedResult {
  const w = st.withdrawals.get(id)
  if (w === undefined) return rejected('WITHDRAWAL_UNKNOWN')
  if (txId.length === 0 || txId.length > 100) return rejected('COMMAND_INVALID')
  const s = st.subs.get(w.key)!
  if (status === 'FAILED' && (s.spot.get(w.asset)?.free ?? 0n) + w.amount > LEDGER_MAX) return rejected('OVERFLOW')
  st.withdrawals.delete(id)
  s.pendingWithdrawals -= 1
  if (status === 'COMPLETED') add(st.withdrawn, w.asset, w.amount)
  else balance(s, w.asset).free += w.amount
  return accepted([{ type: 'withdrawal', withdrawalId: id, status, amount: w.amount }])
}

// ---- position settings ---------------------------------------------------------------------

function changeLeverage(st: RefState, c: Extract<Command, { type: 'ChangeLeverage' }>): ObservedResult {
  const m = st.markets.get(c.marketId)
  if (m === undefined || m.kind !== 'PERP') return rejected('MARKET_UNKNOWN')
  if (!validIssuer(c)) return rejected('ACCOUNT_INVALID')
  const lev = c.leverage
  if (!Number.isInteger(lev) || lev < 1 || lev > 125 || lev > m.maxLeverage) return rejected('LEVERAGE_INVALID')
  const existing = st.subs.get(subKey(c.account, c.sub))
  const current = existing?.leverage.get(m.marketId)
  if (existing && current !== undefined && lev !== current) {
    if (exposure(existing, m) * m.quotePerTickLot > maxNotionalAt(m, lev)) return rejected('POSITION_LIMIT')
    if (lev < current && available(existing, perps(st), { marketId: m.marketId, leverage: lev }).available < 0n) {
      return rejected('MARGIN_INSUFFICIENT')
    }
  }
  ensureSub(st, c.account, c.sub).leverage.set(m.marketId, lev)
  return accepted([])
}

function changePositionMode(st: RefState, c: Extract<Command, { type: 'ChangePositionMode' }>): ObservedResult {
  if (!validIssuer(c)) return rejected('ACCOUNT_INVALID')
  const existing = st.subs.get(subKey(c.account, c.sub))
  if ((existing?.dualSide ?? false) === c.dualSide) return rejected('POSITION_MODE_UNCHANGED')
  if (existing) {
    for (const m of perps(st)) {
      if (m.book.orders.some((o) => o.owner === existing.key)) return rejected('POSITION_MODE_OPEN_ORDERS')
    }
    for (const p of existing.positions.values()) if (p.qtyLots !== 0) return rejected('POSITION_MODE_OPEN_POSITION')
  }
  ensureSub(st, c.account, c.sub).dualSide = c.dualSide
  return accepted([])
}

// ---- orders --------------------------------------------------------------------------------

function orderObserved(o: RefOrder, execType: string): Observed {
  const e: Observed = { type: 'order', marketId: o.marketId, orderId: o.orderId, clientOrderId: o.clientOrderId, execType,
    status: o.status, executedQtyLots: o.filledLots, cumQuoteTicksLots: o.cumQuoteTicksLots }
  if (o.preventedLots > 0 && e.type === 'order') e.preventedLots = o.preventedLots
  return e
}

function openOrdersOf(st: RefState, key: string): RefOrder[] {
  const all: RefOrder[] = []
  for (const m of st.markets.values()) for (const o of m.book.orders) if (o.owner === key) all.push(o)
  return all.sort((a, b) => a.restedAt - b.restedAt)
}

/** Takes a resting order out of its book, giving back what it held. */
function unrest(st: RefState, o: RefOrder): void {
  const m = st.markets.get(o.marketId)!
  removeOrder(m.book, o)
  if (o.lockedRemaining !== 0n) {
    const b = balance(st.subs.get(o.owner)!, o.side === 'BUY' ? m.quote : m.base)
    b.locked -= o.lockedRemaining
    b.free += o.lockedRemaining
    o.lockedRemaining = 0n
  }
}

function retire(st: RefState, o: RefOrder, status: OrderStatus, out: Out): void {
  unrest(st, o)
  o.status = status
  out.push(orderObserved(o, status))
}

/** Order fields that need no balances, in the order the core checks them; a code or null. */
function orderShapeCode(st: RefState, m: RefMarket, s: RefSub | undefined, c: PlaceOrder): string | null {
  if (c.side !== 'BUY' && c.side !== 'SELL') return 'SIDE_INVALID'
  if (!['LIMIT', 'MARKET', 'POST_ONLY'].includes(c.orderType)) return 'ORDER_TYPE_INVALID'
  if (c.orderType === 'LIMIT' && !['GTC', 'IOC', 'FOK', 'GTX', 'GTD', undefined].includes(c.timeInForce)) return 'TIF_INVALID'
  const isMarket = c.orderType === 'MARKET'
  if (isMarket && c.priceTicks !== undefined) return 'PRICE_NOT_ALLOWED'
  if (!isMarket) {
    if (c.priceTicks === undefined) return 'PRICE_REQUIRED'
    if (c.priceTicks <= 0) return 'PRICE_BELOW_ZERO'
    if (c.priceTicks < m.minPriceTicks) return 'PRICE_BELOW_MIN'
    if (c.priceTicks > m.maxPriceTicks) return 'PRICE_ABOVE_MAX'
  }
  if (c.qtyLots <= 0) return 'QTY_BELOW_ZERO'
  if (c.qtyLots < m.minQtyLots) return 'QTY_BELOW_MIN'
  if (c.qtyLots > (isMarket ? m.marketMaxQtyLots : m.maxQtyLots)) return 'QTY_ABOVE_MAX'
  if (c.icebergLots !== undefined) {
    const gtc = c.orderType === 'POST_ONLY' || (c.orderType === 'LIMIT' && (c.timeInForce ?? 'GTC') === 'GTC')
    if (m.kind !== 'SPOT' || !gtc) return 'ICEBERG_NOT_ALLOWED'
    if (!Number.isSafeInteger(c.icebergLots) || c.icebergLots < Math.max(1, m.minQtyLots)) return 'ICEBERG_QTY_INVALID'
    if (Math.ceil(c.qtyLots / c.icebergLots) > 10) return 'ICEBERG_PARTS'
  }
  const reduceOnly = c.reduceOnly === true
  if (m.kind === 'SPOT') {
    if (c.positionSide !== undefined || reduceOnly) return 'COMMAND_INVALID'
  } else if (s?.dualSide) {
    if (c.positionSide !== 'LONG' && c.positionSide !== 'SHORT') return 'POSITION_SIDE_INVALID'
    if (reduceOnly) return 'REDUCE_ONLY_IMPROPER'
  } else if (c.positionSide !== undefined && c.positionSide !== 'BOTH') {
    return 'POSITION_SIDE_INVALID'
  }
  const modes = m.kind === 'SPOT' ? ['NONE', 'EXPIRE_TAKER', 'EXPIRE_MAKER', 'EXPIRE_BOTH', 'DECREMENT', 'TRANSFER'] : ['NONE', 'EXPIRE_TAKER', 'EXPIRE_MAKER', 'EXPIRE_BOTH']
  if (c.stp !== undefined && !modes.includes(c.stp)) return 'STP_INVALID'
  if (c.orderType === 'LIMIT' && c.timeInForce === 'GTD') {
    const gtd = c.goodTillDate
    if (gtd === undefined || !Number.isSafeInteger(gtd) || gtd <= st.time + 600_000 || gtd > 253402300799000) return 'GTD_INVALID'
  }
  if (c.clientOrderId !== undefined) {
    if (!CLIENT_ID.test(c.clientOrderId)) return 'CLIENT_ID_INVALID'
    if (s && openOrdersOf(st, s.key).some((o) => o.clientOrderId === c.clientOrderId)) return 'CLIENT_ID_DUPLICATE'
  }
  if (!isMarket && !reduceOnly && big(c.priceTicks!) * big(c.qtyLots) * m.quotePerTickLot < m.minNotional) {
    return 'NOTIONAL_TOO_SMALL'
  }
  return null
}

function draftOrder(m: RefMarket, s: RefSub, c: PlaceOrder): RefOrder {
  const tif = c.orderType === 'POST_ONLY' ? 'GTX' : c.orderType === 'MARKET' ? 'IOC' : c.timeInForce ?? 'GTC'
  return {
    marketId: m.marketId, orderId: 0, owner: s.key, clientOrderId: c.clientOrderId ?? '', side: c.side,
    orderType: c.orderType, timeInForce: tif, priceTicks: c.orderType === 'MARKET' ? 0 : c.priceTicks!,
    qtyLots: c.qtyLots, filledLots: 0, cumQuoteTicksLots: 0, status: 'NEW',
    positionSide: m.kind === 'SPOT' ? 'BOTH' : s.dualSide ? c.positionSide! : 'BOTH',
    reduceOnly: c.reduceOnly === true, stp: c.stp ?? 'EXPIRE_MAKER',
    goodTillDate: tif === 'GTD' ? c.goodTillDate! : 0, lockedRemaining: 0n, restedAt: -1, queuedAt: -1,
    icebergLots: c.icebergLots ?? 0, visibleLots: 0, preventedLots: 0,
  }
}

type SweepEnd = 'DONE' | 'STP' | 'CAPPED' | 'RANGE'

/**
 * A spot taker's Price Range bounds, the naive way: every trade of the last five minutes weighs
 * the milliseconds its 3,750 ms bucket (aligned to time) has inside the window; null without a
 * rule or without trades in the window.
 */
function priceBounds(m: RefMarket, side: Side, time: number): [number, number] | null {
  const r = m.priceRange
  if (r === null) return null
  const cutoff = time - 300_000
  let num = 0n
  let den = 0n
  for (const [t, price] of m.trades) {
    const open = t - (t % 3_750)
    if (open + 3_750 <= cutoff) continue
    const weight = big(open < cutoff ? open + 3_750 - cutoff : 3_750)
    num += big(price) * weight
    den += weight
  }
  if (den === 0n) return null
  const [down, up] = side === 'BUY' ? [r.bidDownE4, r.bidUpE4] : [r.askDownE4, r.askUpE4]
  const scale = den * 10_000n
  return [Number((num * big(down) + scale - 1n) / scale), Number((num * big(up)) / scale)]
}

/** Fills the taker against the book in price-time priority until it is done or must stop. */
function sweep(st: RefState, m: RefMarket, taker: RefOrder, out: Out): SweepEnd {
  // A perpetual market order fills only within marketTakeBound of the mark it found.
  const mark = big(m.markPriceTicks)
  const bounded = m.kind === 'PERP' && taker.orderType === 'MARKET' && mark > 0n && m.marketTakeBoundPpm > 0n
  // A spot taker's Price Range, fixed as it starts taking.
  const range = m.kind === 'SPOT' ? priceBounds(m, taker.side, st.time) : null
  for (;;) {
    if (remainingLots(taker) === 0) return 'DONE'
    const maker = nextMaker(m.book, taker.side, taker.priceTicks)
    if (maker === undefined) return 'DONE'
    if (range !== null && (maker.priceTicks < range[0] || maker.priceTicks > range[1])) return 'RANGE'
    if (bounded && beyondTakeBound(m, mark, taker.side, maker.priceTicks)) return 'DONE'
    if (maker.goodTillDate !== 0 && maker.goodTillDate <= st.time) {
      // Past its goodTillDate, not yet reached by a Tick: it expires rather than trade.
      retire(st, maker, 'EXPIRED', out)
      continue
    }
    if (maker.owner === taker.owner && (taker.stp === 'DECREMENT' || taker.stp === 'TRANSFER')) {
      // Both lose what the smaller has left; the smaller expires, the other stays where it is.
      const lots = Math.min(remainingLots(taker), remainingLots(maker))
      if (lots === remainingLots(maker)) {
        maker.qtyLots -= lots
        maker.preventedLots += lots
        retire(st, maker, 'EXPIRED_IN_MATCH', out)
      } else {
        cutOrder(st, m, maker, lots, out)
      }
      if (lots === remainingLots(taker)) {
        taker.qtyLots -= lots
        taker.preventedLots += lots
        return 'STP'
      }
      cutOrder(st, m, taker, lots, out)
      continue
    }
    if (maker.owner === taker.owner && taker.stp !== 'NONE') {
      if (taker.stp !== 'EXPIRE_TAKER') retire(st, maker, 'EXPIRED_IN_MATCH', out)
      if (taker.stp !== 'EXPIRE_MAKER') return 'STP'
      continue
    }
    let lots = Math.min(remainingLots(taker), shownLots(maker))
    if (m.kind === 'PERP') {
      if (isClosing(maker)) {
        const cap = reducibleLots(st.subs.get(maker.owner)!, m.marketId, maker)
        if (cap === 0) {
          retire(st, maker, 'EXPIRED', out)
          continue
        }
        lots = Math.min(lots, cap)
      }
      if (isClosing(taker)) {
        const cap = reducibleLots(st.subs.get(taker.owner)!, m.marketId, taker)
        if (cap === 0) return 'CAPPED'
        lots = Math.min(lots, cap)
      }
    }
    trade(st, m, taker, maker, lots, out)
    if (maker.icebergLots !== 0) maker.visibleLots -= lots
    if (remainingLots(maker) === 0) {
      unrest(st, maker)
    } else if (maker.icebergLots !== 0 && maker.visibleLots === 0) {
      // The next slice, behind everything resting at its price now.
      maker.visibleLots = Math.min(maker.icebergLots, remainingLots(maker))
      maker.queuedAt = st.restCounter++
    } else if (m.kind === 'PERP' && isClosing(maker) && reducibleLots(st.subs.get(maker.owner)!, m.marketId, maker) === 0) {
      retire(st, maker, 'EXPIRED', out)
    }
  }
}

/**
 * Takes `lots` off an open spot order in place (an amendment, DECREMENT's cut): what they held at
 * its price goes back (a market buy, at price 0, held only its fills' cost), and an iceberg shows
 * no more than it has left.
 */
function shrinkOrder(st: RefState, m: RefMarket, o: RefOrder, lots: number): void {
  o.qtyLots -= lots
  if (o.icebergLots !== 0) o.visibleLots = Math.min(o.visibleLots, remainingLots(o))
  const release = o.side === 'BUY' ? big(lots) * big(o.priceTicks) * m.quotePerTickLot : big(lots) * m.basePerLot
  const b = balance(st.subs.get(o.owner)!, o.side === 'BUY' ? m.quote : m.base)
  b.locked -= release
  b.free += release
  o.lockedRemaining -= release
}

/** DECREMENT's cut of an order that keeps lots. */
function cutOrder(st: RefState, m: RefMarket, o: RefOrder, lots: number, out: Out): void {
  shrinkOrder(st, m, o, lots)
  o.preventedLots += lots
  out.push(orderObserved(o, 'TRADE_PREVENTION'))
}

function trade(st: RefState, m: RefMarket, taker: RefOrder, maker: RefOrder, lots: number, out: Out): void {
  const price = maker.priceTicks
  const tradeId = m.nextTradeId++
  const settle = m.kind === 'PERP' ? settlePerp : settleSpot
  if (m.kind === 'PERP') m.markPriceTicks = price
  if (m.priceRange !== null) m.trades.push([st.time, price])
  const fills = [maker, taker].map((o) => {
    const f = settle(st.subs.get(o.owner)!, m, o, lots, price, o === maker, st.fees)
    o.filledLots += lots
    o.cumQuoteTicksLots += lots * price
    o.status = remainingLots(o) === 0 && o.quoteShort !== true ? 'FILLED' : 'PARTIALLY_FILLED'
    return f
  })
  out.push({ type: 'trade', marketId: m.marketId, tradeId, priceTicks: price, qtyLots: lots, buyerIsMaker: maker.side === 'BUY',
    makerOrderId: maker.orderId, takerOrderId: taker.orderId, makerFee: fills[0]!.fee, takerFee: fills[1]!.fee,
    makerPnl: fills[0]!.realizedPnl, takerPnl: fills[1]!.realizedPnl })
}

/** Is `price` further from `mark` than a market order may take, on the taker's side? */
function beyondTakeBound(m: RefMarket, mark: bigint, side: Side, price: number): boolean {
  const p = big(price) * 1_000_000n
  return side === 'BUY' ? p > mark * (1_000_000n + m.marketTakeBoundPpm) : p < mark * (1_000_000n - m.marketTakeBoundPpm)
}

/** The price band on what a trader sends: a limit price near the mark, a market order's best price within reach. */
function bandCode(m: RefMarket, o: RefOrder): string | null {
  const mark = big(m.markPriceTicks)
  if (mark === 0n) return null
  if (o.orderType === 'MARKET') {
    const best = bestPrice(m.book, o.side === 'BUY' ? 'SELL' : 'BUY')
    if (m.marketTakeBoundPpm === 0n || best === undefined) return null
    return beyondTakeBound(m, mark, o.side, best) ? 'MARKET_BEYOND_BAND' : null
  }
  if (m.percentPricePpm === 0n) return null
  const p = big(o.priceTicks) * 1_000_000n
  if (o.side === 'BUY') return p > mark * (1_000_000n + m.percentPricePpm) ? 'PRICE_ABOVE_BAND' : null
  return p < mark * (1_000_000n - m.percentPricePpm) ? 'PRICE_BELOW_BAND' : null
}

/** What the taker would fill right now: the real sweep, run on a throwaway copy. */
function dryRun(st: RefState, taker: RefOrder): { lots: number; notional: bigint } {
  const copy = structuredClone(st)
  const t = structuredClone(taker)
  sweep(copy, copy.markets.get(t.marketId)!, t, [])
  // Lots DECREMENT prevention would take count toward the order's quantity, not its cost.
  return { lots: t.filledLots + t.preventedLots, notional: big(t.cumQuoteTicksLots) }
}

function marketNotionalOk(m: RefMarket, o: RefOrder): boolean {
  if (o.reduceOnly) return true
  const ref = m.kind === 'PERP' && m.markPriceTicks > 0 ? m.markPriceTicks : bestPrice(m.book, o.side === 'BUY' ? 'SELL' : 'BUY') ?? 0
  return ref === 0 || big(o.qtyLots) * big(ref) * m.quotePerTickLot >= m.minNotional
}

/** Post-only, market notional and fill-or-kill, all judged against the book as it is. */
function bookCode(st: RefState, m: RefMarket, o: RefOrder): string | null {
  const opposite: Side = o.side === 'BUY' ? 'SELL' : 'BUY'
  if (o.timeInForce === 'GTX') {
    const best = bestPrice(m.book, opposite)
    if (best !== undefined && (o.side === 'BUY' ? o.priceTicks >= best : o.priceTicks <= best)) return 'POST_ONLY_WOULD_TAKE'
  }
  if (o.orderType === 'MARKET' && !marketNotionalOk(m, o)) return 'NOTIONAL_TOO_SMALL'
  if (o.timeInForce === 'FOK' && dryRun(st, o).lots < o.qtyLots) return 'FOK_UNFILLED'
  return null
}

/**
 * A quote-sized spot MARKET order's quantity, found the naive way: the largest quantity that
 * fills whole for at most the amount, by binary search over dry runs (both only grow with the
 * quantity). Or why the command is refused. Under rules 5 a buy needs the whole amount free,
 * and `short` says the budget was not spent though the book gives no more.
 */
function quoteSizedQty(st: RefState, m: RefMarket, c: PlaceOrder): { q: number; short: boolean } | string {
  if (m.kind !== 'SPOT' || c.orderType !== 'MARKET' || c.qtyLots !== 0) return 'COMMAND_INVALID'
  const amount = c.quoteQty!
  if (!Number.isSafeInteger(amount) || amount <= 0 || amount > 2 ** 52) return 'AMOUNT_INVALID'
  const probe = { ...c, qtyLots: m.marketMaxQtyLots }
  const shape = orderShapeCode(st, m, st.subs.get(subKey(c.account, c.sub)), probe)
  if (shape !== null) return shape
  // A sub-account that holds nothing yet still gets its quantity (and is then refused for its balance).
  let base = st
  let owner = st.subs.get(subKey(c.account, c.sub))
  if (owner === undefined) {
    base = structuredClone(st)
    owner = newRefSub(c.account, c.sub)
    base.subs.set(owner.key, owner)
  }
  const budget = big(amount) / m.quotePerTickLot
  const fits = (q: number): boolean => {
    const run = dryRun(base, draftOrder(base.markets.get(m.marketId)!, owner, { ...c, qtyLots: q }))
    return run.lots === q && run.notional <= budget
  }
  let lo = 0
  let hi = m.marketMaxQtyLots
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2)
    if (fits(mid)) lo = mid
    else hi = mid - 1
  }
  if (st.rules < 5) return { q: lo, short: false }
  if (c.side === 'BUY' && balance(owner, m.quote).free < big(amount)) return 'BALANCE_INSUFFICIENT'
  const run = (q: number) => dryRun(base, draftOrder(base.markets.get(m.marketId)!, owner, { ...c, qtyLots: q }))
  return { q: lo, short: run(lo).notional < budget && run(m.marketMaxQtyLots).lots === lo }
}

function placeOrder(st: RefState, c: PlaceOrder): ObservedResult {
  const m = st.markets.get(c.marketId)
  if (m === undefined) return rejected('MARKET_UNKNOWN')
  if (!validIssuer(c)) return rejected('ACCOUNT_INVALID')
  if (m.status !== 'TRADING') return rejected('MARKET_NOT_TRADING')
  // A pegged order (core/peg.ts): its shape first, its price after any quote sizing, as the core checks them.
  const pegged = c.pegPriceType !== undefined || c.pegOffsetLevels !== undefined
  const pegShape = pegged ? pegShapeCode(m, c) : null
  if (pegShape !== null) return rejected(pegShape)
  let quoteShort = false
  if (c.quoteQty !== undefined) {
    const q = quoteSizedQty(st, m, c)
    if (typeof q === 'string') return rejected(q)
    c = { ...c, qtyLots: q.q }
    quoteShort = q.short
  }
  const s = st.subs.get(subKey(c.account, c.sub))
  if (pegged) {
    const priced = peggedCommand(st, m, s, c)
    if (typeof priced === 'string') return rejected(priced)
    c = priced
  }
  const shape = orderShapeCode(st, m, s, c)
  if (shape !== null) return rejected(shape)
  if (s === undefined) {
    // Nothing held yet: a closing order has nothing to reduce, anything else nothing to pay with.
    if (m.kind === 'SPOT') return rejected('BALANCE_INSUFFICIENT')
    return rejected(c.reduceOnly === true ? 'REDUCE_ONLY_REJECTED' : 'MARGIN_INSUFFICIENT')
  }
  const o = draftOrder(m, s, c)
  if (quoteShort) o.quoteShort = true
  // At most 5 open icebergs per account and market (MAX_NUM_ICEBERG_ORDERS).
  if (o.icebergLots !== 0 && openOrdersOf(st, s.key).filter((x) => x.marketId === m.marketId && x.icebergLots !== 0).length >= 5) {
    return rejected('TOO_MANY_ICEBERGS')
  }
  return m.kind === 'PERP' ? placePerp(st, m, s, o) : placeSpot(st, m, s, o)
}

/** A peg's refusals that need no book: spot LIMIT and POST_ONLY; POST_ONLY joins its own side; a PRIMARY_PEG LIMIT is GTC. */
function pegShapeCode(m: RefMarket, c: PlaceOrder): string | null {
  if (m.kind !== 'SPOT') return 'COMMAND_INVALID'
  const offset = c.pegOffsetLevels ?? 0
  if (!['PRIMARY_PEG', 'MARKET_PEG'].includes(c.pegPriceType!) || !Number.isSafeInteger(offset) || offset < 0 || offset > 100) return 'PEG_INVALID'
  if (!['LIMIT', 'POST_ONLY', 'STOP', 'TAKE_PROFIT'].includes(c.orderType)) return 'PEG_ORDER_TYPE'
  if (c.orderType === 'POST_ONLY' && c.pegPriceType !== 'PRIMARY_PEG') return 'PEG_TYPE_MISMATCH'
  if (c.orderType !== 'POST_ONLY' && c.pegPriceType === 'PRIMARY_PEG' && (c.timeInForce ?? 'GTC') !== 'GTC') return 'PEG_TYPE_MISMATCH'
  return null
}

/**
 * The command at the price its peg takes: the price level the peg names, counted from the best
 * of the order's side (PRIMARY_PEG) or the other (MARKET_PEG); a price sent too is checked first.
 */
function peggedCommand(st: RefState, m: RefMarket, s: RefSub | undefined, c: PlaceOrder): PlaceOrder | string {
  if (c.priceTicks !== undefined) {
    const sent = orderShapeCode(st, m, s, c)
    if (sent !== null) return sent
  }
  if (c.side !== 'BUY' && c.side !== 'SELL') return 'SIDE_INVALID'
  const own = c.pegPriceType === 'PRIMARY_PEG'
  const level = levelsOf(m.book, own === (c.side === 'BUY') ? 'BUY' : 'SELL')[c.pegOffsetLevels ?? 0]
  return level === undefined ? 'PEG_NO_DEPTH' : { ...c, priceTicks: level.priceTicks }
}

function placePerp(st: RefState, m: RefMarket, s: RefSub, o: RefOrder): ObservedResult {
  const closing = isClosing(o)
  if (closing && o.qtyLots > reducibleLots(s, m.marketId, o)) return rejected('REDUCE_ONLY_REJECTED')
  const band = bandCode(m, o)
  if (band !== null) return rejected(band)
  const code = bookCode(st, m, o)
  if (code !== null) return rejected(code)
  if (!closing) {
    const fill = o.orderType === 'MARKET' ? dryRun(st, o) : { lots: o.qtyLots, notional: big(o.qtyLots) * big(o.priceTicks) }
    const marginCode = orderMarginCode(s, perps(st), m, { side: o.side, lots: fill.lots, notionalTicksLots: fill.notional })
    if (marginCode !== null) return rejected(marginCode)
  }
  if (!s.leverage.has(m.marketId)) s.leverage.set(m.marketId, m.defaultLeverage)
  return execute(st, m, o)
}

function placeSpot(st: RefState, m: RefMarket, s: RefSub, o: RefOrder): ObservedResult {
  const code = bookCode(st, m, o)
  if (code !== null) return rejected(code)
  let hold: bigint
  if (o.side === 'SELL') hold = big(o.qtyLots) * m.basePerLot
  else if (o.orderType === 'MARKET') hold = dryRun(st, o).notional * m.quotePerTickLot
  else hold = big(o.qtyLots) * big(o.priceTicks) * m.quotePerTickLot
  const b = balance(s, o.side === 'BUY' ? m.quote : m.base)
  if (b.free < hold) return rejected('BALANCE_INSUFFICIENT')
  b.free -= hold
  b.locked += hold
  o.lockedRemaining = hold
  return execute(st, m, o)
}

/** Gives the order its id, sweeps, then rests the remainder or expires it. */
function execute(st: RefState, m: RefMarket, o: RefOrder): ObservedResult {
  o.orderId = m.nextOrderId++
  if (o.clientOrderId === '') o.clientOrderId = generatedClientId(st, o)
  const out: Out = [orderObserved(o, 'NEW')]
  const end = sweep(st, m, o, out)
  const result: ObservedResult = { ok: true, orderId: o.orderId, events: out }
  if (remainingLots(o) > 0 && end === 'DONE' && o.orderType !== 'MARKET' && o.timeInForce !== 'IOC' && o.timeInForce !== 'FOK') {
    o.restedAt = o.queuedAt = st.restCounter++
    if (o.icebergLots !== 0) o.visibleLots = Math.min(o.icebergLots, remainingLots(o))
    m.book.orders.push(o)
    return result
  }
  // A taker self-trade prevention stopped expires, even with nothing left (DECREMENT took its last lots).
  if (remainingLots(o) > 0 || end === 'STP' || o.quoteShort === true) {
    o.status = end === 'STP' ? 'EXPIRED_IN_MATCH' : 'EXPIRED'
    const expired = orderObserved(o, o.status)
    // A spot order's reason, as Binance spot words it: the range, an empty book, an IOC's rest.
    if (m.kind === 'SPOT' && o.status === 'EXPIRED' && expired.type === 'order') {
      expired.expiryReason = end === 'RANGE' ? 'EXECUTION_RULE_PRICE_RANGE_EXCEEDED' : o.orderType === 'MARKET' ? 'INSUFFICIENT_LIQUIDITY'
        : o.timeInForce === 'FOK' ? 'UNFILLED_FOK_ORDER_EXPIRED' : 'UNFILLED_IOC_QUANTITY_EXPIRED'
    }
    out.push(expired)
  }
  if (o.lockedRemaining !== 0n) {
    const b = balance(st.subs.get(o.owner)!, o.side === 'BUY' ? m.quote : m.base)
    b.locked -= o.lockedRemaining
    b.free += o.lockedRemaining
    o.lockedRemaining = 0n
  }
  return result
}

/** `x-<market>-<orderId>`, suffixed `-n` while the owner has an open order by that id. */
function generatedClientId(st: RefState, o: RefOrder): string {
  const taken = new Set(openOrdersOf(st, o.owner).map((x) => x.clientOrderId))
  const base = `x-${o.marketId}-${o.orderId}`
  let id = base
  for (let n = 1; taken.has(id); n++) id = `${base}-${n}`
  return id
}

function cancelOrder(st: RefState, c: Extract<Command, { type: 'CancelOrder' }>): ObservedResult {
  const m = st.markets.get(c.marketId)
  if (m === undefined) return rejected('MARKET_UNKNOWN')
  if (!validIssuer(c)) return rejected('ACCOUNT_INVALID')
  if (c.orderId === undefined && c.clientOrderId === undefined) return rejected('ORDER_ID_REQUIRED')
  const r = c.restriction
  if (r !== undefined && r !== 'ONLY_NEW' && r !== 'ONLY_PARTIALLY_FILLED') return rejected('CANCEL_RESTRICTION_INVALID')
  if (c.cancelClientOrderId !== undefined && !CLIENT_ID.test(c.cancelClientOrderId)) return rejected('CLIENT_ID_INVALID')
  const key = subKey(c.account, c.sub)
  const o = m.book.orders.find((x) => x.owner === key &&
    (c.orderId === undefined || x.orderId === c.orderId) &&
    (c.clientOrderId === undefined || x.clientOrderId === c.clientOrderId))
  if (o === undefined) return rejected('ORDER_UNKNOWN')
  if (r === 'ONLY_NEW' && o.status !== 'NEW') return rejected('CANCEL_RESTRICTED')
  if (r === 'ONLY_PARTIALLY_FILLED' && o.status !== 'PARTIALLY_FILLED') return rejected('CANCEL_RESTRICTED')
  const out: Out = []
  retire(st, o, 'CANCELED', out)
  return accepted(out)
}

/** A spot order's quantity cut in place: same queue position, its cut lots' hold given back. */
function amendKeepPriority(st: RefState, c: Extract<Command, { type: 'AmendKeepPriority' }>): ObservedResult {
  const m = st.markets.get(c.marketId)
  if (m === undefined || m.kind !== 'SPOT') return rejected('MARKET_UNKNOWN')
  if (!validIssuer(c)) return rejected('ACCOUNT_INVALID')
  if (c.orderId === undefined && c.clientOrderId === undefined) return rejected('ORDER_ID_REQUIRED')
  const key = subKey(c.account, c.sub)
  const o = m.book.orders.find((x) => x.owner === key &&
    (c.orderId === undefined || x.orderId === c.orderId) &&
    (c.clientOrderId === undefined || x.clientOrderId === c.clientOrderId))
  if (o === undefined) return rejected('ORDER_UNKNOWN')
  if (m.status !== 'TRADING') return rejected('MARKET_NOT_TRADING')
  const qty = c.qtyLots
  if (qty <= 0) return rejected('QTY_BELOW_ZERO')
  if (qty < m.minQtyLots) return rejected('QTY_BELOW_MIN')
  // The quantity as sent: what DECREMENT prevention took off stays taken.
  const sent = o.qtyLots + o.preventedLots
  if (qty > sent) return rejected('AMEND_QTY_INCREASE')
  if (qty === sent) return rejected('MODIFY_UNCHANGED')
  if (qty - o.preventedLots <= o.filledLots) return rejected('AMEND_QTY_FILLED')
  if (big(o.priceTicks) * big(qty) * m.quotePerTickLot < m.minNotional) return rejected('NOTIONAL_TOO_SMALL')
  const newId = c.newClientOrderId
  if (newId !== undefined) {
    if (!CLIENT_ID.test(newId)) return rejected('CLIENT_ID_INVALID')
    if (newId !== o.clientOrderId && openOrdersOf(st, key).some((x) => x.clientOrderId === newId)) return rejected('CLIENT_ID_DUPLICATE')
  }
  shrinkOrder(st, m, o, sent - qty)
  o.clientOrderId = newId ?? generatedClientId(st, o)
  return { ok: true, orderId: o.orderId, events: [orderObserved(o, 'REPLACED')] }
}

function cancelAll(st: RefState, c: Extract<Command, { type: 'CancelAll' }>): ObservedResult {
  if (!st.markets.has(c.marketId)) return rejected('MARKET_UNKNOWN')
  if (!validIssuer(c)) return rejected('ACCOUNT_INVALID')
  const out: Out = []
  for (const o of openOrdersOf(st, subKey(c.account, c.sub))) if (o.marketId === c.marketId) retire(st, o, 'CANCELED', out)
  return accepted(out)
}

function tick(st: RefState): ObservedResult {
  const due: RefOrder[] = []
  for (const m of st.markets.values()) for (const o of m.book.orders) if (o.goodTillDate > 0 && o.goodTillDate <= st.time) due.push(o)
  // Market by market, then by expiry and order id.
  due.sort((a, b) => a.marketId - b.marketId || a.goodTillDate - b.goodTillDate || a.orderId - b.orderId)
  const out: Out = []
  for (const o of due) retire(st, o, 'EXPIRED', out)
  return accepted(out)
}

// ---- views ---------------------------------------------------------------------------------

export function refBooks(st: RefState): BookView[] {
  return [...st.markets.values()].sort((a, b) => a.marketId - b.marketId)
    .map((m) => ({ marketId: m.marketId, bids: levelsOf(m.book, 'BUY'), asks: levelsOf(m.book, 'SELL') }))
}

function nonZero(map: Map<string, bigint>): Record<string, bigint> {
  const out: Record<string, bigint> = {}
  for (const k of [...map.keys()].sort()) if (map.get(k)! !== 0n) out[k] = map.get(k)!
  return out
}

export function refLedger(st: RefState): LedgerView {
  const subs: SubView[] = [...st.subs.values()].map((s) => {
    const spot: Record<string, [bigint, bigint]> = {}
    for (const k of [...s.spot.keys()].sort()) {
      const b = s.spot.get(k)!
      if (b.free !== 0n || b.locked !== 0n) spot[k] = [b.free, b.locked]
    }
    const positions: Record<string, [number, bigint]> = {}
    for (const k of [...s.positions.keys()].sort()) {
      const p = s.positions.get(k)!
      if (p.qtyLots !== 0 || p.costTicksLots !== 0n) positions[k] = [p.qtyLots, p.costTicksLots]
    }
    const leverage: Record<string, number> = {}
    for (const k of [...s.leverage.keys()].map(String).sort()) leverage[k] = s.leverage.get(Number(k))!
    // Every modeled market is cross: no isolated wallets.
    return { key: s.key, perpWallet: s.perpWallet, dualSide: s.dualSide, pendingWithdrawals: s.pendingWithdrawals,
      spot, positions, leverage, isolated: {} }
  })
  subs.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
  return { subs, fees: nonZero(st.fees), insurance: nonZero(st.insurance), deposited: nonZero(st.deposited), withdrawn: nonZero(st.withdrawn) }
}

