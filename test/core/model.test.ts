// The core against the naive reference model (sim/model) on random command streams: same
// decisions and codes, same order updates and trades, same books, same balances (DESIGN.md §8).

import t, { type Test } from 'tap'
import fc from 'fast-check'
import { apply } from '../../core/apply.js'
import type { Code } from '../../core/codes.js'
import type { Command, PlaceOrder } from '../../core/commands.js'
import type { Result } from '../../core/events.js'
import { DEFAULT_GENESIS, type GenesisSpec } from '../../core/genesis-spec.js'
import { createState } from '../../core/state.js'
import { commandStream, MODEL_ACCOUNTS, PROFILES, START_TIME } from '../../sim/model/commands.js'
import { describeDisagreement, findDisagreement } from '../../sim/model/agreement.js'
import { entriesOf } from '../../sim/model/run.js'
import { runs } from '../helpers/property.js'

function agrees(stream: Parameters<typeof entriesOf>[0]): void {
  const d = findDisagreement(entriesOf(stream))
  if (d !== null) throw new Error(describeDisagreement(d))
}

t.test('core and reference agree: BTC perp and spot, one hedge account', async (t) => {
  fc.assert(fc.property(commandStream(), agrees), runs(60))
  t.pass()
})

t.test('core and reference agree: every default market, more accounts, long streams', async (t) => {
  const markets = [PROFILES.BTCPERP, PROFILES.ETHPERP, PROFILES.BTCSPOT, PROFILES.ETHSPOT]
  fc.assert(fc.property(commandStream({ markets, accounts: 5, maxLength: 300 }), agrees), runs(15))
  t.pass()
})

t.test('core and reference agree: wide prices and big orders (margin, brackets, leverage)', async (t) => {
  // Prices ±10% around the mid move the mark far; big orders reach the leverage brackets.
  const markets = [{ ...PROFILES.BTCPERP, spreadTicks: 30_000, maxLots: 2_000 }, { ...PROFILES.BTCSPOT, spreadTicks: 300_000, maxLots: 2_000 }]
  fc.assert(fc.property(commandStream({ markets, maxLength: 200 }), agrees), runs(30))
  t.pass()
})

t.test('the streams exercise what the model checks', async (t) => {
  // Not a property: a guard that the generators keep producing the interesting cases.
  const codes = new Map<Code | 'OK', number>()
  const exec = new Map<string, number>()
  let trades = 0
  fc.assert(fc.property(commandStream(), (stream) => {
    findDisagreement(entriesOf(stream), (_e, r) => {
      const k = r.ok ? 'OK' : r.code
      codes.set(k, (codes.get(k) ?? 0) + 1)
      for (const e of r.events) {
        if (e.type === 'trade' || e.type === 'spotTrade') trades++
        if (e.type === 'order') exec.set(`${e.execType}/${e.status}`, (exec.get(`${e.execType}/${e.status}`) ?? 0) + 1)
      }
    })
  }), { numRuns: 20, seed: 1 })
  t.comment(`trades ${trades}; results ${JSON.stringify(Object.fromEntries(codes))}`)
  t.comment(`order updates ${JSON.stringify(Object.fromEntries(exec))}`)
  t.ok(trades > 100, 'many trades')
  for (const code of ['FOK_UNFILLED', 'POST_ONLY_WOULD_TAKE', 'MARGIN_INSUFFICIENT', 'REDUCE_ONLY_REJECTED',
    'CLIENT_ID_DUPLICATE', 'BALANCE_INSUFFICIENT', 'ORDER_UNKNOWN'] as const) {
    t.ok((codes.get(code) ?? 0) > 0, `some ${code}`)
  }
  for (const k of ['EXPIRED_IN_MATCH/EXPIRED_IN_MATCH', 'EXPIRED/EXPIRED', 'CANCELED/CANCELED']) t.ok((exec.get(k) ?? 0) > 0, `some ${k}`)
})

