// A scenario touching every read model and every query's answer, for comparing two stores
// (rebuilt, reopened, or run in a worker thread).

import type { Projections } from '../../replica/projections/index.js'
import { ALICE, BOB, BTCPERP, BTCSPOT, CAROL } from './exchange.js'
import { type Fixture, limit, trade } from './projections-fixture.js'

export const M = Date.UTC(2023, 10, 15, 10, 0, 0)
const owners = [ALICE, BOB, CAROL].map((account) => ({ account, sub: 0 }))

/** A bit of everything: perp trades over several minutes, a cancel, spot, wallet. */
export async function scenario(f: Fixture): Promise<void> {
  for (const a of [ALICE, BOB, CAROL]) await f.fund(a, 1_000_000)
  await f.ok({ type: 'Deposit', account: ALICE, sub: 0, asset: 'BTC', amount: 100_000_000, wallet: 'SPOT', ref: 'b:1' })
  await f.fund(BOB, 10_000, 'SPOT')
  for (let i = 0; i < 6; i++) {
    await trade(f, ALICE, BOB, 30000 + 10 * i, 0.01 * (i + 1), M + i * 40_000, i % 2 === 0 ? 'BUY' : 'SELL')
    await f.ok(limit(CAROL, 'BUY', 29000 + i, 0.01), 30)
  }
  await f.ok({ type: 'CancelAll', account: CAROL, sub: 0, marketId: BTCPERP })
  await f.ok({ type: 'PlaceOrder', account: ALICE, sub: 0, marketId: BTCSPOT, side: 'SELL', orderType: 'LIMIT', timeInForce: 'GTC', priceTicks: 3_000_000, qtyLots: 100 })
  await f.ok({ type: 'PlaceOrder', account: BOB, sub: 0, marketId: BTCSPOT, side: 'BUY', orderType: 'MARKET', qtyLots: 50 })
  await f.ok({ type: 'Transfer', account: BOB, sub: 0, direction: 'SPOT_TO_PERP', amount: 1_000_000 })
  await f.ok({ type: 'WithdrawalRequest', account: BOB, sub: 0, asset: 'USDT', amount: 1_000_000, address: BOB })
  await f.ok({ type: 'WithdrawalComplete', withdrawalId: 1, txId: '0x01' })
  await f.ok(limit(BOB, 'SELL', 31000, 0.01)) // left resting
}

/** Every query's answer, for comparing two stores. */
export async function answers(p: Projections): Promise<unknown> {
  const out: Record<string, unknown> = { lastSeq: p.lastSeq, flushedSeq: p.flushedSeq, flushedTime: p.flushedTime }
  for (const m of [BTCPERP, BTCSPOT]) {
    out[`trades${m}`] = await p.recentTrades(m, 1000)
    out[`agg${m}`] = await p.aggTrades(m, { limit: 1000 })
    for (const iv of ['1m', '3m', '1h', '1d', '1w', '1M'] as const) out[`k${m}${iv}`] = await p.klines(m, iv, { limit: 1500 })
    out[`ticker${m}`] = await p.ticker24h(m)
    out[`oi${m}`] = await p.openInterest(m)
    out[`oih${m}`] = await p.openInterestHistory(m, { limit: 500 })
    for (const o of owners) {
      out[`orders${m}${o.account}`] = await p.allOrders(o, m, { limit: 1000 })
      out[`fills${m}${o.account}`] = await p.userTrades(o, m, { limit: 1000 })
    }
  }
  for (const o of owners) {
    out[`income${o.account}`] = await p.income(o, { limit: 1000 })
    out[`deposits${o.account}`] = await p.deposits(o, { limit: 1000 })
    out[`withdrawals${o.account}`] = await p.withdrawals(o, { limit: 1000 })
    out[`transfers${o.account}`] = await p.transfers(o, { limit: 1000 })
  }
  return out
}

export async function replay(p: Projections, f: Fixture, flushEvery: number): Promise<void> {
  for (let i = 0; i < f.log.length; i++) {
    const e = f.log[i]!
    p.apply(e.seq, e.time, e.events)
    if ((i + 1) % flushEvery === 0) await p.flush()
  }
  await p.flush()
}
