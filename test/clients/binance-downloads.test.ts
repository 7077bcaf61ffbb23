// The `binance` package's history download calls, unmodified, against a real exchange process:
// USDMClient asks for a trade and an income download id, turns each into a link, and the link
// (fetched as any HTTP client would, without the API key) serves the rows the REST history
// answers.

import t from 'tap'
import { USDMClient } from 'binance'
import { eventually, startLiveExchange } from '../helpers/live-exchange.js'

/** A CSV of plain fields (ours quote only fields with commas, quotes or line breaks; these have none). */
const rowsOf = (csv: string): string[][] => csv.trim().split('\r\n').map((l) => l.split(','))

t.test('binance USDMClient: history download ids, links and files', { timeout: 60_000 }, async (t) => {
  const live = await startLiveExchange(t)
  const client = (who: typeof live.maker) => new USDMClient({ api_key: who.apiKey, api_secret: who.secretKey, baseUrl: live.base })
  const maker = client(live.maker)
  const taker = client(live.taker)
  const startTime = Date.now() - 60_000
  await maker.submitNewOrder({ symbol: 'BTCUSDTPERP', side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', quantity: 0.01, price: 60000 })
  await taker.submitNewOrder({ symbol: 'BTCUSDTPERP', side: 'BUY', type: 'MARKET', quantity: 0.01 })
  const trades = await eventually(() => maker.getAccountTrades({ symbol: 'BTCUSDTPERP' }), (r) => r.length === 1)
  const endTime = Date.now() + 1_000

  const { downloadId, avgCostTimestampOfLast30d } = await maker.getFuturesTradeHistoryDownloadId({ startTime, endTime })
  t.match(downloadId, /^3[0-9]{38}$/)
  t.equal(avgCostTimestampOfLast30d, 0)
  const link = await maker.getFuturesTradeDownloadLink({ downloadId })
  t.match(link, { downloadId, status: 'completed', notified: true })
  t.ok(link.url.startsWith(`${live.base}/fapi/v1/download?link=`), 'a link to the host the client used')
  const file = await fetch(link.url)
  t.equal(file.status, 200)
  const [header, ...rows] = rowsOf(await file.text())
  t.same(rows.map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i]]))).map((r) => [r.id, r.price, r.qty, r.commission, r.maker]),
    trades.map((r) => [String(r.id), r.price, r.qty, r.commission, String(r.maker)]), 'the trade, as userTrades answers it')

  const income = await maker.getFuturesTransactionHistoryDownloadId({ startTime, endTime })
  const incomeLink = await maker.getFuturesTransactionHistoryDownloadLink({ downloadId: income.downloadId })
  const incomeRows = rowsOf(await (await fetch(incomeLink.url)).text())
  t.same(incomeRows.slice(1).map((r) => r[1]).filter((type) => type !== 'TRANSFER'), ['COMMISSION'], 'the maker\'s commission (after its funding)')
  await t.rejects(taker.getFuturesTradeDownloadLink({ downloadId }), { code: -1130 }, 'another account cannot use the id')
  t.same(live.offMachine, [], 'no request left this machine')
})
