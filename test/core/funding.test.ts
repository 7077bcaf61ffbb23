// Funding (API.md): premium samples every 5 s, weighted 1, 2, 3, … over the interval; rate =
// P + clamp(0.01 % − P, ±0.05 %), capped; settlement at the boundary moves |qty| × mark ×
// rate between perp wallets, payers rounded up, receivers down, the remainder to fees.
// BTCUSDTPERP: 1 lot × 1 tick = 100 ledger units, so one lot at 30000.0 is 30,000,000 units.

import t from 'tap'
import fc from 'fast-check'
import { apply } from '../../core/apply.js'
import type { Event, FundingEvent, FundingRateEvent, Result } from '../../core/events.js'
import { estimatedFundingRateE8, fundingPayment, fundingRateE8 } from '../../core/funding.js'
import { averagePremiumE8 } from '../../core/prices.js'
import { stateRoot } from '../../core/root.js'
import { decodeSnapshot, encodeSnapshot } from '../../core/snapshot.js'
import type { PerpMarket } from '../../core/state.js'
import { moneyViolations } from '../../sim/model/invariants.js'
import { limit } from '../helpers/commands.js'
import { ALICE, BOB, BTCPERP, CAROL, DAVE, T0, TestExchange } from '../helpers/exchange.js'
import { publish, registerOracle, signedPrice } from '../helpers/oracle.js'
import { runs } from '../helpers/property.js'

const btc = (ex: TestExchange): PerpMarket => ex.state.markets[BTCPERP] as PerpMarket
const EIGHT_H = 8 * 3_600_000
/** The first 8 h boundary after T0 (00:00, 08:00, 16:00 UTC). */
const BOUNDARY = Math.floor(T0 / EIGHT_H) * EIGHT_H + EIGHT_H

const fundingEvents = (events: Event[]): FundingEvent[] => events.filter((e): e is FundingEvent => e.type === 'funding')
const rateEvents = (events: Event[]): FundingRateEvent[] => events.filter((e): e is FundingRateEvent => e.type === 'fundingRate')

t.test('the funding rate: interest clamp, cap and floor, interval scaling', async (t) => {
  const cap = 300_000
  const rows: [string, number, number, number][] = [
    ['no premium: the interest, 0.01 %', 0, EIGHT_H, 10_000],
    ['premium 0.0001: P + (I − P) = I', 10_000, EIGHT_H, 10_000],
    ['premium 0.0003: I − P = −0.0002 inside the clamp', 30_000, EIGHT_H, 10_000],
    ['premium 0.0008: I − P clamped to −0.05 %', 80_000, EIGHT_H, 30_000],
    ['premium −0.0008: I − P clamped to +0.05 %', -80_000, EIGHT_H, -30_000],
    ['premium 1 %: capped at 0.3 %', 1_000_000, EIGHT_H, 300_000],
    ['premium −1 %: floored at −0.3 %', -1_000_000, EIGHT_H, -300_000],
    ['a 4 h interval halves it', 80_000, EIGHT_H / 2, 15_000],
    ['a 1 h interval: −29,999 / 8 rounds toward zero', -79_999, EIGHT_H / 8, -3_749],
  ]
  for (const [name, premium, interval, rate] of rows) t.equal(fundingRateE8(premium, interval, cap, -cap), rate, name)
})

t.test('payments: longs pay when the rate is positive, rounded up; receivers rounded down', async (t) => {
  // One lot at 30000.0 at 0.029666 %: 8,899.8 units.
  t.equal(fundingPayment(1, 300_000, 100, 29_666), -8_900)
  t.equal(fundingPayment(-1, 300_000, 100, 29_666), 8_899)
  t.equal(fundingPayment(1, 300_000, 100, -29_666), 8_899)
  t.equal(fundingPayment(-1, 300_000, 100, -29_666), -8_900)
  t.equal(fundingPayment(0, 300_000, 100, 29_666), 0)
  t.equal(fundingPayment(4, 300_000, 100, 30_000), -36_000, 'exact amounts are not rounded')
})

/** Positions at 30000.0 with the index at 30000: ALICE long 6, BOB short 6, CAROL (hedge) long 8 and short 4, DAVE short 4. */
async function positioned(): Promise<TestExchange> {
  const ex = new TestExchange()
  for (const a of [ALICE, BOB, CAROL, DAVE]) ex.fund(a, 100_000)
  registerOracle(ex)
  await publish(ex, '30000')
  ex.ok({ type: 'ChangePositionMode', account: CAROL, sub: 0, dualSide: true })
  ex.ok(limit(BOB, 'SELL', 300_000, 6))
  ex.ok(limit(ALICE, 'BUY', 300_000, 6))
  ex.ok(limit(DAVE, 'SELL', 300_000, 8))
  ex.ok(limit(CAROL, 'BUY', 300_000, 8, { positionSide: 'LONG' }))
  ex.ok(limit(CAROL, 'SELL', 300_000, 4, { positionSide: 'SHORT' }))
  ex.ok(limit(DAVE, 'BUY', 300_000, 4))
  return ex
}

