// Response compression (gateway/compression.ts), over a real HTTP server on loopback: a client
// that sends Accept-Encoding gets large bodies compressed in the encoding it prefers, and the
// same bytes once decompressed; short answers, clients that ask for nothing and ranges of files
// go out as they are; streamed files (the CSV downloads, the docs page's scripts) too.

import t, { type Test } from 'tap'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import zlib from 'node:zlib'
import { buildGateway } from '../../gateway/app.js'
import { negotiateEncoding } from '../../gateway/compression.js'
import { fundedTrader, gatewayRig, hmac } from '../helpers/gateway.js'

interface Raw {
  status: number
  headers: http.IncomingHttpHeaders
  body: Buffer
}

/** One request, its body as the bytes that came over the wire (node:http decompresses nothing). */
function raw(base: string, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Raw> {
  return new Promise((resolve, reject) => {
    http.request(`${base}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }))
      res.on('error', reject)
    }).on('error', reject).end()
  })
}

/** A gateway listening on loopback over a test exchange, with a funded trader and its signed paths. */
async function listening(t: Test) {
  const rig = await gatewayRig()
  const app = await buildGateway(rig.ctx)
  await app.listen({ host: '127.0.0.1', port: 0 })
  t.teardown(async () => { await app.close(); await rig.close() })
  const trader = await fundedTrader(rig)
  const signed = (path: string, params: Record<string, string>): string => {
    const q = new URLSearchParams({ ...params, timestamp: String(rig.ex.time) }).toString()
    return `${path}?${q}&signature=${hmac(trader.keys.secretKey, q)}`
  }
  return {
    rig, trader, signed, apiKey: { 'x-mbx-apikey': trader.keys.apiKey },
    base: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
  }
}

const decoders: Record<string, (b: Buffer) => Buffer> = {
  gzip: (b) => zlib.gunzipSync(b),
  br: (b) => zlib.brotliDecompressSync(b),
  deflate: (b) => zlib.inflateSync(b),
}

t.test('which encoding an Accept-Encoding header gets', async (t) => {
  const cases: [string | undefined, string | undefined][] = [
    [undefined, undefined], ['', undefined], ['identity', undefined],
    ['gzip', 'gzip'], ['x-gzip', 'gzip'], ['GZIP', 'gzip'], ['deflate', 'deflate'], ['br', 'br'],
    // Equal preference: brotli, then gzip.
    ['gzip, deflate', 'gzip'], ['gzip, deflate, br', 'br'], ['gzip, deflate, br, zstd', 'br'], ['*', 'br'],
    // q-values (RFC 9110): the highest wins, q=0 refuses, `*` stands for the rest.
    ['gzip;q=0.5, br;q=0.1', 'gzip'], ['br;q=0, *', 'gzip'], ['br;q=0, gzip;q=0, *;q=0.2', 'deflate'],
    ['gzip;q=0', undefined], ['*;q=0', undefined], ['gzip ; q=0.8 , deflate;q=0.9', 'deflate'],
    ['zstd, compress', undefined], ['gzip;q=nonsense', undefined], [',,;', undefined],
  ]
  for (const [header, want] of cases) t.equal(negotiateEncoding(header), want, JSON.stringify(header))
})

t.test('large bodies go out compressed as the client prefers; short ones as they are', async (t) => {
  const { rig, trader, signed, apiKey, base } = await listening(t)
  // A trader with 60 orders resting: their allOrders answer is ~20 KB of JSON.
  for (let i = 0; i < 60; i++) {
    await rig.run({ type: 'PlaceOrder', account: trader.address, sub: 0, marketId: 1, side: 'BUY', orderType: 'LIMIT',
      timeInForce: 'GTC', priceTicks: 400_000 + i, qtyLots: 3 })
  }
  const allOrders = signed('/fapi/v1/allOrders', { symbol: 'BTCUSDTPERP', limit: '1000' })

  for (const path of ['/openapi.json', '/fapi/v1/exchangeInfo', allOrders]) {
    const plain = await raw(base, path, apiKey)
    t.equal(plain.status, 200, path)
    t.notOk(plain.headers['content-encoding'], 'nothing asked, nothing compressed')
    t.equal(plain.headers.vary, 'Accept-Encoding', 'a cache between keys on the header')
    t.equal(Number(plain.headers['content-length']), plain.body.length)
    for (const encoding of ['gzip', 'br', 'deflate']) {
      const packed = await raw(base, path, { ...apiKey, 'accept-encoding': encoding })
      t.equal(packed.status, 200)
      t.equal(packed.headers['content-encoding'], encoding, `${path} in ${encoding}`)
      t.equal(packed.headers.vary, 'Accept-Encoding')
      t.equal(Number(packed.headers['content-length']), packed.body.length, 'the length of the bytes sent')
      t.ok(packed.body.length < plain.body.length / 3, `${plain.body.length} bytes sent as ${packed.body.length}`)
      // Time-dependent fields aside (serverTime), the same document.
      const text = decoders[encoding]!(packed.body).toString()
      if (path === '/fapi/v1/exchangeInfo') t.same({ ...JSON.parse(text), serverTime: 0 }, { ...JSON.parse(plain.body.toString()), serverTime: 0 })
      else t.equal(text, plain.body.toString())
    }
  }
  const orders = JSON.parse(zlib.gunzipSync((await raw(base, allOrders, { ...apiKey, 'accept-encoding': 'gzip' })).body).toString())
  t.equal(orders.length, 60, 'the orders, decompressed')

  // An order's answer, the time, a refusal: under the threshold, as they are, no Vary.
  for (const path of ['/fapi/v1/time', '/fapi/v1/depth?symbol=NOPE', '/fapi/v1/ping']) {
    const r = await raw(base, path, { 'accept-encoding': 'gzip, br' })
    t.notOk(r.headers['content-encoding'], path)
    t.notOk(r.headers.vary, path)
    t.doesNotThrow(() => JSON.parse(r.body.toString()))
  }
  // The client refuses every encoding we have: as it is.
  const refused = await raw(base, '/openapi.json', { 'accept-encoding': 'gzip;q=0, br;q=0, deflate;q=0' })
  t.notOk(refused.headers['content-encoding'])
  t.equal(refused.status, 200)

  // HEAD says the length GET would send in that encoding.
  const head = await raw(base, '/openapi.json', { 'accept-encoding': 'gzip' }, 'HEAD')
  const get = await raw(base, '/openapi.json', { 'accept-encoding': 'gzip' })
  t.equal(head.headers['content-encoding'], 'gzip')
  t.equal(head.headers['content-length'], String(get.body.length))
  t.equal(head.body.length, 0)
})

t.test('streamed files: the CSV downloads and the docs page\'s scripts; ranges as they are', async (t) => {
  const { rig, trader, signed, apiKey, base } = await listening(t)
  const start = rig.ex.time
  for (let i = 0; i < 200; i++) {
    const placed = await rig.run({ type: 'PlaceOrder', account: trader.address, sub: 0, marketId: 1, side: 'BUY', orderType: 'LIMIT',
      timeInForce: 'GTC', priceTicks: 400_000, qtyLots: 3 })
    await rig.run({ type: 'CancelOrder', account: trader.address, sub: 0, marketId: 1, orderId: placed.ok ? placed.orderId! : 0 })
  }
  await rig.run({ type: 'Tick' }, 60_000)
  const id = JSON.parse((await raw(base, signed('/fapi/v1/order/asyn', { startTime: String(start), endTime: String(rig.ex.time) }), apiKey)).body.toString())
  const link = JSON.parse((await raw(base, signed('/fapi/v1/order/asyn/id', { downloadId: id.downloadId }), apiKey)).body.toString())
  const url = new URL(link.url)
  const file = url.pathname + url.search
  const plain = await raw(base, file)
  t.equal(plain.status, 200)
  t.equal(plain.body.toString().split('\r\n').length - 1, 1 + 200, 'a header and 200 rows')
  const packed = await raw(base, file, { 'accept-encoding': 'gzip' })
  t.equal(packed.headers['content-encoding'], 'gzip')
  t.match(packed.headers['content-type'], /^text\/csv/)
  t.equal(packed.headers['transfer-encoding'], 'chunked', 'streamed')
  t.equal(zlib.gunzipSync(packed.body).toString(), plain.body.toString())
  t.ok(packed.body.length < plain.body.length / 5, `${plain.body.length} bytes sent as ${packed.body.length}`)

  const script = '/docs/static/swagger-ui-bundle.js'
  const whole = await raw(base, script)
  const br = await raw(base, script, { 'accept-encoding': 'br' })
  t.equal(br.headers['content-encoding'], 'br')
  t.notOk(br.headers['content-length'], 'the file\'s own length is not the length sent')
  t.ok(zlib.brotliDecompressSync(br.body).equals(whole.body), 'the same script')
  const range = await raw(base, script, { 'accept-encoding': 'gzip', range: 'bytes=0-99' })
  t.equal(range.status, 206)
  t.notOk(range.headers['content-encoding'], 'a range is of the bytes as they are')
  t.ok(range.body.equals(whole.body.subarray(0, 100)))
})
