// Futures history downloads: GET /fapi/v1/{income,order,trade}/asyn gives an id, /asyn/id its
// link, and the link serves a CSV whose rows are the REST history's rows, all of them: more
// than a page, more than a page within one millisecond (one market order's 1,200 fills).
// Ids and links are the caller's alone; a link expires; bad input is refused in Binance's form.

import t from 'tap'
import type { Command } from '../../core/commands.js'
import { fundedTrader, gatewayRig, signedInject, type GatewayRig, type Keys } from '../helpers/gateway.js'

const MIN = 60_000

/** Parses CSV (RFC 4180: fields quoted when they hold a comma, quote or line break). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = []
  let row: string[] = []
  let field = ''
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { field += '"'; i++ } else if (c === '"') quoted = false
      else field += c
    } else if (c === '"') quoted = true
    else if (c === ',') { row.push(field); field = '' } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field)
      rows.push(row)
      row = []
      field = ''
      i++
    } else field += c
  }
  return rows
}

/** Asks for a download and fetches its file (a minute later each time, so the 1000 weight fits). */
async function download(rig: GatewayRig, keys: Keys, kind: 'income' | 'order' | 'trade', startTime: number, endTime: number) {
  await rig.run({ type: 'Tick' }, MIN)
  const id = await signedInject(rig, keys, 'GET', `/fapi/v1/${kind}/asyn`, { startTime, endTime })
  const { downloadId } = id.json()
  const link = (await signedInject(rig, keys, 'GET', `/fapi/v1/${kind}/asyn/id`, { downloadId })).json()
  const url = new URL(link.url)
  const file = await rig.app.inject({ url: url.pathname + url.search })
  return { id: id.json(), link, url, file, rows: parseCsv(file.body) }
}

/** REST rows as CSV would print them: each column's value as text ('' for null). */
const asCells = (columns: string[], rows: Record<string, unknown>[]): string[][] =>
  rows.map((r) => columns.map((c) => (r[c] === null || r[c] === undefined ? '' : String(r[c]))))

