// The embedded default's market-making bot: keeps every perpetual and spot book two-sided
// around the index price and now and then crosses the spread, so a newcomer sees a live book,
// trades and klines. It is a client like any other: two funded accounts (a maker quoting, a
// taker crossing, since a sub-account cannot trade with itself) talking to the gateway's REST
// API with their sessions. It is not deterministic and need not be; it must not flood (one
// round per interval, requotes only when the index has moved, backing off when the IP's
// weight runs high, silent until a 429's or 418's Retry-After has passed) and never stops the
// node: every refusal is logged and the round goes on.

import type { Logger } from '../replica/node.js'
import { RestClient, RestError, type Credentials } from './rest-client.js'

export interface MarketMakerOptions {
  baseUrl: string
  maker: Credentials
  taker: Credentials
  /** One round per interval (default 1000 ms). */
  intervalMs: number
  /** Price levels quoted each side (default 3). */
  levels?: number
  /** Distance of the first level from the index, and between levels, in basis points (default 10). */
  stepBps?: number
  /** Requote a market once the index moved this many basis points from the quotes' centre (default 5). */
  requoteBps?: number
  /** Requote anyway after this many rounds (fills leave gaps; default 10). */
  refreshRounds?: number
  /** The taker crosses the spread once every this many rounds (default 3; 0: never). */
  takeEveryRounds?: number
  /** The maker quotes no more on a side once its perp position is this many clips that way (default 20). */
  maxPositionClips?: number
  /** pino's debug carries the expected refusals; a logger without it drops them. */
  logger: Logger & { debug?(obj: object, msg?: string): void }
}

interface Market {
  kind: 'PERP' | 'SPOT'
  symbol: string
  /** The pair whose index prices it (a spot market takes its perpetual's index). */
  pair: string
  tick: number
  tickDecimals: number
  step: number
  stepDecimals: number
  /** Smallest order worth the minimum notional at the index, in steps (set each round). */
  clipSteps: number
  minNotional: number
  /** The index the resting quotes were centred on, and the round they were placed in. */
  quotedAt: number
  quotedRound: number
  /** The taker's own net position here (it alternates sides to stay near flat). */
  takerNet: number
  /** The maker's orders resting here by side; undefined: to be read from the exchange. */
  resting?: Resting
}

type Side = 'BUY' | 'SELL'
type Resting = Record<Side, number[]>

interface SymbolInfo {
  symbol: string
  pair?: string
  baseAsset: string
  quoteAsset: string
  filters: { filterType: string; tickSize?: string; stepSize?: string; notional?: string; minNotional?: string }[]
}

const decimalsOf = (s: string): number => (s.includes('.') ? s.replace(/0+$/, '').split('.')[1]!.length : 0)

export interface MarketMaker {
  /** Rounds completed so far. */
  readonly rounds: number
  stop(): Promise<void>
}

