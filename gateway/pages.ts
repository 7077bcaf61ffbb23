// Long lists answered as pages (replica/projections/pages.ts): the projections' thread reads
// the rows and formats them (page-format.ts), and the route or WebSocket API method sends the
// bytes it made. The node's main thread, which also applies commands, then neither receives
// the rows nor prints them.

import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Market, State } from '../core/state.js'
import type { Page, PageArgs, PageQuery, PriceKind } from '../replica/projections/index.js'
import type { GatewayContext } from './context.js'
import type { DownloadKind } from './format-csv.js'
import { pageMarket, type PageForm, type PageFormat, type PageMarket } from './page-format.js'
import { wantsMicroseconds } from './time-unit.js'

interface PageOf {
  form: PageForm
  /** The market the rows are of; none: rows of any market (income). */
  market?: Market
  priceKind?: PriceKind
  /** A caller's own history: what was applied before the request is readable first (read-your-writes: projections.readable()). */
  ownHistory?: true
  /** A history download's CSV lines (format-csv.ts) instead of JSON. */
  csv?: DownloadKind
}

/** A page to make: how to print it, and the query (its arguments checked) whose rows it prints. */
export type PagePlan = { [Q in PageQuery]: PageOf & { query: Q; args: PageArgs<Q> } }[PageQuery]

/** A JSON value already encoded: a WebSocket API method's page, spliced into its answer as it is. */
export class JsonBytes {
  constructor(readonly bytes: Buffer) {}
}

/** What the form reads of the state: the one market and its two assets' scales, or every market and asset. */
function formatOf(state: State, p: PagePlan, micro: boolean): PageFormat {
  const markets: Record<number, PageMarket> = {}
  const scales: Record<string, number> = {}
  const m = p.market
  for (const x of m === undefined ? state.markets : [m]) if (x !== undefined) markets[x.marketId] = pageMarket(x)
  for (const [name, asset] of state.assets) if (m === undefined || name === m.quote || name === m.base) scales[name] = asset.scale
  return {
    form: p.form, micro, marketId: m?.marketId ?? -1, markets, scales,
    ...(p.priceKind === undefined ? {} : { priceKind: p.priceKind }), ...(p.csv === undefined ? {} : { csv: p.csv }),
  }
}

/** The page the plan makes, its bytes in a Buffer over the memory handed over. */
export async function makePage(ctx: GatewayContext, plan: PagePlan, micro: boolean): Promise<Page & { bytes: Buffer }> {
  if (plan.ownHistory) await ctx.projections.readable()
  const page = ctx.projections.page as (q: PageQuery, args: unknown[], format: PageFormat) => Promise<Page>
  const p = await page.call(ctx.projections, plan.query, plan.args, formatOf(ctx.state(), plan, micro))
  return { ...p, bytes: Buffer.from(p.bytes.buffer, p.bytes.byteOffset, p.bytes.byteLength) }
}

/** The page as this request's answer: JSON, in the request's time unit. */
export async function pageReply(ctx: GatewayContext, req: FastifyRequest, reply: FastifyReply, plan: PagePlan): Promise<Buffer> {
  const { bytes } = await makePage(ctx, plan, wantsMicroseconds(req))
  // A buffer goes out as it is: no serializer, no preSerialization hook (the time unit is applied).
  void reply.type('application/json; charset=utf-8')
  return bytes
}

/** The page as a WebSocket API method's result, its times in µs on a connection that asked for them. */
export async function pageResult(env: { ctx: GatewayContext; micro: boolean }, plan: PagePlan): Promise<JsonBytes> {
  return new JsonBytes((await makePage(env.ctx, plan, env.micro)).bytes)
}
