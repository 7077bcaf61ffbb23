// The top traders' sample (core/top-traders.ts): taken at the first Tick of each 5-minute
// bucket only, on that Tick's prices event; among a market's holders, the fifth with the
// highest margin balance; net long and short ones, and their long and short lots, hedge-mode
// sides counted apart.

import t from 'tap'
import type { PricesEvent } from '../../core/events.js'
import { topTraders } from '../../core/top-traders.js'
import type { PerpMarket } from '../../core/state.js'
import { ALICE, BOB, BTCPERP, CAROL, DAVE, TestExchange } from '../helpers/exchange.js'
import { limit } from '../helpers/commands.js'
import { publish, registerOracle } from '../helpers/oracle.js'

const FIVE_MIN = 300_000

function sampleOf(ex: TestExchange, dtMs: number): PricesEvent['topTraders'] {
  const r = ex.ok({ type: 'Tick' }, dtMs)
  return r.events.find((e): e is PricesEvent => e.type === 'prices' && e.marketId === BTCPERP)!.topTraders
}

t.test('sampled at the first Tick of each 5-minute bucket, and only then', async (t) => {
  const ex = new TestExchange()
  for (const a of [ALICE, BOB]) ex.fund(a, 100_000)
  await registerOracle(ex)
  await publish(ex, '50000')
  ex.ok(limit(ALICE, 'SELL', 500_000, 10))
  ex.ok(limit(BOB, 'BUY', 500_000, 10))
  // Align to the next bucket, then Tick within it and into the next one.
  const toNext = FIVE_MIN - (ex.time % FIVE_MIN) + 10
  t.ok(sampleOf(ex, toNext), 'the first Tick of a bucket carries the sample')
  t.equal(sampleOf(ex, 6_000), undefined, 'a later Tick of the same bucket does not')
  t.equal(sampleOf(ex, 60_000), undefined)
  t.ok(sampleOf(ex, FIVE_MIN), 'the next bucket\'s first Tick does')
})

t.test('the top fifth by margin balance; hedge sides apart', async (t) => {
  const ex = new TestExchange()
  // Alice and Bob hold the most, then Carol and Dave.
  for (const [a, usdt] of [[ALICE, 500_000], [BOB, 500_000], [CAROL, 100_000], [DAVE, 100_000]] as const) ex.fund(a, usdt)
  const m = ex.state.markets[BTCPERP] as PerpMarket
  ex.ok(limit(CAROL, 'SELL', 500_000, 10))
  ex.ok(limit(ALICE, 'BUY', 500_000, 10)) // Alice long 10, Carol short 10
  // Four holders: the top fifth rounds up to one, Alice.
  t.same(topTraders(ex.state, m), { longAccounts: 1, shortAccounts: 0, longLots: 10, shortLots: 0 })
  ex.ok({ type: 'ChangePositionMode', account: BOB, sub: 0, dualSide: true })
  ex.ok(limit(DAVE, 'BUY', 500_000, 7))
  ex.ok(limit(BOB, 'SELL', 500_000, 7, { positionSide: 'SHORT' })) // Bob (hedge) short 7
  ex.ok(limit(DAVE, 'SELL', 500_000, 3))
  ex.ok(limit(BOB, 'BUY', 500_000, 3, { positionSide: 'LONG' })) // Bob long 3 beside it: net short 4
  for (const a of ['0x' + '1'.repeat(40), '0x' + '2'.repeat(40)]) ex.fund(a, 1_000)
  ex.ok(limit('0x' + '1'.repeat(40), 'SELL', 500_000, 2))
  ex.ok(limit('0x' + '2'.repeat(40), 'BUY', 500_000, 2))
  // Six holders: the top two, Alice (long 10) and Bob (net short: 3 long lots, 7 short).
  t.same(topTraders(ex.state, m), { longAccounts: 1, shortAccounts: 1, longLots: 13, shortLots: 7 })
  // Carol made richer than both: she (short 10) and Alice are the top two now.
  ex.fund(CAROL, 1_000_000)
  t.same(topTraders(ex.state, m), { longAccounts: 1, shortAccounts: 1, longLots: 10, shortLots: 10 })
})