t.test('a download holds the REST history\'s rows, each kind', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const maker = await fundedTrader(rig)
  const taker = await fundedTrader(rig)
  const start = rig.ex.time
  const order = (who: typeof maker, p: Record<string, string>) => signedInject(rig, who.keys, 'POST', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', ...p })
  await order(maker, { side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.010', price: '50000', newClientOrderId: 'ask-1' })
  await order(taker, { side: 'BUY', type: 'MARKET', quantity: '0.004' })
  await order(taker, { side: 'BUY', type: 'MARKET', quantity: '0.006' })
  await order(maker, { side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.010', price: '40000' })
  const end = rig.ex.time

  const trades = await download(rig, maker.keys, 'trade', start, end)
  t.match(trades.id, { avgCostTimestampOfLast30d: 0, downloadId: /^3[0-9]{38}$/ })
  t.match(trades.link, { downloadId: trades.id.downloadId, status: 'completed', s3Link: null, notified: true, isExpired: null,
    expirationTimestamp: rig.ex.time + 24 * 60 * MIN })
  t.equal(trades.file.statusCode, 200)
  t.match(trades.file.headers['content-type'], /^text\/csv/)
  t.equal(trades.file.headers['content-disposition'], `attachment; filename="trade-${start}-${end}.csv"`)
  const rest = (path: string, p: Record<string, string | number>) => signedInject(rig, maker.keys, 'GET', path, p).then((r) => r.json())
  const [header, ...rows] = trades.rows
  t.same(header, ['symbol', 'id', 'orderId', 'side', 'price', 'qty', 'realizedPnl', 'quoteQty', 'commission', 'commissionAsset',
    'time', 'positionSide', 'buyer', 'maker'])
  t.same(rows, asCells(header!, await rest('/fapi/v1/userTrades', { symbol: 'BTCUSDTPERP' })), 'the maker\'s two fills, as userTrades')
  t.equal(rows.length, 2)

  const orders = await download(rig, maker.keys, 'order', start, end)
  t.same(orders.rows.slice(1), asCells(orders.rows[0]!, await rest('/fapi/v1/allOrders', { symbol: 'BTCUSDTPERP' })),
    'the maker\'s two orders, as allOrders')
  t.same(orders.rows.slice(1).map((r) => r[2]), ['FILLED', 'NEW'])

  const income = await download(rig, maker.keys, 'income', start - 1000, end)
  t.same(income.rows.slice(1), asCells(income.rows[0]!, await rest('/fapi/v1/income', { startTime: start - 1000, endTime: end })),
    'the maker\'s income, as /fapi/v1/income')
  t.same(income.rows.slice(1).map((r) => r[1]), ['TRANSFER', 'COMMISSION', 'COMMISSION'])
})

t.test('every row of a history larger than a page, many in one millisecond', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const makers = await Promise.all(Array.from({ length: 6 }, () => fundedTrader(rig)))
  const taker = await fundedTrader(rig, 1_000_000)
  const start = rig.ex.time
  // 6 makers × 200 asks of 0.002 (the per-market cap), then one market order takes all 1,200 in one command.
  for (const m of makers) {
    for (let i = 0; i < 200; i++) {
      const r = await rig.run({ type: 'PlaceOrder', account: m.address, sub: 0, marketId: 1, side: 'SELL', orderType: 'LIMIT',
        timeInForce: 'GTC', priceTicks: 500_000 + (i % 10), qtyLots: 2 } satisfies Command)
      if (!r.ok) throw new Error(r.code)
    }
  }
  const sweep = await rig.run({ type: 'PlaceOrder', account: taker.address, sub: 0, marketId: 1, side: 'BUY', orderType: 'MARKET',
    qtyLots: 2_400 })
  t.equal(sweep.events.filter((e) => e.type === 'trade').length, 1_200, '1,200 fills in one entry')
  const end = rig.ex.time

  const trades = await download(rig, taker.keys, 'trade', start, end)
  t.equal(trades.rows.length, 1 + 1_200, 'every fill')
  t.equal(new Set(trades.rows.slice(1).map((r) => r[1])).size, 1_200, 'each once')
  const income = await download(rig, taker.keys, 'income', start, end)
  const commissions = income.rows.slice(1).filter((r) => r[1] === 'COMMISSION')
  t.equal(commissions.length, 1_200, 'a commission row per fill, all in one millisecond')
  t.equal(new Set(commissions.map((r) => r[6])).size, 1_200, 'each once (by tranId)')
  t.ok(commissions.every((r) => r[5] === String(end)), 'at the sweep\'s time')
  const orders = await download(rig, makers[0]!.keys, 'order', start, end)
  t.equal(orders.rows.length, 1 + 200, 'a maker\'s 200 orders')
  t.ok(orders.rows.slice(1).every((r) => r[2] === 'FILLED'))

  // A maker who placed and canceled 1,100 more: the order file pages by orderId.
  const busy = makers[1]!
  for (let i = 0; i < 1_100; i++) {
    const placed = await rig.run({ type: 'PlaceOrder', account: busy.address, sub: 0, marketId: 1, side: 'BUY', orderType: 'LIMIT',
      timeInForce: 'GTC', priceTicks: 400_000, qtyLots: 3 })
    await rig.run({ type: 'CancelOrder', account: busy.address, sub: 0, marketId: 1, orderId: placed.ok ? placed.orderId! : 0 })
  }
  const many = await download(rig, busy.keys, 'order', start, rig.ex.time)
  t.equal(many.rows.length, 1 + 200 + 1_100)
  const ids = many.rows.slice(1).map((r) => Number(r[0]))
  t.same(ids, [...ids].sort((a, b) => a - b), 'ascending orderId')
  t.equal(new Set(ids).size, ids.length, 'each once')
})

t.test('a self-trade\'s two rows split by a page boundary are both in the file, once', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const other = await fundedTrader(rig)
  const solo = await fundedTrader(rig, 1_000_000)
  const start = rig.ex.time
  const place = async (who: typeof solo, side: 'BUY' | 'SELL', orderType: 'LIMIT' | 'MARKET'): Promise<void> => {
    const r = await rig.run({ type: 'PlaceOrder', account: who.address, sub: 0, marketId: 1, side, orderType, qtyLots: 2, stp: 'NONE',
      ...(orderType === 'LIMIT' ? { timeInForce: 'GTC', priceTicks: 500_000 } : {}) } satisfies Command)
    if (!r.ok) throw new Error(r.code)
  }
  // One fill against another account, then 600 with itself: a self-trade is two rows (taker,
  // then maker) under one trade id, so the first page's 1,000th row is the taker's of trade 500.
  await place(other, 'SELL', 'LIMIT')
  await place(solo, 'BUY', 'MARKET')
  for (let i = 0; i < 600; i++) {
    await place(solo, 'SELL', 'LIMIT')
    await place(solo, 'BUY', 'MARKET')
  }
  const trades = await download(rig, solo.keys, 'trade', start, rig.ex.time)
  const rows = trades.rows.slice(1)
  t.equal(rows.length, 1 + 2 * 600, 'every row')
  const keys = rows.map((r) => `${r[1]}:${r[13]}`)
  t.equal(new Set(keys).size, keys.length, 'each (trade id, maker) once')
  t.same(rows.slice(999, 1001).map((r) => [r[1] === rows[999]![1], r[13]]), [[true, 'false'], [true, 'true']],
    'rows 1,000 and 1,001: one self-trade\'s taker and maker')
})

t.test('ids and links are the caller\'s; links expire; bad input is refused', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const alice = await fundedTrader(rig)
  const bob = await fundedTrader(rig)
  const now = rig.ex.time
  // Each /asyn request weighs 1000 of the minute's 2400: a minute passes before each.
  const asyn = async (who: Keys, kind: string, p: Record<string, string | number>) => {
    await rig.run({ type: 'Tick' }, MIN)
    return signedInject(rig, who, 'GET', `/fapi/v1/${kind}/asyn`, p)
  }
  const linkOf = (who: Keys, kind: string, downloadId: string) => signedInject(rig, who, 'GET', `/fapi/v1/${kind}/asyn/id`, { downloadId })

  const { downloadId } = (await asyn(alice.keys, 'income', { startTime: now - 1000, endTime: now })).json()
  const bad = { code: -1130, msg: "Data sent for parameter 'downloadId' is not valid." }
  t.same((await linkOf(bob.keys, 'income', downloadId)).json(), bad, 'another account\'s id')
  t.same((await linkOf(alice.keys, 'trade', downloadId)).json(), bad, 'another kind\'s id')
  t.same((await linkOf(alice.keys, 'income', downloadId.slice(0, -1) + (downloadId.endsWith('0') ? '1' : '0'))).json(), bad, 'a forged id')
  t.same((await linkOf(alice.keys, 'income', 'abc')).json(), bad)
  t.same((await linkOf(alice.keys, 'income', '')).json().code, -1102, 'no id')

  t.same((await asyn(alice.keys, 'order', { startTime: now })).json(),
    { code: -1102, msg: "Mandatory parameter 'endTime' was not sent, was empty/null, or malformed." })
  t.same((await asyn(alice.keys, 'order', { startTime: now, endTime: now - 1 })).json().code, -1130, 'start after end')
  t.same((await asyn(alice.keys, 'order', { startTime: now - 366 * 1_440 * MIN, endTime: now })).json().code, -1127, 'more than a year')

  const link = new URL((await linkOf(alice.keys, 'income', downloadId)).json().url)
  const fetchLink = (search: string) => rig.app.inject({ url: '/fapi/v1/download' + search })
  t.equal((await fetchLink(link.search)).statusCode, 200)
  const tampered = link.search.replace(alice.address, bob.address)
  t.same([(await fetchLink(tampered)).statusCode, (await fetchLink(tampered)).json()], [404, { code: -1130, msg: 'No download at this link.' }],
    'a link edited to another account')
  t.equal((await fetchLink('?link=x')).statusCode, 404)
  t.equal((await fetchLink('')).statusCode, 404)
  await rig.run({ type: 'Tick' }, 24 * 60 * MIN + 1)
  t.same([(await fetchLink(link.search)).statusCode, (await fetchLink(link.search)).json()],
    [410, { code: -1130, msg: 'This download link has expired.' }], 'a day later')
})