const SPOT_ONLY = { markets: [PROFILES.BTCSPOT, PROFILES.ETHSPOT], accounts: 4, maxLength: 300 }

t.test('core and reference agree: spot only, orders amended keeping priority', async (t) => {
  fc.assert(fc.property(commandStream(SPOT_ONLY), agrees), runs(20))
  t.pass()
})

t.test('the spot streams prevent self-trades by DECREMENT: orders cut that stay open, and orders it expires', async (t) => {
  const exec = new Map<string, number>()
  fc.assert(fc.property(commandStream(SPOT_ONLY), (stream) => {
    findDisagreement(entriesOf(stream), (_e, r) => {
      for (const e of r.events) {
        if (e.type !== 'order' || e.preventedLots === undefined) continue
        exec.set(`${e.execType}/${e.status}`, (exec.get(`${e.execType}/${e.status}`) ?? 0) + 1)
      }
    })
  }), { numRuns: 20, seed: 1 })
  t.comment(`order updates with prevented lots ${JSON.stringify(Object.fromEntries(exec))}`)
  t.ok((exec.get('TRADE_PREVENTION/NEW') ?? 0) + (exec.get('TRADE_PREVENTION/PARTIALLY_FILLED') ?? 0) > 0, 'some cut and open')
  t.ok((exec.get('EXPIRED_IN_MATCH/EXPIRED_IN_MATCH') ?? 0) > 0, 'some expired')
})

t.test('the spot streams amend orders, and draw each refusal', async (t) => {
  const codes = new Map<Code | 'OK', number>()
  const exec = new Map<string, number>()
  fc.assert(fc.property(commandStream(SPOT_ONLY), (stream) => {
    findDisagreement(entriesOf(stream), (e, r) => {
      if (e.command.type !== 'AmendKeepPriority') return
      const k = r.ok ? 'OK' : r.code
      codes.set(k, (codes.get(k) ?? 0) + 1)
      for (const ev of r.events) if (ev.type === 'order') exec.set(ev.status, (exec.get(ev.status) ?? 0) + 1)
    })
  }), { numRuns: 60, seed: 1 })
  t.comment(`amendments ${JSON.stringify(Object.fromEntries(codes))}; amended ${JSON.stringify(Object.fromEntries(exec))}`)
  for (const code of ['OK', 'AMEND_QTY_INCREASE', 'AMEND_QTY_FILLED', 'CLIENT_ID_DUPLICATE'] as const) {
    t.ok((codes.get(code) ?? 0) > 0, `some ${code}`)
  }
  for (const status of ['NEW', 'PARTIALLY_FILLED']) t.ok((exec.get(status) ?? 0) > 0, `some amended while ${status}`)
})

t.test('the spot streams place icebergs, which rest, requeue in a sweep, and draw each refusal', async (t) => {
  const codes = new Map<Code | 'OK', number>()
  let makerFills = 0
  let requeuedInSweep = 0
  fc.assert(fc.property(commandStream(SPOT_ONLY), (stream) => {
    const icebergs = new Set<string>()
    findDisagreement(entriesOf(stream), (e, r) => {
      if (e.command.type === 'PlaceOrder' && e.command.icebergLots !== undefined) {
        const k = r.ok ? 'OK' : r.code
        codes.set(k, (codes.get(k) ?? 0) + 1)
      }
      const fills = new Map<string, number>()
      for (const ev of r.events) {
        if (ev.type === 'order' && ev.icebergLots !== undefined) icebergs.add(`${ev.marketId}:${ev.orderId}`)
        if (ev.type !== 'spotTrade') continue
        const key = `${ev.marketId}:${ev.maker.orderId}`
        if (!icebergs.has(key)) continue
        makerFills++
        fills.set(key, (fills.get(key) ?? 0) + 1)
      }
      // One taker meeting the same iceberg twice: its next slice came back at the level's end.
      for (const n of fills.values()) if (n > 1) requeuedInSweep++
    })
  }), { numRuns: 40, seed: 1 })
  t.comment(`icebergs placed ${JSON.stringify(Object.fromEntries(codes))}; maker fills ${makerFills}, met twice in a sweep ${requeuedInSweep}`)
  for (const code of ['OK', 'ICEBERG_NOT_ALLOWED', 'ICEBERG_PARTS'] as const) t.ok((codes.get(code) ?? 0) > 0, `some ${code}`)
  t.ok(makerFills > 20, 'icebergs trade as makers')
  t.ok(requeuedInSweep > 0, 'a taker meets a requeued slice again')
})

