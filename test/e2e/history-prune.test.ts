// A running sequencer prunes its history read models (--prune-interval-ms): on a log whose
// trading happened five days ago, the order canceled with nothing filled is pruned within a
// pass and no longer found, the filled one is, and /metrics counts what went.

import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { Wallet } from 'ethers'
import t from 'tap'
import type { Command } from '../../core/commands.js'
import { freePort } from '../../replica/free-port.js'
import { eventually } from '../helpers/live-exchange.js'
import { genesisLog, restSession, writeLog } from '../helpers/node-fixtures.js'
import { scrapeGauges, startExchange } from '../helpers/processes.js'

const DAY = 86_400_000

t.test('a sequencer prunes what the history rules hide, soon after start', { timeout: 120_000 }, async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'history-prune-'))
  t.teardown(() => rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }))
  const maker = Wallet.createRandom()
  const taker = Wallet.createRandom()
  const order = (account: string, side: 'BUY' | 'SELL', priceTicks: number): Command => ({ type: 'PlaceOrder', account, sub: 0, marketId: 1,
    side, orderType: 'LIMIT', timeInForce: 'GTC', priceTicks, qtyLots: 10 })
  // The log as a sequencer five days ago would have written it: rules, genesis, then the trading.
  const commands: Command[] = [
    ...genesisLog(),
    ...[maker, taker].map((w, i): Command => ({ type: 'Deposit', account: w.address, sub: 0, asset: 'USDT', amount: 10_000_000_000, wallet: 'PERP', ref: `d${i}` })),
    order(maker.address, 'SELL', 600_000), // 1: canceled below, nothing filled
    { type: 'CancelOrder', account: maker.address, sub: 0, marketId: 1, orderId: 1 },
    order(maker.address, 'SELL', 500_000), // 2: filled by 3
    order(taker.address, 'BUY', 500_000),
  ]
  const then = Date.now() - 5 * DAY
  await writeLog(dir, commands, then)

  const [port, repl, metrics] = [await freePort(), await freePort(), await freePort()]
  const proc = startExchange(['sequencer', '--data', dir, '--port', String(port), '--replication-port', String(repl), '--metrics-port', String(metrics),
    '--chain', 'off', '--price-feed', 'off', '--prune-interval-ms', '1000'])
  t.teardown(() => proc.kill())
  await proc.waitFor((l) => l.msg === 'sequencer running')
  const pruned = await eventually(async () => (await scrapeGauges(metrics)).exchange_history_rows_pruned_total ?? 0, (n) => n > 0)
  t.equal(pruned, 1, 'one row: the order canceled five days ago with nothing filled')
  t.match(proc.lines.find((l) => l.msg === 'pruned the history read models'), { rows: 1 }, 'and logged')

  const session = await restSession(`http://127.0.0.1:${port}`, maker)
  const get = async (p: string, params: Record<string, string>): Promise<unknown> => (await session.call('GET', p, params)).body
  t.same(await get('/fapi/v1/order', { symbol: 'BTCUSDTPERP', orderId: '1' }), { code: -2013, msg: 'Order does not exist.' })
  t.match(await get('/fapi/v1/order', { symbol: 'BTCUSDTPERP', orderId: '2' }), { status: 'FILLED' }, 'the filled one stays 90 days')
  t.match(await get('/fapi/v1/allOrders', { symbol: 'BTCUSDTPERP', startTime: String(then - 1000) }), [{ orderId: 2, status: 'FILLED' }])
})
