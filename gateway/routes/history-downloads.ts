// Futures history downloads, as Binance's: GET /fapi/v1/{income,order,trade}/asyn asks for a
// download id over a time range, GET /fapi/v1/{kind}/asyn/id turns it into a link, and the
// link (GET /fapi/v1/download?link=<token>, no API key, as a presigned link needs none) serves
// the CSV. The file is ready at once: the id's answer is always "completed".

import { Readable } from 'node:stream'
import type { FastifyPluginAsync } from 'fastify'
import { authenticate, type Authenticated } from '../auth.js'
import type { GatewayContext } from '../context.js'
import { ApiError, invalidParam } from '../errors.js'
import { DOWNLOAD_KINDS, DownloadKeys, downloadChunks, LINK_TTL_MS, RANGE_MAX_MS, type DownloadKind } from '../history-downloads.js'
import { required, timeRange } from '../market-params.js'
import { downloadDocs } from '../schemas/account.js'
import type { WeightCounter } from '../weights.js'

interface Options {
  ctx: GatewayContext
  weights: WeightCounter
}

const ownerOf = (a: Authenticated): { account: string; sub: number } => ({ account: a.session.account, sub: a.session.sub })

/** Where the caller reached this gateway, so the link works from where it asked. */
function origin(req: { protocol: string; host: string }): string {
  return `${req.protocol}://${req.host}`
}

export const historyDownloadRoutes: FastifyPluginAsync<Options> = async (app, { ctx, weights }) => {
  const keys = new DownloadKeys(ctx.masterSecret)

  for (const kind of DOWNLOAD_KINDS) {
    app.get(`/fapi/v1/${kind}/asyn`, downloadDocs.downloadId(kind), async (req) => {
      weights.charge(req.ip, 1000)
      const a = authenticate(ctx, req, 'USER_DATA')
      required(a.params, 'startTime')
      required(a.params, 'endTime')
      const { startTime, endTime } = timeRange(a.params, RANGE_MAX_MS) as { startTime: number; endTime: number }
      // Building the file takes as long as reading the rows when it is fetched: nothing to wait for.
      return { avgCostTimestampOfLast30d: 0, downloadId: keys.id(ownerOf(a), { kind, startTime, endTime }) }
    })

    app.get(`/fapi/v1/${kind}/asyn/id`, downloadDocs.downloadLink(kind), async (req) => {
      weights.charge(req.ip, 10)
      const a = authenticate(ctx, req, 'USER_DATA')
      const downloadId = required(a.params, 'downloadId')
      const d = keys.parseId(ownerOf(a), downloadId)
      if (d === undefined || d.kind !== kind as DownloadKind) throw invalidParam('downloadId')
      const expires = ctx.now() + LINK_TTL_MS
      return {
        downloadId, status: 'completed', url: `${origin(req)}/fapi/v1/download?link=${keys.linkToken(ownerOf(a), downloadId, expires)}`,
        s3Link: null, notified: true, expirationTimestamp: expires, isExpired: null,
      }
    })
  }

  app.get('/fapi/v1/download', downloadDocs.file, async (req, reply) => {
    // Each fetch reads the whole range again: heavy enough to count (24 a minute per IP).
    weights.charge(req.ip, 100)
    const token = (req.query as { link?: unknown }).link
    const found = typeof token === 'string' ? keys.parseLink(token, ctx.now()) : undefined
    if (found === 'expired') throw new ApiError(410, -1130, 'This download link has expired.')
    if (found === undefined) throw new ApiError(404, -1130, 'No download at this link.')
    const { kind, startTime, endTime } = found.download
    void reply.type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${kind}-${startTime}-${endTime}.csv"`)
    return Readable.from(downloadChunks(ctx, found.owner, found.download))
  })
}
