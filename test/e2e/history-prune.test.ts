// A running sequencer prunes its history read models (--prune-interval-ms): on a log whose
// trading happened five days ago, the order canceled with nothing filled is pruned within a
// pass and no longer found, the filled one is, and /metrics counts what went.

import { createHmac } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { Wallet } from 'ethers'
import t from 'tap'
import type { Command } from '../../core/commands.js'
import { DEFAULT_GENESIS, genesisCommands } from '../../core/genesis-spec.js'
import { RULES_VERSION } from '../../core/rules.js'
import { sessionDomain, SESSION_TYPES } from '../../gateway/session-signature.js'
import { GENESIS_HASH, makeEntry, type LogEntry } from '../../replica/entry.js'
import { freePort } from '../../replica/free-port.js'
import { LevelLogStore } from '../../replica/level-log.js'
import { eventually } from '../helpers/live-exchange.js'
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
    { type: 'SetRules', version: RULES_VERSION, leafSeed: '0x' + '5a'.repeat(32) },
    ...genesisCommands(DEFAULT_GENESIS),
    ...[maker, taker].map((w, i): Command => ({ type: 'Deposit', account: w.address, sub: 0, asset: 'USDT', amount: 10_000_000_000, wallet: 'PERP', ref: `d${i}` })),
    order(maker.address, 'SELL', 600_000), // 1: canceled below, nothing filled
    { type: 'CancelOrder', account: maker.address, sub: 0, marketId: 1, orderId: 1 },
    order(maker.address, 'SELL', 500_000), // 2: filled by 3
    order(taker.address, 'BUY', 500_000),
  ]
  const log = new LevelLogStore(path.join(dir, 'log'))
  await log.open()
  const then = Date.now() - 5 * DAY
  let prev = GENESIS_HASH
  const entries: LogEntry[] = commands.map((c, i) => {
    const e = makeEntry(i + 1, then + i, c, prev)
    prev = e.hash
    return e
  })
  await log.append(entries)
  await log.close()

  const [port, repl, metrics] = [await freePort(), await freePort(), await freePort()]
  const proc = startExchange(['sequencer', '--data', dir, '--port', String(port), '--replication-port', String(repl), '--metrics-port', String(metrics),
    '--chain', 'off', '--price-feed', 'off', '--prune-interval-ms', '1000'])
  t.teardown(() => proc.kill())
  await proc.waitFor((l) => l.msg === 'sequencer running')
  const pruned = await eventually(async () => (await scrapeGauges(metrics)).exchange_history_rows_pruned_total ?? 0, (n) => n > 0)
  t.equal(pruned, 1, 'one row: the order canceled five days ago with nothing filled')
  t.match(proc.lines.find((l) => l.msg === 'pruned the history read models'), { rows: 1 }, 'and logged')

  const base = `http://127.0.0.1:${port}`
  const request = { address: maker.address, subAccount: 0, permissions: 'TRADE,USER_DATA', expiresAt: Date.now() + 3_600_000, nonce: Date.now() }
  const signature = await maker.signTypedData(sessionDomain(31337), SESSION_TYPES, request)
  const session = await fetch(`${base}/fapi/v1/session`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...Object.fromEntries(Object.entries(request).map(([k, v]) => [k, String(v)])), signature }) })
  const keys = await session.json() as { apiKey: string; secretKey: string }
  const get = async (p: string, params: Record<string, string>): Promise<unknown> => {
    const q = new URLSearchParams({ ...params, timestamp: String(Date.now()) }).toString()
    const sig = createHmac('sha256', keys.secretKey).update(q).digest('hex')
    return (await fetch(`${base}${p}?${q}&signature=${sig}`, { headers: { 'X-MBX-APIKEY': keys.apiKey } })).json()
  }
  t.same(await get('/fapi/v1/order', { symbol: 'BTCUSDTPERP', orderId: '1' }), { code: -2013, msg: 'Order does not exist.' })
  t.match(await get('/fapi/v1/order', { symbol: 'BTCUSDTPERP', orderId: '2' }), { status: 'FILLED' }, 'the filled one stays 90 days')
  t.match(await get('/fapi/v1/allOrders', { symbol: 'BTCUSDTPERP', startTime: String(then - 1000) }), [{ orderId: 2, status: 'FILLED' }])
})
