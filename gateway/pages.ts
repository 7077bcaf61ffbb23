// Long lists answered as pages (replica/projections/pages.ts): the projections' thread reads
// the rows and formats them (page-format.ts), and the route sends the bytes it made. The node's
// main thread, which also applies commands, then neither receives the rows nor prints them.

import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Market } from '../core/state.js'
import type { PageArgs, PageQuery } from '../replica/projections/index.js'
import type { GatewayContext } from './context.js'
import { pageMarket, type PageForm, type PageFormat } from './page-format.js'
import { wantsMicroseconds } from './time-unit.js'

/** The body of `query(...args)` in `form`, for `m`, as this request's answer (JSON, in the request's time unit). */
export async function pageReply<Q extends PageQuery>(ctx: GatewayContext, req: FastifyRequest, reply: FastifyReply,
  m: Market, form: PageForm, query: Q, args: PageArgs<Q>): Promise<Buffer> {
  const format: PageFormat = {
    form, market: pageMarket(m), quoteScale: ctx.state().assets.get(m.quote)!.scale, micro: wantsMicroseconds(req),
  }
  const bytes = await ctx.projections.page(query, args, format)
  // A buffer goes out as it is: no serializer, no preSerialization hook (the time unit is applied).
  void reply.type('application/json; charset=utf-8')
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}
