// Long lists answered as pages (replica/projections/pages.ts): the projections' thread reads
// the rows and formats them (page-format.ts), and the route sends the bytes it made. The node's
// main thread, which also applies commands, then neither receives the rows nor prints them.

import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Market, State } from '../core/state.js'
import type { PageArgs, PageQuery, PriceKind } from '../replica/projections/index.js'
import type { GatewayContext } from './context.js'
import { pageMarket, type PageForm, type PageFormat, type PageMarket } from './page-format.js'
import { wantsMicroseconds } from './time-unit.js'

export interface PageOf {
  form: PageForm
  /** The market the rows are of; none: rows of any market (income). */
  market?: Market
  priceKind?: PriceKind
}

/** What the form reads of the state: the one market and its two assets' scales, or every market and asset. */
function formatOf(state: State, p: PageOf, micro: boolean): PageFormat {
  const markets: Record<number, PageMarket> = {}
  const scales: Record<string, number> = {}
  const m = p.market
  for (const x of m === undefined ? state.markets : [m]) if (x !== undefined) markets[x.marketId] = pageMarket(x)
  for (const [name, asset] of state.assets) if (m === undefined || name === m.quote || name === m.base) scales[name] = asset.scale
  return { form: p.form, micro, marketId: m?.marketId ?? -1, markets, scales, ...(p.priceKind === undefined ? {} : { priceKind: p.priceKind }) }
}

/** The body of `query(...args)` as `page` prints it, as this request's answer (JSON, in the request's time unit). */
export async function pageReply<Q extends PageQuery>(ctx: GatewayContext, req: FastifyRequest, reply: FastifyReply,
  page: PageOf, query: Q, args: PageArgs<Q>): Promise<Buffer> {
  const bytes = await ctx.projections.page(query, args, formatOf(ctx.state(), page, wantsMicroseconds(req)))
  // A buffer goes out as it is: no serializer, no preSerialization hook (the time unit is applied).
  void reply.type('application/json; charset=utf-8')
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}