t.test('settlement at the boundary: amounts, signs, hedge positions, exact rounding', async (t) => {
  const ex = await positioned()
  // Quotes 30023.9 / 30100 (1 BTC each, more than the 25,000 USDT impact notional):
  // premium (30023.9 − 30000) / 30000 = 0.00079666…, floored to 79,666 E8.
  ex.ok(limit(ALICE, 'BUY', 300_239, 1000))
  ex.ok(limit(BOB, 'SELL', 301_000, 1000))
  ex.ok({ type: 'Tick' }, 5_000)
  const p = btc(ex).prices
  t.same([p.premiumSamples, p.premiumWeights, p.lastPremiumE8, averagePremiumE8(p)], [1, 1, 79_666, 79_666])
  // 79,666 + clamp(10,000 − 79,666, ±50,000) = 29,666.
  t.equal(estimatedFundingRateE8(btc(ex)), 29_666)
  t.equal(p.nextFundingTime, BOUNDARY)

  const wallets = (): number[] => [ALICE, BOB, CAROL, DAVE].map((a) => ex.sub(a).perpWallet)
  const before = wallets()
  const feesBefore = Number(ex.state.fees.get('USDT'))
  const r = ex.ok({ type: 'Tick' }, BOUNDARY - ex.time)
  t.equal(btc(ex).markPriceTicks, 300_000, 'mark: median(30000, 30061.95, 30000)')
  // Per lot 8,899.8: ALICE pays ceil(6 × …) = 53,399, BOB gets 53,398; CAROL pays 71,199 on
  // her long and gets 35,599 on her short (net −35,600); DAVE gets 35,599.
  const expected = [-53_399, 53_398, -35_600, 35_599]
  t.same(wallets().map((w, i) => w - before[i]!), expected)
  t.same(fundingEvents(r.events).map((e) => [e.account, e.amount, e.positionQtyLots, e.fundingRateE8, e.markPriceTicks, e.fundingTime]), [
    [ALICE, -53_399, 6, 29_666, 300_000, BOUNDARY],
    [BOB, 53_398, -6, 29_666, 300_000, BOUNDARY],
    [CAROL, -35_600, 4, 29_666, 300_000, BOUNDARY],
    [DAVE, 35_599, -4, 29_666, 300_000, BOUNDARY],
  ])
  t.same(fundingEvents(r.events).map((e) => e.wallet), wallets(), 'each event carries the wallet after it')
  t.same(rateEvents(r.events), [{ type: 'fundingRate', marketId: BTCPERP, fundingRateE8: 29_666, fundingTime: BOUNDARY,
    markPriceTicks: 300_000, paid: 124_598, received: 124_596, time: BOUNDARY }])
  t.equal(Number(ex.state.fees.get('USDT')) - feesBefore, 2, 'the rounding remainder goes to the exchange')
  t.same(moneyViolations(ex.state), [])
  t.same([p.lastFundingRateE8, p.nextFundingTime, p.premiumSamples, p.premiumWeights], [29_666, BOUNDARY + EIGHT_H, 0, 0])

  // Now the funding estimate moves the mark: 30000 × (1 + 0.00029666 × (8 h − 1 s) / 8 h) = 30008.8994…
  ex.ok({ type: 'Tick' }, 1_000)
  t.equal(btc(ex).markPriceTicks, 300_089, 'funding basis branch with a rate')
  const again = ex.ok({ type: 'Tick' }, 1_000)
  t.same(rateEvents(again.events), [], 'one settlement per boundary')
})

t.test('premium samples: one per 5 s slot, weights rising linearly', async (t) => {
  const ex = await positioned()
  // Quotes 29999 / 30100: neither impact price beyond the index, premium 0.
  ex.ok(limit(ALICE, 'BUY', 299_990, 1000))
  ex.ok(limit(BOB, 'SELL', 301_000, 1000))
  // The prices event carries the sample a Tick took (premium index klines), and only then.
  const premiumOf = (r: Result): (number | undefined)[] => r.events.flatMap((e) => e.type === 'prices' && e.marketId === BTCPERP ? [e.premiumE8] : [])
  t.same(premiumOf(ex.ok({ type: 'Tick' }, 5_000)), [0])
  t.same(premiumOf(ex.ok({ type: 'Tick' }, 1_000)), [undefined])
  t.equal(btc(ex).prices.premiumSamples, 1, 'a second Tick in the same 5-s slot takes no sample')
  // A richer bid, 30036.0: premium 36 / 30000 = 0.0012 = 120,000 E8.
  ex.ok(limit(CAROL, 'BUY', 300_360, 1000, { positionSide: 'LONG' }))
  t.same(premiumOf(ex.ok({ type: 'Tick' }, 5_000)), [120_000])
  const p = btc(ex).prices
  // (1 × 0 + 2 × 120,000) / (1 + 2) = 80,000; rate 80,000 − 50,000 = 30,000.
  t.same([p.premiumSamples, p.premiumWeights, p.premiumWeightedE8, averagePremiumE8(p)], [2, 3, 240_000, 80_000])
  t.equal(estimatedFundingRateE8(btc(ex)), 30_000)
})

