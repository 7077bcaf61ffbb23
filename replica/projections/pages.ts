// Query answers formatted where they are read. A page of history (1,000 orders) cost the node's
// main thread, which also applies commands, about 5 ms: receiving the rows from the projections'
// thread (1.3 ms of structured clone), formatting them, serializing and encoding 500 KB. A page
// is the same query answered as its response body's bytes, made in the projections' thread and
// handed over without a copy. What the bytes say is the gateway's business: it names a module
// (`pageFormatter` in ProjectionsOptions) that this thread imports, so replica/ knows nothing
// of HTTP or of Binance's forms.

import type { Projections } from './projections.js'

/** The queries a page can be made of: those whose answers run to hundreds of rows. */
export type PageQuery = 'allOrders' | 'userTrades' | 'userTradesWithLists' | 'income' | 'recentTrades' | 'historicalTrades' | 'aggTrades'
  | 'klines' | 'priceKlines'

export const PAGE_QUERIES: ReadonlySet<string> = new Set<PageQuery>(
  ['allOrders', 'userTrades', 'userTradesWithLists', 'income', 'recentTrades', 'historicalTrades', 'aggTrades', 'klines', 'priceKlines'])

/** A query's arguments, as its method takes them. */
export type PageArgs<Q extends PageQuery> = Parameters<Projections[Q]>

/**
 * What the formatter module exports. `format` is the caller's (structured-clonable: it crosses
 * threads), naming the form and what it needs (a market's scales, the time unit).
 */
export interface PageFormatter {
  formatPage(format: unknown, rows: unknown): string
}

/** Imports the formatter module at `url`, checking it has the one export a page needs. */
export async function loadPageFormatter(url: string): Promise<PageFormatter> {
  const mod = await import(url) as Partial<PageFormatter>
  if (typeof mod.formatPage !== 'function') throw new Error(`projections: ${url} exports no formatPage`)
  return { formatPage: mod.formatPage }
}

/**
 * A page: the body's bytes, how many rows they print, and the last of those rows as the query
 * gave it (a long read goes on from it: history downloads, gateway/history-downloads.ts).
 */
export interface Page {
  bytes: Uint8Array
  rows: number
  last: unknown
}

const utf8 = new TextEncoder()

/**
 * The page of `rows` (a list query's answer) with `body` their formatted text. The bytes are in
 * a buffer of their own (TextEncoder's, never Buffer's shared pool), so the worker can transfer it.
 */
export function pageOf(body: string, rows: unknown): Page {
  const list = rows as unknown[]
  return { bytes: utf8.encode(body), rows: list.length, last: list[list.length - 1] }
}