export async function startMarketMaker(o: MarketMakerOptions): Promise<MarketMaker> {
  const levels = o.levels ?? 3
  const stepBps = o.stepBps ?? 10
  const requoteBps = o.requoteBps ?? 5
  const refreshRounds = o.refreshRounds ?? 10
  const takeEvery = o.takeEveryRounds ?? 3
  const maxClips = o.maxPositionClips ?? 20
  const pub = new RestClient(o.baseUrl)
  const maker = new RestClient(o.baseUrl, o.maker)
  const taker = new RestClient(o.baseUrl, o.taker)

  const futures = await pub.get<{ symbols: SymbolInfo[]; rateLimits: { rateLimitType: string; interval: string; limit: number }[] }>('/fapi/v1/exchangeInfo')
  const spot = await pub.get<{ symbols: SymbolInfo[] }>('/api/v3/exchangeInfo')
  const weightLimit = futures.rateLimits.find((r) => r.rateLimitType === 'REQUEST_WEIGHT')?.limit ?? 2400
  const market = (kind: Market['kind'], s: SymbolInfo): Market => {
    const f = (t: string) => s.filters.find((x) => x.filterType === t)
    const tick = f('PRICE_FILTER')!.tickSize!
    const step = f('LOT_SIZE')!.stepSize!
    const notional = f('MIN_NOTIONAL')?.notional ?? f('NOTIONAL')?.minNotional ?? '0'
    return { kind, symbol: s.symbol, pair: s.pair ?? s.baseAsset + s.quoteAsset, tick: Number(tick), tickDecimals: decimalsOf(tick),
      step: Number(step), stepDecimals: decimalsOf(step), clipSteps: 1, minNotional: Number(notional),
      quotedAt: 0, quotedRound: 0, takerNet: 0 }
  }
  const markets = [...futures.symbols.map((s) => market('PERP', s)), ...spot.symbols.map((s) => market('SPOT', s))]
  const pairs = [...new Set(markets.filter((m) => m.kind === 'PERP').map((m) => m.pair))]
  o.logger.info({ markets: markets.map((m) => m.symbol), intervalMs: o.intervalMs }, 'market maker running')

  const price = (m: Market, p: number): string => (Math.round(p / m.tick) * m.tick).toFixed(m.tickDecimals)
  const qty = (m: Market, steps: number): string => (steps * m.step).toFixed(m.stepDecimals)
  /**
   * Until when the bot sends nothing: a 429 or 418 (the IP's request weight or the account's
   * orders spent) says how long to wait. The IP's budget is shared with every other loopback
   * client, and each request refused in a minute brings the IP nearer a 418, so a bot that kept
   * its pace would push a local user who hit 429 into a ban (and log a warning every round).
   */
  let pausedUntil = 0
  const paused = (): boolean => Date.now() < pausedUntil
  /** Pauses on a rate-limit refusal (logged once per pause); false for any other error. */
  const pauseOn = (err: unknown): boolean => {
    if (!(err instanceof RestError) || (err.status !== 429 && err.status !== 418)) return false
    const seconds = err.retryAfterSec ?? 60
    if (!paused()) o.logger.warn({ seconds, err: err.message }, 'market maker: rate limit reached (the IP\'s weight is shared with every loopback client); pausing')
    pausedUntil = Math.max(pausedUntil, Date.now() + seconds * 1000)
    return true
  }
  /** Refusals are expected (a book moved, a balance ran short): noted at debug, the round goes on. */
  const refused = (what: string, m: Market, err: unknown): void => {
    if (pauseOn(err)) return
    if (err instanceof RestError && err.code !== 0) o.logger.debug?.({ symbol: m.symbol, code: err.code, err: err.message }, `market maker: ${what} refused`)
    else o.logger.warn({ symbol: m.symbol, err: (err as Error).message }, `market maker: ${what} failed`)
  }

  let round = 0
  let perpPositions = new Map<string, number>()

  /** The maker's orders resting in `m`, by side, as the exchange lists them (a restart's included). */
  const openOrders = async (m: Market): Promise<Resting> => {
    const path = m.kind === 'PERP' ? '/fapi/v1/openOrders' : '/api/v3/openOrders'
    const open = await maker.signed<{ orderId: number; side: Side }[]>('GET', path, { symbol: m.symbol })
    return { BUY: open.filter((o) => o.side === 'BUY').map((o) => o.orderId), SELL: open.filter((o) => o.side === 'SELL').map((o) => o.orderId) }
  }

  /** Places one side's levels; the ids of those accepted. */
  const place = async (m: Market, orders: Record<string, string>[]): Promise<number[]> => {
    const ids: number[] = []
    if (m.kind === 'PERP') {
      for (let i = 0; i < orders.length; i += 5) { // five orders at most in a batch
        const answers = await maker.signed<{ orderId?: number; code?: number; msg?: string }[]>('POST', '/fapi/v1/batchOrders',
          { batchOrders: JSON.stringify(orders.slice(i, i + 5)) })
        for (const a of answers) {
          if (a.orderId !== undefined) ids.push(a.orderId)
          else refused('quote', m, new RestError(400, a.code ?? 0, a.msg ?? ''))
        }
      }
    } else {
      for (const order of orders) {
        if (paused()) break
        const placed = await maker.signed<{ orderId: number }>('POST', '/api/v3/order', order).catch((err) => { refused('quote', m, err) })
        if (placed) ids.push(placed.orderId)
      }
    }
    return ids
  }

  /** Cancels the maker's orders `ids` in `m`; one filled meanwhile is unknown by now, as expected. */
  const cancel = async (m: Market, ids: number[]): Promise<void> => {
    if (m.kind === 'PERP') {
      for (let i = 0; i < ids.length; i += 10) { // ten ids at most in a batch cancel
        await maker.signed('DELETE', '/fapi/v1/batchOrders', { symbol: m.symbol, orderIdList: JSON.stringify(ids.slice(i, i + 10)) })
      }
    } else {
      for (const orderId of ids) {
        await maker.signed('DELETE', '/api/v3/order', { symbol: m.symbol, orderId: String(orderId) }).catch((err) => {
          if (!(err instanceof RestError && err.code === -2011)) throw err
        })
      }
    }
  }

  /**
   * Requotes `m` around `index` one side at a time, each side's new levels placed before its old
   * ones are cancelled: a market order sent at any moment finds both sides of the book (cancelling
   * everything first left it empty for a few requests, and a newcomer's market order EXPIRED).
   * The side moving away from the other goes first (the asks when the index rose), so no new
   * quote reaches an old one of the other side.
   */
  const quote = async (m: Market, index: number): Promise<void> => {
    const pos = perpPositions.get(m.symbol) ?? 0
    const limit = maxClips * m.clipSteps * m.step
    const allowed = (side: Side): boolean => m.kind === 'SPOT' || (side === 'BUY' ? pos < limit : pos > -limit)
    const levelsOf = (side: Side) => Array.from({ length: levels }, (_, i) => {
      const off = index * stepBps * (i + 1) / 10_000
      const p = side === 'BUY' ? index - off : index + off
      return { symbol: m.symbol, side, type: 'LIMIT', timeInForce: 'GTC', price: price(m, p), quantity: qty(m, m.clipSteps * (i + 1)) }
    })
    const order: Side[] = index >= m.quotedAt ? ['SELL', 'BUY'] : ['BUY', 'SELL']
    try {
      const resting = m.resting ?? await openOrders(m)
      m.resting = resting
      for (const side of order) {
        if (paused()) return
        const wanted = allowed(side)
        const placed = wanted ? await place(m, levelsOf(side)) : []
        // None of the new levels taken. Paused by a rate limit: the old ones stay till it ends.
        // Refused otherwise (a balance the old ones hold): the old way, cancelled, then placed
        // again, so the quotes still follow the index (the side is empty for a moment).
        const noneTaken = wanted && placed.length === 0
        if (noneTaken && paused()) return
        await cancel(m, resting[side])
        resting[side] = noneTaken ? await place(m, levelsOf(side)) : placed
      }
    } catch (err) {
      m.resting = undefined // what rests is read again before the next requote
      throw err
    }
    m.quotedAt = index
    m.quotedRound = round
  }

  const take = async (m: Market): Promise<void> => {
    const side = m.takerNet > 0 ? 'SELL' : 'BUY'
    const path = m.kind === 'PERP' ? '/fapi/v1/order' : '/api/v3/order'
    const params: Record<string, string> = { symbol: m.symbol, side, type: 'MARKET', quantity: qty(m, m.clipSteps), newOrderRespType: 'RESULT' }
    const r = await taker.signed<{ executedQty: string }>('POST', path, params)
    m.takerNet += (side === 'BUY' ? 1 : -1) * Number(r.executedQty)
  }

  const runRound = async (): Promise<void> => {
    round++
    const index = new Map<string, number>()
    for (const pair of pairs) {
      const perp = markets.find((m) => m.kind === 'PERP' && m.pair === pair)!
      const p = await pub.get<{ indexPrice: string }>('/fapi/v1/premiumIndex', { symbol: perp.symbol })
      if (Number(p.indexPrice) > 0) index.set(pair, Number(p.indexPrice))
    }
    if (round % refreshRounds === 1) {
      const risk = await maker.signed<{ symbol: string; positionAmt: string }[]>('GET', '/fapi/v2/positionRisk')
      perpPositions = new Map(risk.map((r) => [r.symbol, Number(r.positionAmt)]))
    }
    // Under pressure on the IP's weight (shared with every other loopback client), wait.
    if (maker.usedWeight > weightLimit / 2 || pub.usedWeight > weightLimit / 2) return
    for (const m of markets) {
      if (paused()) return
      const px = index.get(m.pair)
      if (px === undefined) continue
      // Each level's size: the smallest above 1.5× the minimum notional, so every quote is valid.
      m.clipSteps = Math.max(1, Math.ceil((m.minNotional * 1.5) / px / m.step))
      const moved = m.quotedAt === 0 || Math.abs(px - m.quotedAt) / m.quotedAt * 10_000 >= requoteBps
      if (!moved && round - m.quotedRound < refreshRounds) continue
      try { await quote(m, px) } catch (err) { refused('requote', m, err) }
    }
    if (takeEvery > 0 && round % takeEvery === 0 && !paused()) {
      const live = markets.filter((m) => index.has(m.pair))
      const m = live[(round / takeEvery) % live.length]
      if (m !== undefined) await take(m).catch((err) => refused('take', m, err))
    }
  }

  let stopped = false
  let sleeping: { timer: NodeJS.Timeout; wake: () => void } | undefined
  const loop = (async () => {
    while (!stopped) {
      const started = Date.now()
      try { await runRound() } catch (err) { if (!pauseOn(err)) o.logger.warn({ err: (err as Error).message }, 'market maker: round failed') }
      if (stopped) break
      // One round per interval at most: a slow round shortens the pause, never overlaps the next.
      const wait = Math.max(0, o.intervalMs - (Date.now() - started), pausedUntil - Date.now())
      await new Promise<void>((wake) => { sleeping = { timer: setTimeout(wake, wait), wake } })
      sleeping = undefined
    }
  })()

  return {
    get rounds() { return round },
    async stop() {
      stopped = true
      if (sleeping) {
        clearTimeout(sleeping.timer)
        sleeping.wake()
      }
      await loop
    },
  }
}
