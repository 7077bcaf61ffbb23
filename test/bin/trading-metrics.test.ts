// /metrics' trading counters over the core's own results: the liquidation scenarios of
// test/core/liquidation.test.ts (a liquidation into the book, one the fund covers, one
// auto-deleveraged), each command fed to the counters as a committed entry, as a node does.

import t from 'tap'
import type { Command } from '../../core/commands.js'
import type { Result } from '../../core/events.js'
import type { LogEntry } from '../../replica/entry.js'
import { renderMetrics } from '../../bin/metrics.js'
import { TradingMetrics } from '../../bin/trading-metrics.js'
import { limit } from '../helpers/commands.js'
import { BOB, BTCPERP } from '../helpers/exchange.js'
import { FRANK, fresh, scenarioA, scenarioB, tradeAt } from '../helpers/liquidation-scenarios.js'

const NOBODY = '0x' + '9'.repeat(40)

t.test('commands, refusals, trades and volume, liquidation and ADL orders, margin calls, the fund and open interest', async (t) => {
  const ex = fresh()
  const metrics = new TradingMetrics(() => ex.state)
  // Every command from here on reaches the counters as the node's committed batch would bring it.
  const run = ex.run.bind(ex)
  ex.run = (command: Command, dtMs?: number): Result => {
    const result = run(command, dtMs)
    metrics.committed({ entries: [{ command } as LogEntry], results: [result] })
    return result
  }

  scenarioA(ex)
  scenarioB(ex)
  // FRANK long 0.5 at 26,000.0, BOB short against him; no bids: FRANK's close is auto-deleveraged against BOB.
  ex.fund(FRANK, 1_000)
  ex.ok(limit(FRANK, 'BUY', 260_000, 500))
  ex.ok(limit(BOB, 'SELL', 260_000, 500))
  tradeAt(ex, 241_000)
  // Refused: an account with no margin at all.
  t.equal(ex.run(limit(NOBODY, 'BUY', 240_000, 10)).ok, false)
  t.equal(ex.run({ type: 'CancelOrder', account: BOB, sub: 0, marketId: BTCPERP, orderId: 999_999 }).ok, false)

  const g = metrics.gauges()
  // Book trades: each scenario's open (0.5), the 5-lot trade that moves the mark and the close into
  // the book (A: 28,050.0; B: 26,020.0); FRANK's open and the last 5 lots. His close against BOB is
  // an ADL fill, not a trade.
  t.equal(g['exchange_trades_total{symbol="BTCUSDTPERP"}'], 8)
  t.equal(g['exchange_traded_base_total{symbol="BTCUSDTPERP"}'], 2.515, '0.5 + 0.005 + 0.5, twice, then 0.5 + 0.005')
  t.ok(Math.abs(g['exchange_traded_quote_total{symbol="BTCUSDTPERP"}']! -
    (15_000 + 140.5 + 14_025 + 14_025 + 130.5 + 13_010 + 13_000 + 120.5)) < 1e-6, 'the quote traded: 69,451.5 USDT')
  t.equal(g['exchange_liquidation_orders_total{symbol="BTCUSDTPERP"}'], 3, 'ALICE, ERIN and FRANK')
  t.equal(g['exchange_adl_orders_total{symbol="BTCUSDTPERP"}'], 1, 'BOB\'s, against FRANK')
  t.equal(g.exchange_margin_calls_total, 3, 'each liquidated account was called first')
  t.equal(g['exchange_insurance_fund{asset="USDT"}'], 4.195, 'A\'s fee of 22 less B\'s shortfall of 17.805')
  t.equal(g['exchange_open_interest{symbol="BTCUSDTPERP"}'], 0.015, 'DAVE\'s three 5-lot buys are the only longs left')
  t.equal(g['exchange_open_interest{symbol="ETHUSDTPERP"}'], 0, 'every perpetual, traded or not')
  t.equal(g['exchange_trades_total{symbol="ETHUSDTPERP"}'], undefined, 'a market with no trade since start has no trade series yet')
  t.equal(g['exchange_commands_total{command="PlaceOrder",outcome="rejected"}'], 1)
  t.equal(g['exchange_commands_total{command="CancelOrder",outcome="rejected"}'], 1)
  t.equal(g['exchange_commands_total{command="PlaceOrder",outcome="accepted"}'], 15, 'A 6, B 5, FRANK\'s 4 (liquidations are not commands)')
  t.equal(g['exchange_commands_total{command="Deposit",outcome="accepted"}'], 3, 'ALICE\'s, ERIN\'s and FRANK\'s funding')
  t.same(Object.keys(g).filter((k) => k.startsWith('exchange_command_rejections_total')).map((k) => [k, g[k]]),
    [['exchange_command_rejections_total{code="MARGIN_INSUFFICIENT"}', 1], ['exchange_command_rejections_total{code="ORDER_UNKNOWN"}', 1]])

  // Rendered: one HELP and TYPE per name, labelled series under it, counters typed as counters.
  const text = renderMetrics(g)
  t.match(text, /^# TYPE exchange_trades_total counter\nexchange_trades_total\{symbol="BTCUSDTPERP"\} 8$/m)
  t.match(text, /^# TYPE exchange_open_interest gauge\nexchange_open_interest\{symbol="BTCUSDTPERP"\} 0.015\nexchange_open_interest\{symbol="ETHUSDTPERP"\} 0$/m)
  for (const [, name, help] of text.matchAll(/^# HELP (\S+) (.*)$/gm)) t.not(help, name, `${name} says what it is`)
})
