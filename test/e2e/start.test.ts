// `exchange start` as a newcomer meets it: a real process serving the REST API, a funded demo
// account saved in the data directory, `exchange account --fund` for a second trader, and a
// trade between the two over real HTTP with signed requests.

import t from 'tap'
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { freePort } from '../../replica/free-port.js'
import { signedRequest, startExchange } from '../helpers/processes.js'
import { NODE, NODE_ARGS } from '../helpers/paths.js'

const run = promisify(execFile)
const BIN = path.resolve('bin/exchange.js')

interface Account { address: string; apiKey: string; secretKey: string }

t.test('start, demo account, a second account, a trade over HTTP', { timeout: 60_000 }, async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'start-'))
  const [port, repl, metrics] = [await freePort(), await freePort(), await freePort()]
  const args = ['--data', dir, '--port', String(port), '--replication-port', String(repl), '--metrics-port', String(metrics)]
  const proc = startExchange(['start', ...args])
  t.teardown(async () => { await proc.kill(); await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }) })
  await proc.waitFor((l) => l.msg === 'demo account funded')
  const demo = JSON.parse(await readFile(path.join(dir, 'demo-account.json'), 'utf8')) as Account
  const second = JSON.parse((await run(NODE, [...NODE_ARGS, BIN, 'account', '--fund', '20000', ...args])).stdout) as Account
  const base = `http://127.0.0.1:${port}`

  const call = async (who: Account, method: string, p: string, params: Record<string, string> = {}) => {
    const r = await signedRequest(base, who, method, p, params)
    return { status: r.status, body: r.body as Record<string, unknown> & Record<string, unknown>[] }
  }

  const bal = await call(demo, 'GET', '/fapi/v2/balance')
  t.equal(bal.status, 200)
  t.equal((bal.body as unknown as { balance: string }[])[0]!.balance, '50000.00000000', 'half the demo funding is margin')
  const secondBal = await call(second, 'GET', '/fapi/v2/balance')
  t.equal((secondBal.body as unknown as { balance: string }[])[0]!.balance, '10000.00000000')

  // The embedded price feed sets the mark; orders stay within its price band (PERCENT_PRICE).
  const premium = await (await fetch(`${base}/fapi/v1/premiumIndex?symbol=BTCUSDTPERP`)).json() as { markPrice: string }
  const price = Number(premium.markPrice).toFixed(1)
  t.ok(Number(price) > 0, `mark ${premium.markPrice}`)
  const ask = await call(demo, 'POST', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', side: 'SELL', type: 'LIMIT',
    timeInForce: 'GTC', quantity: '0.010', price })
  t.equal(ask.status, 200, JSON.stringify(ask.body))
  const take = await call(second, 'POST', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', side: 'BUY', type: 'MARKET',
    quantity: '0.010', newOrderRespType: 'RESULT' })
  t.match(take.body, { status: 'FILLED', avgPrice: price, executedQty: '0.010' })
  const risk = await call(demo, 'GET', '/fapi/v2/positionRisk', { symbol: 'BTCUSDTPERP' })
  t.match(risk.body, [{ positionAmt: '-0.010', entryPrice: price }])
  const depth = await (await fetch(`${base}/fapi/v1/depth?symbol=BTCUSDTPERP&limit=5`)).json() as { bids: unknown[]; asks: unknown[] }
  t.same([depth.bids, depth.asks], [[], []], 'the book is empty again')
  const trades = await (await fetch(`${base}/fapi/v1/trades?symbol=BTCUSDTPERP`)).json() as { price: string; qty: string }[]
  t.match(trades, [{ price, qty: '0.010' }])
})
