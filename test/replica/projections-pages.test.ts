// Pages (replica/projections/pages.ts): a long list's query answered as its response body,
// formatted by the gateway's module where the rows are read. The same bytes in this thread and
// in the worker, handed over in a buffer of their own; refused plainly without a formatter or
// for anything but the list queries, the store going on either way.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { formatPage, pageMarket, PAGE_FORMATTER_URL, type PageFormat, type PageForm } from '../../gateway/page-format.js'
import { createProjections, startProjectionsWorker, type Page, type PageQuery, type Projections } from '../../replica/projections/index.js'
import { ALICE, BOB, BTCPERP, BTCSPOT, CAROL } from '../helpers/exchange.js'
import { replay, scenario } from '../helpers/projections-answers.js'
import { Fixture } from '../helpers/projections-fixture.js'

/** Every form, each over the query its routes read with. */
const PAGES: { form: PageForm; query: PageQuery; marketId: number; args: unknown[] }[] = [
  { form: 'perpOrders', query: 'allOrders', marketId: BTCPERP, args: [{ account: ALICE, sub: 0 }, BTCPERP, { limit: 1000 }] },
  { form: 'perpUserTrades', query: 'userTrades', marketId: BTCPERP, args: [{ account: BOB, sub: 0 }, BTCPERP, { limit: 1000 }] },
  { form: 'trades', query: 'recentTrades', marketId: BTCPERP, args: [BTCPERP, 1000] },
  { form: 'trades', query: 'historicalTrades', marketId: BTCPERP, args: [BTCPERP, { limit: 500, fromId: 2 }] },
  { form: 'spotTrades', query: 'recentTrades', marketId: BTCSPOT, args: [BTCSPOT, 1000] },
  { form: 'aggTrades', query: 'aggTrades', marketId: BTCPERP, args: [BTCPERP, { limit: 1000 }] },
  { form: 'spotAggTrades', query: 'aggTrades', marketId: BTCSPOT, args: [BTCSPOT, { limit: 1000 }] },
  { form: 'klines', query: 'klines', marketId: BTCPERP, args: [BTCPERP, '1m', { limit: 1500 }] },
  { form: 'tradePriceKlines', query: 'klines', marketId: BTCPERP, args: [BTCPERP, '1h', { limit: 1500 }] },
  { form: 'spotOrders', query: 'allOrders', marketId: BTCSPOT, args: [{ account: BOB, sub: 0 }, BTCSPOT, { limit: 1000 }] },
  { form: 'spotUserTrades', query: 'userTradesWithLists', marketId: BTCSPOT, args: [{ account: ALICE, sub: 0 }, BTCSPOT, { limit: 1000 }] },
  { form: 'income', query: 'income', marketId: -1, args: [{ account: BOB, sub: 0 }, { limit: 1000 }] },
  { form: 'algoOrders', query: 'allOrders', marketId: BTCPERP, args: [{ account: CAROL, sub: 0 }, BTCPERP, { limit: 1000, conditionalOnly: true }] },
]

/** As the gateway makes it (gateway/pages.ts): the page's market, or every market (-1). */
function formatOf(f: Fixture, form: PageForm, marketId: number, micro: boolean): PageFormat {
  const state = f.ex.state
  const markets = marketId === -1 ? state.markets.filter((m) => m !== undefined) : [state.markets[marketId]!]
  const assets = marketId === -1 ? [...state.assets.keys()] : [markets[0]!.quote, markets[0]!.base]
  return {
    form, micro, marketId, markets: Object.fromEntries(markets.map((m) => [m.marketId, pageMarket(m)])),
    scales: Object.fromEntries(assets.map((a) => [a, state.assets.get(a)!.scale])),
  }
}

type PageFn = (query: PageQuery, args: unknown[], format: PageFormat) => Promise<Page>
const pageOf = (p: Projections): PageFn => p.page.bind(p) as unknown as PageFn
const rowsOf = (p: Projections, query: PageQuery, args: unknown[]): Promise<unknown> =>
  (p[query] as (...a: unknown[]) => Promise<unknown>).apply(p, args)
const text = (b: Uint8Array): string => Buffer.from(b).toString('utf8')
/** A JSON page's body, parsed. */
const json = async (p: Projections, query: PageQuery, args: unknown[], format: PageFormat): Promise<any> =>
  JSON.parse(text((await pageOf(p)(query, args, format)).bytes))