/** The default markets with the spot ones under a narrow Price Range rule: ±0.5 % for buys, +0.6 / −0.4 % for sells. */
const NARROW_RANGE: GenesisSpec = {
  ...DEFAULT_GENESIS,
  spotMarkets: DEFAULT_GENESIS.spotMarkets.map((s) => ({ ...s,
    priceRange: { bidUp: '1.0050', bidDown: '0.9950', askUp: '1.0060', askDown: '0.9960' } })),
}

t.test('core and reference agree: spot under a narrow Price Range rule (takers expire at its bounds)', async (t) => {
  // Prices ±1 % around the mid: takers often reach past the range.
  const markets = [{ ...PROFILES.BTCSPOT, spreadTicks: 30_000 }, { ...PROFILES.ETHSPOT, spreadTicks: 2_000 }]
  let expired = 0
  fc.assert(fc.property(commandStream({ markets, accounts: 4, maxLength: 250 }), (stream) => {
    const d = findDisagreement(entriesOf(stream, NARROW_RANGE), (_e, r) => {
      for (const e of r.events) if (e.type === 'order' && e.expiryReason !== undefined) expired++
    })
    if (d !== null) throw new Error(describeDisagreement(d))
  }), runs(30))
  t.comment(`${expired} takers expired at the range`)
  t.ok(expired > 10, 'the streams reach the range')
})

t.test('the wide streams reach the price band: limit prices both sides, market orders', async (t) => {
  const codes = new Map<Code | 'OK', number>()
  const markets = [{ ...PROFILES.BTCPERP, spreadTicks: 30_000, maxLots: 2_000 }]
  fc.assert(fc.property(commandStream({ markets, maxLength: 200 }), (stream) => {
    findDisagreement(entriesOf(stream), (_e, r) => {
      const k = r.ok ? 'OK' : r.code
      codes.set(k, (codes.get(k) ?? 0) + 1)
    })
  }), { numRuns: 20, seed: 1 })
  t.comment(`band: ${['PRICE_ABOVE_BAND', 'PRICE_BELOW_BAND', 'MARKET_BEYOND_BAND'].map((c) => `${c} ${codes.get(c as Code) ?? 0}`).join(', ')}`)
  for (const code of ['PRICE_ABOVE_BAND', 'PRICE_BELOW_BAND', 'MARKET_BEYOND_BAND'] as const) t.ok((codes.get(code) ?? 0) > 0, `some ${code}`)
})

/** A fixed case: core and reference must agree on it; returns the core's state and last result. */
function fixedCase(t: Test, commands: Command[]): { state: ReturnType<typeof createState>; last: Result } {
  const entries = entriesOf(commands.map((command, i) => ({ time: START_TIME + 1 + i, command })))
  const d = findDisagreement(entries)
  t.equal(d, null, d === null ? 'core and reference agree' : describeDisagreement(d))
  const state = createState()
  let last: Result | undefined
  for (const e of entries) last = apply(state, e)
  return { state, last: last! }
}

