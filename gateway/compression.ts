// Response compression for clients that ask for it (Accept-Encoding), as web APIs commonly do.
// Klines, depth, order and trade histories, the CSV downloads and the OpenAPI document run to
// hundreds of kilobytes of JSON, which compresses ten to twenty times; an order's answer does
// not reach the threshold and goes out as it is. Compression runs on libuv's thread pool, off
// the thread that applies commands and answers requests.

import { promisify } from 'node:util'
import { pipeline, Readable } from 'node:stream'
import zlib from 'node:zlib'
import type { FastifyInstance, FastifyReply } from 'fastify'

/** Smaller bodies are sent as they are: the headers would outweigh the saving. */
export const COMPRESS_MIN_BYTES = 1024

type Encoding = 'br' | 'gzip' | 'deflate'

/** On equal preference from the client: brotli (quality 4 is faster than gzip's default and smaller), then gzip. */
const ENCODINGS: readonly Encoding[] = ['br', 'gzip', 'deflate']

// Brotli's default quality (11) takes ~150 ms on the 500 KB OpenAPI document; 4 takes ~2 ms.
const BROTLI = { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } }

const brotli = promisify(zlib.brotliCompress)
const compressors: Record<Encoding, (b: Buffer) => Promise<Buffer>> = {
  br: (b) => brotli(b, BROTLI),
  gzip: promisify(zlib.gzip),
  deflate: promisify(zlib.deflate),
}

const streams: Record<Encoding, () => zlib.BrotliCompress | zlib.Gzip | zlib.Deflate> = {
  br: () => zlib.createBrotliCompress(BROTLI),
  gzip: () => zlib.createGzip(),
  deflate: () => zlib.createDeflate(),
}

/** Compressed forms of bodies sent as buffers, kept while the buffer lives. */
const packed = new WeakMap<Buffer, Partial<Record<Encoding, Promise<Buffer>>>>()

/** Text that compresses: JSON, CSV, the docs page's HTML, scripts and styles. Not images. */
const COMPRESSIBLE = /json|text\/|javascript|xml|svg/

/**
 * The encoding an Accept-Encoding header prefers among ours (RFC 9110 §12.5.3: q-values, `*`
 * for any other, q=0 refuses), or undefined for the body as it is.
 */
export function negotiateEncoding(header: string | undefined): Encoding | undefined {
  if (header === undefined || header === '') return undefined
  const q = new Map<string, number>()
  for (const part of header.split(',')) {
    const [name, ...params] = part.split(';')
    const token = name!.trim().toLowerCase()
    if (token === '') continue
    // A q-value that is no number makes the entry unreadable: it is skipped.
    let weight = 1
    for (const p of params) {
      const [key, value] = p.split('=').map((x) => x.trim())
      if (key?.toLowerCase() === 'q') weight = /^[0-9.]+$/.test(value ?? '') ? Number(value) : NaN
    }
    if (Number.isFinite(weight)) q.set(token === 'x-gzip' ? 'gzip' : token, weight)
  }
  let best: Encoding | undefined
  let bestQ = 0
  for (const e of ENCODINGS) {
    const w = q.get(e) ?? q.get('*') ?? 0
    if (w > bestQ) {
      best = e
      bestQ = w
    }
  }
  return best
}

function compressible(reply: FastifyReply): boolean {
  // A range of a file (the docs page's scripts) is a range of its bytes as they are.
  if (reply.hasHeader('content-encoding') || reply.hasHeader('content-range')) return false
  const type = reply.getHeader('content-type')
  return typeof type === 'string' && COMPRESSIBLE.test(type)
}

/** Registers the hook; last among the onSend hooks, so it sees the bytes as they would go out. */
export function compressionHooks(app: FastifyInstance): void {
  app.addHook('onSend', async (req, reply, payload) => {
    if (typeof payload === 'string' || Buffer.isBuffer(payload)) {
      // Checked before anything else: most answers (an order's, a cancel's) are short.
      if (payload.length < COMPRESS_MIN_BYTES || !compressible(reply)) return payload
      const encoding = chosenEncoding(req.headers['accept-encoding'], reply)
      if (encoding === undefined) return payload
      if (typeof payload === 'string') return compressors[encoding](Buffer.from(payload))
      // A route that sends the same buffer every time (the OpenAPI document) has it compressed once.
      let done = packed.get(payload)
      if (done === undefined) packed.set(payload, done = {})
      return done[encoding] ??= compressors[encoding](payload)
    }
    if (payload instanceof Readable && compressible(reply)) {
      const encoding = chosenEncoding(req.headers['accept-encoding'], reply)
      if (encoding === undefined) return payload
      // A stream's length is not known ahead, and a file's header gave its uncompressed length.
      void reply.removeHeader('content-length')
      return pipeline(payload, streams[encoding](), () => { /* an error destroys the output, which ends the response */ })
    }
    return payload
  })
}

/** The encoding for this answer, with its headers set; `Vary` either way, so caches key on the header. */
function chosenEncoding(header: string | undefined, reply: FastifyReply): Encoding | undefined {
  void reply.header('vary', varyWith(reply))
  const encoding = negotiateEncoding(header)
  if (encoding !== undefined) void reply.header('content-encoding', encoding)
  return encoding
}

function varyWith(reply: FastifyReply): string {
  const vary = reply.getHeader('vary')
  if (typeof vary !== 'string' || vary === '') return 'Accept-Encoding'
  return /accept-encoding/i.test(vary) ? vary : `${vary}, Accept-Encoding`
}