t.test('a page is its query formatted: the same bytes here and in a worker, in a buffer of its own', async (t) => {
  const f = await Fixture.open(t, { worker: false })
  await scenario(f)
  // A conditional order among Carol's plain ones, for the algo form.
  await f.ok({ type: 'PlaceOrder', account: CAROL, sub: 0, marketId: BTCPERP, side: 'SELL', orderType: 'STOP_MARKET', qtyLots: 10,
    stopPriceTicks: 250_000 })
  const worker = await startProjectionsWorker(join(f.dir, 'worker'), { pageFormatter: PAGE_FORMATTER_URL })
  t.teardown(() => worker.close())
  await replay(worker, f, 5)
  for (const { form, query, marketId, args } of PAGES) {
    for (const micro of [false, true]) {
      const format = formatOf(f, form, marketId, micro)
      const rows = await rowsOf(f.p, query, args) as unknown[]
      const here = await pageOf(f.p)(query, args, format)
      const name = `${form} of ${query}${micro ? ', microseconds' : ''}`
      t.equal(text(here.bytes), formatPage(format, rows), `${name}: the formatter's body of the query's rows`)
      t.ok(rows.length > 0, `${name}: rows to print`)
      t.same([here.rows, here.last], [rows.length, rows[rows.length - 1]], `${name}: how many rows, and the last as the query gave it`)
      const there = await pageOf(worker)(query, args, format)
      t.equal(text(there.bytes), text(here.bytes), `${name}: the worker's bytes are the same`)
      t.same([there.rows, there.last], [here.rows, here.last], `${name}: the worker's count and last row`)
      t.equal(there.bytes.byteOffset, 0, `${name}: its own buffer`)
      t.equal(there.bytes.buffer.byteLength, there.bytes.byteLength, `${name}: nothing else in it`)
    }
  }
  // What a reader sees: Binance's rows, decimal strings at the market's precision, times in the unit asked.
  const orders = PAGES[0]!
  const ms = await json(worker, orders.query, orders.args, formatOf(f, 'perpOrders', BTCPERP, false))
  const us = await json(worker, orders.query, orders.args, formatOf(f, 'perpOrders', BTCPERP, true))
  t.match(ms[0], { symbol: 'BTCUSDTPERP', price: '30000.0', origQty: '0.010', status: 'FILLED', side: 'SELL' })
  t.equal(us[0].time, ms[0].time * 1000, 'time in microseconds')
  t.equal(us[0].updateTime, ms[0].updateTime * 1000, 'updateTime in microseconds')
  const spotFills = await json(f.p, 'userTradesWithLists', PAGES[10]!.args, formatOf(f, 'spotUserTrades', BTCSPOT, false))
  t.match(spotFills, [{ symbol: 'BTCUSDT', orderListId: -1, isMaker: true, isBestMatch: true }], 'a spot fill with its order\'s list')
  const income = await json(f.p, 'income', PAGES[11]!.args, formatOf(f, 'income', -1, false))
  t.ok(income.some((r: { symbol: string; incomeType: string }) => r.symbol === 'BTCUSDTPERP' && r.incomeType === 'COMMISSION'),
    'income rows name their markets')
  const algo = await json(worker, 'allOrders', PAGES[12]!.args, formatOf(f, 'algoOrders', BTCPERP, false))
  t.match(algo, [{ algoType: 'CONDITIONAL', orderType: 'STOP_MARKET', symbol: 'BTCUSDTPERP', triggerPrice: '25000.0', algoStatus: 'NEW' }],
    'Carol\'s one conditional order, none of her plain ones')
  const k = await json(f.p, 'klines', PAGES[7]!.args, formatOf(f, 'klines', BTCPERP, true))
  const kms = await json(f.p, 'klines', PAGES[7]!.args, formatOf(f, 'klines', BTCPERP, false))
  t.same([k[0][0], k[0][6]], [kms[0][0] * 1000, kms[0][6] * 1000], 'a kline\'s open and close times in microseconds')
})

t.test('without a formatter a page is refused, and the store goes on', async (t) => {
  const f = await Fixture.open(t, { worker: false })
  await scenario(f)
  for (const worker of [false, true]) {
    const dir = join(f.dir, `bare-${worker}`)
    const p = worker ? await startProjectionsWorker(dir) : await createProjections(dir)
    t.teardown(() => p.close())
    await replay(p, f, 100)
    const format = formatOf(f, 'trades', BTCPERP, false)
    await t.rejects(pageOf(p)('recentTrades', [BTCPERP, 10], format), /no page formatter/, `${worker ? 'worker' : 'here'}: refused`)
    t.equal((await p.recentTrades(BTCPERP, 10)).length, 6, 'its queries still answer')
  }
})

t.test('only the list queries make pages: upkeep is not reachable through one', async (t) => {
  const f = await Fixture.open(t, { worker: true })
  await scenario(f)
  const seq = f.p.lastSeq
  const format = formatOf(f, 'trades', BTCPERP, false)
  for (const query of ['clear', 'close', 'prune', 'ticker24h', 'apply']) {
    await t.rejects(pageOf(f.p)(query as PageQuery, [], format), /makes no page/, `${query} refused`)
  }
  t.equal(f.p.lastSeq, seq, 'nothing cleared')
  t.equal((await f.p.recentTrades(BTCPERP, 10)).length, 6, 'and it answers')
})

t.test('a formatter module without formatPage stops the store from opening, saying why', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'pages-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const bad = 'data:text/javascript,export const formatPages = 1'
  await t.rejects(createProjections(join(dir, 'a'), { pageFormatter: bad }), /exports no formatPage/)
  await t.rejects(startProjectionsWorker(join(dir, 'b'), { pageFormatter: bad }), /exports no formatPage/)
})
