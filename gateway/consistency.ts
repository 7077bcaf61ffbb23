// Read-your-writes across gateways (DESIGN.md §6). Every response says, in `X-EXCHANGE-SEQ`,
// the seq this gateway's state and projections answered as of; a write's response comes only
// once its own seq is readable here, so that header is at least the write's seq. A client
// that sends the highest seq it has seen in the same request header gets an answer from a
// state at least that new: a gateway behind it waits, bounded, rather than serve stale data.

import type { FastifyInstance } from 'fastify'
import type { GatewayContext } from './context.js'
import { ApiError } from './errors.js'

export const SEQ_HEADER = 'x-exchange-seq'

const SEQ_FORMAT = /^[0-9]{1,15}$/

/** A gateway that cannot reach the client's seq in time: busy, try again (or elsewhere). */
function behind(seq: number): ApiError {
  return new ApiError(503, -1008, `This server has not yet caught up with seq ${seq}. Please try again shortly.`)
}

export function readYourWrites(app: FastifyInstance, ctx: GatewayContext, waitMs: number): void {
  // Callback-style hooks: most requests name no seq, and then neither hook allocates a promise.
  app.addHook('onRequest', (req, _reply, done) => {
    const raw = req.headers[SEQ_HEADER]
    if (raw === undefined) return done()
    if (typeof raw !== 'string' || !SEQ_FORMAT.test(raw)) {
      return done(new ApiError(400, -1100, `Illegal characters found in header '${SEQ_HEADER.toUpperCase()}'; legal range is '^[0-9]{1,15}$'.`))
    }
    const seq = Number(raw)
    if (seq <= ctx.applied.seq) return done()
    ctx.applied.until(seq, waitMs).then((reached) => done(reached ? undefined : behind(seq)), done)
  })
  app.addHook('onSend', (_req, reply, _payload, done) => {
    reply.header(SEQ_HEADER, String(ctx.applied.seq))
    done()
  })
}