t.test('found by the model: a self-trade keeps a capped reduce-only maker first in its queue', async (t) => {
  // A reduce-only maker capped by its position, met by its own account's taker (STP NONE):
  // the taker's fill gives the position back, so the maker may still reduce and keeps its
  // place; the next fill must not skip to the order queued behind it.
  const [alice, bob, carol, dave] = MODEL_ACCOUNTS as [string, string, string, string]
  const order = (account: string, side: 'BUY' | 'SELL', qtyLots: number, priceTicks: number,
    extra: Partial<PlaceOrder> = {}): Command =>
    ({ type: 'PlaceOrder', account, sub: 0, marketId: 1, side, orderType: 'LIMIT', priceTicks, qtyLots, ...extra })
  const commands: Command[] = [
    ...[alice, bob, carol, dave].map((account, i): Command =>
      ({ type: 'Deposit', account, sub: 0, asset: 'USDT', amount: 10_000_000_000, wallet: 'PERP', ref: `r${i}` })),
    order(alice, 'SELL', 24, 300_000), order(bob, 'BUY', 24, 300_000), // alice short 24
    order(alice, 'BUY', 24, 299_990, { reduceOnly: true }), // the reduce-only maker, first at 299 999.0
    order(carol, 'BUY', 20, 299_990), // queued behind it
    order(dave, 'SELL', 8, 300_010), order(alice, 'BUY', 8, 300_010), // alice short 16: the maker's cap is 16
    order(alice, 'SELL', 20, 299_990, { stp: 'NONE' }),
  ]
  const { last } = fixedCase(t, commands)
  const makers = last.events.flatMap((e) => (e.type === 'trade' ? [[e.maker.orderId, e.qtyLots]] : []))
  // Since reduce-only orders never outlive their position (core/reduce-only.ts), the maker of
  // 24 expired when alice's short shrank to 16: the whole taker meets carol.
  t.same(makers, [[4, 20]], 'the reduce-only maker (order 3) expired before; carol (order 4) takes all 20')
})

t.test('found by the model: auto-deleveraging a hedge account against its own opposite side', async (t) => {
  // Dave (hedge mode, 125×) goes short 78 then long 582 into a thin book and is liquidated
  // at once. Nothing takes his long at the bankruptcy price and the fund is empty, so it is
  // auto-deleveraged, and the ranked counterparties include his own short. That closed the
  // short before its turn in the liquidation came, and closing a flat position divided by
  // zero (core and reference alike); now a side already flat is skipped.
  const [alice, bob, carol, dave] = MODEL_ACCOUNTS as [string, string, string, string]
  const deposit = (account: string, amount: number, i: number): Command =>
    ({ type: 'Deposit', account, sub: 0, asset: 'USDT', amount, wallet: 'PERP', ref: `dep-${i}` })
  const commands: Command[] = [
    deposit(alice, 912_878_640, 0), deposit(bob, 200_000_000, 1), deposit(carol, 200_000_000, 2), deposit(dave, 200_000_000, 3),
    { type: 'ChangePositionMode', account: dave, sub: 0, dualSide: true },
    { type: 'PlaceOrder', account: alice, sub: 0, marketId: 1, side: 'BUY', orderType: 'LIMIT', qtyLots: 78, priceTicks: 300_000 },
    { type: 'PlaceOrder', account: alice, sub: 0, marketId: 1, side: 'SELL', orderType: 'LIMIT', qtyLots: 582, priceTicks: 313_704 },
    { type: 'ChangeLeverage', account: dave, sub: 0, marketId: 1, leverage: 125 },
    { type: 'PlaceOrder', account: dave, sub: 0, marketId: 1, side: 'SELL', orderType: 'MARKET', qtyLots: 78, positionSide: 'SHORT' },
    { type: 'PlaceOrder', account: dave, sub: 0, marketId: 1, side: 'BUY', orderType: 'MARKET', qtyLots: 582, positionSide: 'LONG' },
  ]
  const { state, last } = fixedCase(t, commands)
  const closes = last.events.flatMap((e) => (e.type === 'order' && e.clientOrderId.startsWith('autoclose-') ? [e.orderId] : []))
  t.equal(closes.length, 1, 'one liquidation order: the long; the short was flat by then')
  const h = state.accounts.get(dave)!.subs[0]!.perp.get(1)!
  t.same([h.long.qtyLots, h.short.qtyLots], [0, 0], 'both sides closed')
})