t.test('a market without an oracle price is not charged funding', async (t) => {
  const ex = new TestExchange()
  for (const a of [ALICE, BOB]) ex.fund(a, 100_000)
  ex.ok(limit(BOB, 'SELL', 300_000, 6))
  ex.ok(limit(ALICE, 'BUY', 300_000, 6))
  const before = ex.sub(ALICE).perpWallet
  const r = ex.ok({ type: 'Tick' }, BOUNDARY - ex.time)
  t.same(r.events, [])
  t.equal(ex.sub(ALICE).perpWallet, before)
})

/** A random path: oracle moves, orders around the index, Ticks, across several boundaries. */
const pathArb = fc.array(fc.record({
  kind: fc.constantFrom('price', 'order', 'order', 'order', 'tick', 'jump'),
  account: fc.constantFrom(ALICE, BOB, CAROL, DAVE),
  side: fc.constantFrom('BUY' as const, 'SELL' as const),
  offset: fc.integer({ min: -400, max: 400 }),
  lots: fc.integer({ min: 4, max: 60 }),
}), { minLength: 10, maxLength: 80 })

type Step = { kind: string; account: string; side: 'BUY' | 'SELL'; offset: number; lots: number }

async function run(path: Step[]): Promise<{ ex: TestExchange; events: Event[] }> {
  const ex = new TestExchange()
  for (const a of [ALICE, BOB, CAROL, DAVE]) ex.fund(a, 1_000_000)
  ex.ok({ type: 'ChangePositionMode', account: CAROL, sub: 0, dualSide: true })
  registerOracle(ex)
  let index = 300_000
  t.ok((await publish(ex, '30000')).ok)
  const events: Event[] = []
  for (const s of path) {
    let r
    if (s.kind === 'price') {
      index = Math.max(200_000, index + s.offset)
      // Signatures are deterministic (RFC 6979), so two runs send the same bytes.
      r = ex.run(await signedPrice(ex, (index / 10).toFixed(1), 500), 500)
    } else if (s.kind === 'order') {
      const extra = s.account === CAROL ? { positionSide: s.side === 'BUY' ? 'LONG' as const : 'SHORT' as const } : {}
      r = ex.run(limit(s.account, s.side, index + s.offset, s.lots, extra))
    } else {
      r = ex.run({ type: 'Tick' }, s.kind === 'tick' ? 1_000 + Math.abs(s.offset) * 10 : 3 * 3_600_000 + s.offset)
    }
    events.push(...r.events)
  }
  return { ex, events }
}

t.test('fast-check: every settlement conserves money; same stream twice, same roots', async (t) => {
  let settlements = 0
  await fc.assert(fc.asyncProperty(pathArb, async (path) => {
    const a = await run(path)
    for (const e of rateEvents(a.events)) {
      settlements++
      const flows = fundingEvents(a.events).filter((f) => f.fundingTime === e.fundingTime && f.marketId === e.marketId)
      // Events carry each holding's net amount (a hedge account's long and short offset).
      const net = flows.reduce((sum, f) => sum + f.amount, 0)
      if (net !== e.received - e.paid) throw new Error(`events net ${net}, market received ${e.received} − paid ${e.paid}`)
      // The remainder, to fees: never negative, under one unit per paying position.
      if (e.paid < e.received || e.paid - e.received > flows.length * 2) throw new Error(`paid ${e.paid}, received ${e.received}`)
    }
    const v = moneyViolations(a.ex.state)
    if (v.length > 0) throw new Error(v.join('\n'))
    const b = await run(path)
    if (stateRoot(a.ex.state) !== stateRoot(b.ex.state)) throw new Error('two runs of one stream differ')
  }), runs(25))
  t.ok(settlements > 0, `${settlements} settlements checked`)
})

t.test('a snapshot keeps the price state: the restored copy settles the same', async (t) => {
  const ex = await positioned()
  ex.ok(limit(ALICE, 'BUY', 300_239, 1000))
  ex.ok(limit(BOB, 'SELL', 301_000, 1000))
  ex.ok({ type: 'Tick' }, 1_000)
  ex.ok({ type: 'Tick' }, 5_000)
  const copy = decodeSnapshot(encodeSnapshot(ex.state))
  t.equal(stateRoot(copy), stateRoot(ex.state))
  const entry = { seq: ex.state.seq + 1, time: BOUNDARY, command: { type: 'Tick' as const } }
  const a = apply(ex.state, entry)
  const b = apply(copy, entry)
  t.same(b, a)
  t.equal(rateEvents(a.events).length, 1)
  t.equal(stateRoot(copy), stateRoot(ex.state))
})
