// Futures history downloads (Binance's GET /fapi/v1/{income,order,trade}/asyn and /asyn/id):
// a download id names a sub-account's income, orders or trades over a time range, and its
// link serves them as CSV. Nothing is stored: the id carries the kind and the range and a MAC
// over them and the sub-account, the link carries the id, the sub-account and an expiry under
// another MAC, both keyed from the master secret. So any gateway of the cluster resolves
// either, and the file is built from the projections when it is fetched (a past range's rows
// never change; a range still open grows).

import { createHmac, timingSafeEqual } from 'node:crypto'
import type { PerpMarket, State } from '../core/state.js'
import type { IncomeRecord, OrderRecord, Owner, Page, UserTradeRecord } from '../replica/projections/index.js'
import type { GatewayContext } from './context.js'
import { csvHeader, type DownloadKind } from './format-csv.js'
import { makePage, type PagePlan } from './pages.js'

export type { DownloadKind } from './format-csv.js'
export const DOWNLOAD_KINDS: readonly DownloadKind[] = ['income', 'order', 'trade']

/** Binance: a download link lives 24 hours. */
export const LINK_TTL_MS = 24 * 3_600_000
/** Binance: at most a year between startTime and endTime. */
export const RANGE_MAX_MS = 365 * 86_400_000
/** Rows read from the projections per query while a file is built. */
const PAGE = 1000

const TIME_DIGITS = 13
const MAC_DIGITS = 12

export interface Download {
  kind: DownloadKind
  startTime: number
  endTime: number
}

/** Ids and links: derived under their own labels from the master secret. */
export class DownloadKeys {
  private readonly idKey: Buffer
  private readonly linkKey: Buffer

  constructor(masterSecret: Uint8Array) {
    this.idKey = createHmac('sha256', masterSecret).update('historyDownloadId').digest()
    this.linkKey = createHmac('sha256', masterSecret).update('historyDownloadLink').digest()
  }

  /** A decimal id, as Binance's: the kind's digit, both times (13 digits each), a 12-digit MAC. */
  id(owner: Owner, d: Download): string {
    const body = String(DOWNLOAD_KINDS.indexOf(d.kind) + 1) + pad(d.startTime) + pad(d.endTime)
    return body + this.idMac(owner, body)
  }

  /** The download an id names, if it is this sub-account's. */
  parseId(owner: Owner, id: string): Download | undefined {
    if (!/^[1-3][0-9]{38}$/.test(id)) return undefined
    const body = id.slice(0, 1 + 2 * TIME_DIGITS)
    if (!same(id.slice(body.length), this.idMac(owner, body))) return undefined
    return { kind: DOWNLOAD_KINDS[Number(id[0]) - 1]!, startTime: Number(id.slice(1, 14)), endTime: Number(id.slice(14, 27)) }
  }

  /** The link's path token: the id, the sub-account and the expiry, with their MAC. */
  linkToken(owner: Owner, id: string, expires: number): string {
    const body = `${id}-${owner.account}-${owner.sub}-${expires}`
    return `${body}-${this.linkMac(body)}`
  }

  /** What a link token names, 'expired' past its expiry, or undefined for a token not made here. */
  parseLink(token: string, now: number): { owner: Owner; download: Download } | 'expired' | undefined {
    const m = /^([0-9]{39})-(0x[0-9a-fA-F]{40})-([0-9]{1,2})-([0-9]{1,15})-([0-9a-f]{32})$/.exec(token)
    if (m === null) return undefined
    if (!same(m[5]!, this.linkMac(token.slice(0, token.length - 33)))) return undefined
    const owner = { account: m[2]!, sub: Number(m[3]) }
    const download = this.parseId(owner, m[1]!)
    if (download === undefined) return undefined
    return Number(m[4]) < now ? 'expired' : { owner, download }
  }

  private idMac(owner: Owner, body: string): string {
    const mac = createHmac('sha256', this.idKey).update(`${owner.account.toLowerCase()}|${owner.sub}|${body}`).digest()
    return (mac.readBigUInt64BE(0) % 10n ** BigInt(MAC_DIGITS)).toString().padStart(MAC_DIGITS, '0')
  }

  /** 128 bits of HMAC-SHA256, in hex. */
  private linkMac(body: string): string {
    return createHmac('sha256', this.linkKey).update(body).digest('hex').slice(0, 32)
  }
}

function pad(n: number): string {
  return String(n).padStart(TIME_DIGITS, '0')
}

function same(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b))
}

function perpMarkets(state: State): PerpMarket[] {
  return state.markets.filter((m): m is PerpMarket => m !== undefined && m.kind === 'PERP')
}

/**
 * The file: a header line, then every row of the range, oldest first (orders and trades market
 * by market). Each page of rows is printed where it is read (gateway/pages.ts) and goes out as
 * the bytes it was handed: a file of thousands of rows built here line by line held the node's
 * main thread for 15–26 ms per fetch, its event loop up to 300 ms behind under one client.
 */
export async function* downloadChunks(ctx: GatewayContext, owner: Owner, d: Download): AsyncGenerator<Buffer> {
  await ctx.projections.readable()
  yield Buffer.from(csvHeader(d.kind))
  const range = { startTime: d.startTime, endTime: d.endTime }
  const read = (plan: PagePlan): Promise<Page & { bytes: Buffer }> => makePage(ctx, plan, false)
  if (d.kind === 'income') {
    // Paged by (time, tranId): a millisecond may hold more rows than a page.
    let after: { time: number; tranId: number } | undefined
    for (;;) {
      const q = { ...range, ...(after ? { startTime: after.time, after } : {}), limit: PAGE }
      const p = await read({ form: 'income', csv: 'income', query: 'income', args: [owner, q, ctx.now()] })
      if (p.rows > 0) yield p.bytes
      if (p.rows < PAGE) return
      const last = p.last as IncomeRecord
      after = { time: last.time, tranId: last.tranId }
    }
  }
  for (const m of perpMarkets(ctx.state())) {
    if (d.kind === 'order') {
      // Paged by orderId.
      for (let next: number | undefined; ;) {
        const q = { ...range, ...(next ? { orderId: next } : {}), limit: PAGE, spot: false }
        const p = await read({ form: 'perpOrders', csv: 'order', market: m, query: 'allOrders', args: [owner, m.marketId, q] })
        if (p.rows > 0) yield p.bytes
        if (p.rows < PAGE) break
        next = (p.last as OrderRecord).orderId + 1
      }
      continue
    }
    // Paged by (trade id, maker): a self-trade is two rows under one id, which a page may split.
    let after: { tradeId: number; maker: boolean } | undefined
    for (;;) {
      const q = { ...range, ...(after ? { fromId: after.tradeId, after } : {}), limit: PAGE, spot: false }
      const p = await read({ form: 'perpUserTrades', csv: 'trade', market: m, query: 'userTrades', args: [owner, m.marketId, q] })
      if (p.rows > 0) yield p.bytes
      if (p.rows < PAGE) break
      const last = p.last as UserTradeRecord
      after = { tradeId: last.tradeId, maker: last.maker }
    }
  }
}
