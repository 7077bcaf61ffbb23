// Exact numbers at the edge: parameter syntax (Binance's legal range), precision (-1111), the
// price and quantity filters giving the core's own codes for the same exact value, ledger
// amounts, and formatting back with each market's precision, round trips included. Markets:
// BTCUSDTPERP (tick 0.1, step 0.001), ETHUSDTPERP (tick 0.01), BTCUSDT spot (tick 0.01, step
// 0.0001) and a SOLUSDTPERP whose tick (0.05) and step (0.005) are not powers of ten.

import assert from 'node:assert/strict'
import fc from 'fast-check'
import t from 'tap'
import { InvariantError, LIMITS, type Asset, type Market } from '../../core/index.js'
import { DEFAULT_GENESIS, type GenesisSpec } from '../../core/genesis-spec.js'
import {
  divRound, ExactDecimal, formatAvgPrice, formatBalance, formatExact, formatLedger, formatMinNotional,
  formatNotional, formatPrice, formatQty, formatRatio, formatUnits, parseAmount, parseDecimal, parsePriceTicks,
  parseQtyLots, parseUnits, trimZeros,
} from '../../gateway/decimal.js'
import { ApiError } from '../../gateway/errors.js'
import { rejection } from '../helpers/commands.js'
import { ALICE, BTCPERP, BTCSPOT, ETHPERP, TestExchange } from '../helpers/exchange.js'

const SOLPERP = 5

const SPEC: GenesisSpec = {
  ...DEFAULT_GENESIS,
  assets: [...DEFAULT_GENESIS.assets, { asset: 'SOL', scale: 8 }],
  perpMarkets: [...DEFAULT_GENESIS.perpMarkets, {
    marketId: SOLPERP, base: 'SOL', quote: 'USDT', tickSize: '0.05', stepSize: '0.005', minPrice: '1', maxPrice: '10000',
    minQty: '0.005', maxQty: '1000', marketMaxQty: '100', minNotional: '5', makerFee: '0.0002', takerFee: '0.0005',
    brackets: [{ notionalCap: '1000000', maxLeverage: 50, maintMarginRatio: '0.01' }], defaultLeverage: 20,
  }],
}

const ex = new TestExchange(SPEC)
const market = (id: number): Market => ex.state.markets[id]!
const asset = (name: string): Asset => ex.state.assets.get(name)!
const BTC = market(BTCPERP)
const ETH = market(ETHPERP)
const SPOT = market(BTCSPOT)
const SOL = market(SOLPERP)

type Outcome = number | bigint | string | [number, string]

/** A parse's value, or [code, msg] of the ApiError it threw. */
function outcome(f: () => number | bigint | string): Outcome {
  try {
    return f()
  } catch (e) {
    if (e instanceof ApiError) return [e.code, e.msg]
    throw e
  }
}

const ILLEGAL = (name: string): [number, string] =>
  [-1100, `Illegal characters found in parameter '${name}'; legal range is '^([0-9]{1,20})(\\.[0-9]{1,20})?$'.`]
const MANDATORY = (name: string): [number, string] =>
  [-1102, `Mandatory parameter '${name}' was not sent, was empty/null, or malformed.`]
const PRECISION: [number, string] = [-1111, 'Precision is over the maximum defined for this asset.']

t.test('markets of the fixture', async (t) => {
  t.same([BTC.pricePrecision, BTC.tickSize, BTC.quantityPrecision, BTC.stepSize], [1, 1, 3, 1])
  t.same([ETH.pricePrecision, ETH.tickSize], [2, 1])
  t.same([SPOT.pricePrecision, SPOT.quantityPrecision], [2, 4])
  t.same([SOL.pricePrecision, SOL.tickSize, SOL.quantityPrecision, SOL.stepSize], [2, 5, 3, 5])
})

t.test('parseUnits: syntax, sign and precision', async (t) => {
  const rows: [string | undefined, number, boolean, Outcome][] = [
    ['1', 2, false, 100n],
    ['0', 2, false, 0n],
    ['1.5', 2, false, 150n],
    ['001.50', 2, false, 150n], // leading and trailing zeros are fine
    ['1.500000000000000000', 2, false, 150n], // trailing zeros are not precision
    ['0.00000001', 8, false, 1n],
    ['12345678901234567890.12345678901234567890', 20, false, 1234567890123456789012345678901234567890n],
    ['0.1000000000000000001', 18, false, PRECISION],
    ['0.1000000000000000001', 19, false, 1000000000000000001n],
    ['1.05', 1, false, PRECISION],
    ['-1', 2, true, -100n],
    ['-0', 2, true, 0n],
    ['-1', 2, false, ILLEGAL('p')],
    ['+1', 2, true, ILLEGAL('p')],
    ['1e5', 2, false, ILLEGAL('p')],
    ['1E-5', 8, false, ILLEGAL('p')],
    ['.5', 2, false, ILLEGAL('p')],
    ['5.', 2, false, ILLEGAL('p')],
    [' 1', 2, false, ILLEGAL('p')],
    ['1 ', 2, false, ILLEGAL('p')],
    ['1,5', 2, false, ILLEGAL('p')],
    ['0x10', 2, false, ILLEGAL('p')],
    ['NaN', 2, false, ILLEGAL('p')],
    ['Infinity', 2, false, ILLEGAL('p')],
    ['１', 2, false, ILLEGAL('p')], // a full-width digit
    ['--1', 2, true, ILLEGAL('p')],
    ['1.2.3', 2, false, ILLEGAL('p')],
    ['123456789012345678901', 2, false, ILLEGAL('p')], // 21 integer digits
    ['0.123456789012345678901', 30, false, ILLEGAL('p')], // 21 fraction digits
    ['', 2, false, MANDATORY('p')],
    [undefined, 2, false, MANDATORY('p')],
  ]
  for (const [raw, decimals, negative, want] of rows) {
    t.same(outcome(() => parseUnits(raw, 'p', decimals, { negative })), want, `${JSON.stringify(raw)} @${decimals}`)
  }
})

t.test('parseDecimal keeps every digit', async (t) => {
  t.equal(parseDecimal('0.1000000000000000001', 'r').toString(), '0.1000000000000000001')
  t.equal(parseDecimal('0.1000000000000000001', 'r').times(10).toString(), '1.000000000000000001')
  t.equal(parseDecimal('10', 'callbackRate', { maxDecimals: 1 }).toString(), '10')
  t.equal(parseDecimal('-0.5', 'r', { negative: true }).toString(), '-0.5')
  t.ok(parseDecimal('0.10', 'r', { maxDecimals: 1 }).equals(new ExactDecimal('0.1')))
  t.same(outcome(() => parseDecimal('0.15', 'callbackRate', { maxDecimals: 1 }).toString()), PRECISION)
  t.same(outcome(() => parseDecimal('-0.5', 'r').toString()), ILLEGAL('r'))
  t.same(outcome(() => parseDecimal('1e1', 'r').toString()), ILLEGAL('r'))
})

t.test('prices: ticks, or the Binance error the core code maps to', async (t) => {
  const rows: [Market, string, Outcome][] = [
    [BTC, '50000.1', 500_001],
    [BTC, '50000.10', 500_001],
    [BTC, '050000.1000', 500_001],
    [BTC, '50000', 500_000],
    [BTC, '100', 1_000], // min
    [BTC, '1000000', 10_000_000], // max
    [BTC, '50000.15', PRECISION],
    [BTC, '99.9', [-4013, 'Price less than min price.']],
    [BTC, '1000000.1', [-4002, 'Price greater than max price.']],
    [BTC, '99999999999999999999', [-4002, 'Price greater than max price.']],
    [BTC, '0', [-4001, 'Price less than 0.']],
    [BTC, '0.0', [-4001, 'Price less than 0.']],
    [BTC, '-1', [-4001, 'Price less than 0.']],
    [BTC, '1e5', ILLEGAL('price')],
    [BTC, '', MANDATORY('price')],
    [ETH, '2000.01', 200_001],
    [ETH, '2000.001', PRECISION],
    [ETH, '9.99', [-4013, 'Price less than min price.']],
    // A tick that is not a power of ten: 0.05.
    [SOL, '1.05', 21],
    [SOL, '1.1', 22],
    [SOL, '1.03', [-4014, 'Price not increased by tick size.']],
    [SOL, '1.031', PRECISION],
    [SOL, '0.95', [-4013, 'Price less than min price.']],
    [SOL, '0.97', [-4014, 'Price not increased by tick size.']], // off-tick is reported before min, as the core does
    [SOL, '10000.03', [-4002, 'Price greater than max price.']], // off-tick beyond max is "above max", as the core does
    [SOL, '10000', 200_000],
    // Spot: Binance's spot syntax (no sign) and filter failures.
    [SPOT, '30000.01', 3_000_001],
    [SPOT, '-1', ILLEGAL('price')],
    [SPOT, '0', [-1013, 'Filter failure: PRICE_FILTER']],
    [SPOT, '1000000.01', [-1013, 'Filter failure: PRICE_FILTER']],
    [SPOT, '0.001', PRECISION],
  ]
  for (const [m, raw, want] of rows) {
    t.same(outcome(() => parsePriceTicks(m, raw)), want, `${m.symbol} ${raw}`)
  }
  t.same(outcome(() => parsePriceTicks(BTC, 'x', 'stopPrice')), ILLEGAL('stopPrice'), 'names the parameter')
})

t.test('quantities: lots, or the Binance error the core code maps to', async (t) => {
  const rows: [Market, string, boolean, Outcome][] = [
    [BTC, '0.001', false, 1],
    [BTC, '1.000', false, 1_000],
    [BTC, '1000', false, 1_000_000],
    [BTC, '0.0015', false, PRECISION],
    [BTC, '1000.001', false, [-4005, 'Quantity greater than max quantity.']],
    [BTC, '120', true, 120_000],
    [BTC, '120.001', true, [-4005, 'Quantity greater than max quantity.']],
    [BTC, '0', false, [-4003, 'Quantity less than or equal to zero.']],
    [BTC, '-0.001', false, [-4003, 'Quantity less than or equal to zero.']],
    [BTC, '0.1000000000000000001', false, PRECISION],
    [BTC, '1e-3', false, ILLEGAL('quantity')],
    [SOL, '0.005', false, 1],
    [SOL, '0.010', false, 2],
    [SOL, '0.003', false, [-4023, 'Qty not increased by step size.']],
    [SOL, '0.0049', false, PRECISION],
    [SOL, '0', false, [-4003, 'Quantity less than or equal to zero.']],
    [SPOT, '0.0001', false, 1],
    [SPOT, '1000.0001', false, [-1013, 'Filter failure: LOT_SIZE']],
    [SPOT, '100.0001', true, [-1013, 'Filter failure: MARKET_LOT_SIZE']],
    [SPOT, '0', false, [-1013, 'Filter failure: LOT_SIZE']],
    [SPOT, '-1', false, ILLEGAL('quantity')],
  ]
  for (const [m, raw, isMarket, want] of rows) {
    t.same(outcome(() => parseQtyLots(m, raw, isMarket)), want, `${m.symbol} ${raw}${isMarket ? ' MARKET' : ''}`)
  }
})

const FILTER_CODES: Record<string, number> = {
  PRICE_BELOW_ZERO: -4001, PRICE_TICK: -4014, PRICE_BELOW_MIN: -4013, PRICE_ABOVE_MAX: -4002,
  QTY_BELOW_ZERO: -4003, QTY_STEP: -4023, QTY_BELOW_MIN: -4004, QTY_ABOVE_MAX: -4005,
}

t.test('the gateway refuses exactly what the core refuses', async (t) => {
  // The same exact values handed to the core (as fractional ticks where off the grid, which only
  // a test does) give the same verdict the gateway reaches before submitting.
  const core = new TestExchange(SPEC)
  core.fund(ALICE, 10_000_000)
  const prices = ['-0.05', '0', '0.95', '0.97', '1', '1.03', '1.05', '9999.95', '10000', '10000.03', '10000.05', '10005']
  const qtys = ['-0.005', '0', '0.003', '0.005', '0.01', '1000', '1000.005', '1001']
  const units = (raw: string, d: number): number => Number(parseUnits(raw, 'x', d, { negative: true }))
  for (const p of prices) {
    for (const q of qtys) {
      const gw = (() => {
        try {
          parsePriceTicks(SOL, p)
          parseQtyLots(SOL, q, false)
          return 'ACCEPTED'
        } catch (e) {
          if (e instanceof ApiError) return e.code
          throw e
        }
      })()
      const r = rejection(core, {
        type: 'PlaceOrder', account: ALICE, sub: 0, marketId: SOLPERP, side: 'BUY', orderType: 'LIMIT',
        priceTicks: units(p, 2) / SOL.tickSize, qtyLots: units(q, 3) / SOL.stepSize, timeInForce: 'IOC',
      })
      // Anything the core says past the price and quantity filters (margin, notional, bracket)
      // means the gateway's checks passed.
      const want = FILTER_CODES[r.code] ?? 'ACCEPTED'
      t.equal(gw, want, `price ${p} qty ${q}: core ${r.code}`)
    }
  }
})

t.test('amounts in ledger units', async (t) => {
  const USDT = asset('USDT')
  const BTCA = asset('BTC')
  const INVALID: [number, string] = [-1130, "Data sent for parameter 'amount' is not valid."]
  const rows: [Asset, string | undefined, Outcome][] = [
    [USDT, '1.5', 1_500_000],
    [USDT, '0.000001', 1],
    [USDT, '100', 100_000_000],
    [USDT, '0.0000001', PRECISION],
    [USDT, '1.0000000', 1_000_000],
    [USDT, '0', INVALID],
    [USDT, '-5', INVALID],
    [USDT, '4503599627.370496', LIMITS.ledgerAmountMax],
    [USDT, '4503599627.370497', INVALID],
    [USDT, '99999999999999999999', INVALID],
    [USDT, '1e3', ILLEGAL('amount')],
    [USDT, undefined, MANDATORY('amount')],
    [BTCA, '0.00000001', 1],
    [BTCA, '0.000000001', PRECISION],
    [BTCA, '21000000', 2_100_000_000_000_000],
  ]
  for (const [a, raw, want] of rows) {
    t.same(outcome(() => parseAmount(a, raw)), want, `${a.name} ${raw}`)
  }
})

t.test('formatting', async (t) => {
  t.equal(formatPrice(BTC, 500_001), '50000.1')
  t.equal(formatPrice(BTC, 1_000), '100.0')
  t.equal(formatPrice(ETH, 200_001), '2000.01')
  t.equal(formatPrice(ETH, 1n), '0.01')
  t.equal(formatPrice(SOL, 21), '1.05')
  t.equal(formatPrice(SOL, 200_000), '10000.00')
  t.equal(formatPrice(SPOT, 0), '0.00')
  t.equal(formatQty(BTC, 1), '0.001')
  t.equal(formatQty(BTC, 0), '0.000')
  t.equal(formatQty(BTC, -1_500), '-1.500')
  t.equal(formatQty(SOL, 3), '0.015')
  t.equal(formatQty(SPOT, 12_345), '1.2345')

  t.equal(formatBalance(1_500_000, 6), '1.50000000', 'USDT balances print 8 decimals')
  t.equal(formatBalance(0, 6), '0.00000000')
  t.equal(formatBalance(-100, 6), '-0.00010000')
  t.equal(formatBalance(1, 8), '0.00000001')
  t.equal(formatBalance(5n, 18), '0.000000000000000005', 'a finer scale keeps its digits')
  t.equal(formatLedger(1_500_000, 6), '1.500000')
  t.equal(formatLedger(1_500_000, 6, 2), '1.50', 'dropping zeros is exact')
  t.throws(() => formatLedger(1_500_001, 6, 2), InvariantError, 'dropping a digit would round')
  t.equal(formatLedger(2n ** 80n, 6), '1208925819614629174.706176', 'beyond 2^53 in bigint')
  t.equal(formatExact(7, 0, 2), '7.00')

  t.equal(formatNotional(BTC, 500_001), '50.0001', '50000.1 × 0.001')
  t.equal(formatNotional(BTC, 500_001n * 2_000n), '100000.2000')
  t.equal(formatNotional(SOL, 21 * 3), '0.01575', '1.05 × 0.015')
  t.equal(formatNotional(BTC, 10_000_000, 2), '1000.00')
  t.equal(formatMinNotional(BTC, 6), '100')
  t.equal(formatMinNotional(ETH, 6), '20')
  t.equal(formatMinNotional(SPOT, 6), '5')
  t.equal(trimZeros('5.50'), '5.5')
  t.equal(trimZeros('100'), '100')

  t.equal(formatUnits(0, 0), '0')
  t.equal(formatUnits(-5n, 3), '-0.005')
  t.equal(formatUnits(123, 5), '0.00123')
  t.throws(() => formatPrice(BTC, 0.5), InvariantError, 'a fractional number is never formatted')
  t.throws(() => formatQty(BTC, 2 ** 53), InvariantError, 'an unsafe number must come as a bigint')
})

/** Formatting as it was in BigInt alone: what the number fast path must print, digit for digit. */
const reference = {
  units(u: bigint, decimals: number): string {
    const abs = (u < 0n ? -u : u).toString().padStart(decimals + 1, '0')
    const cut = abs.length - decimals
    return (u < 0n ? '-' : '') + abs.slice(0, cut) + (decimals > 0 ? '.' + abs.slice(cut) : '')
  },
  exact(u: bigint, unitDecimals: number, decimals: number): string | 'refused' {
    if (decimals >= unitDecimals) return reference.units(u * 10n ** BigInt(decimals - unitDecimals), decimals)
    const f = 10n ** BigInt(unitDecimals - decimals)
    return u % f === 0n ? reference.units(u / f, decimals) : 'refused'
  },
}

t.test('formatting in numbers prints what BigInt does, past 2^53 and at every scale', async (t) => {
  const safe = fc.oneof(fc.integer({ min: -1_000_000, max: 1_000_000 }), fc.maxSafeInteger(), fc.maxSafeInteger().map((x) => -x),
    fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }))
  const size = fc.oneof(fc.constantFrom(1, 5, 10, 25, 100, 1000), fc.integer({ min: 1, max: 2 ** 40 }))
  const precision = fc.integer({ min: 0, max: 18 })
  const asReference = (f: () => string): string => { try { return f() } catch (e) { if (e instanceof InvariantError) return 'refused'; throw e } }
  fc.assert(fc.property(safe, size, size, precision, precision, (n, tick, step, pp, qp) => {
    const m = { tickSize: tick, stepSize: step, pricePrecision: pp, quantityPrecision: qp }
    const u = BigInt(n)
    assert.equal(formatUnits(n, pp), reference.units(u, pp))
    assert.equal(formatPrice(m, n), reference.units(u * BigInt(tick), pp))
    assert.equal(formatQty(m, n), reference.units(u * BigInt(step), qp))
    assert.equal(formatNotional(m, n), reference.units(u * BigInt(tick) * BigInt(step), pp + qp))
    for (const decimals of [0, 2, 8, pp, pp + qp, 20]) {
      assert.equal(asReference(() => formatExact(n, pp, decimals)), reference.exact(u, pp, decimals), `formatExact(${n}, ${pp}, ${decimals})`)
      assert.equal(asReference(() => formatNotional(m, n, decimals)),
        reference.exact(u * BigInt(tick) * BigInt(step), pp + qp, decimals))
    }
  }), { numRuns: 3000 })
  t.pass('3,000 random values, sizes and precisions')
  t.equal(formatPrice({ tickSize: 2 ** 30, stepSize: 1, pricePrecision: 2, quantityPrecision: 0 }, 2 ** 30), '11529215046068469.76',
    'a product past 2^53 from two safe numbers is printed exactly')
  t.equal(formatExact(-0, 2, 4), '0.0000', 'minus zero prints as zero')
})

t.test('round trips', async (t) => {
  for (const m of [BTC, ETH, SOL, SPOT]) {
    const samples = [m.minPriceTicks, m.minPriceTicks + 1, Math.floor((m.minPriceTicks + m.maxPriceTicks) / 3), m.maxPriceTicks - 1, m.maxPriceTicks]
    for (const ticks of samples) {
      const s = formatPrice(m, ticks)
      t.equal(parsePriceTicks(m, s), ticks, `${m.symbol} price ${s}`)
    }
    const lots = [m.minQtyLots, m.minQtyLots + 1, Math.floor(m.maxQtyLots / 7), m.maxQtyLots]
    for (const l of lots) {
      const s = formatQty(m, l)
      t.equal(parseQtyLots(m, s, false), l, `${m.symbol} qty ${s}`)
    }
  }
  // Strings in canonical form come back as they went in.
  for (const s of ['50000.1', '100.0', '1000000.0']) t.equal(formatPrice(BTC, parsePriceTicks(BTC, s)), s)
  for (const s of ['2000.01', '10.00']) t.equal(formatPrice(ETH, parsePriceTicks(ETH, s)), s)
  for (const s of ['0.001', '12.345']) t.equal(formatQty(BTC, parseQtyLots(BTC, s, false)), s)
  const usdt = asset('USDT')
  for (const s of ['0.000001', '1.500000', '4503599627.370496']) t.equal(formatLedger(parseAmount(usdt, s), 6), s)
})

t.test('named rounding for quotients', async (t) => {
  const rows: [bigint, bigint, 'DOWN' | 'UP' | 'HALF_UP', bigint][] = [
    [7n, 2n, 'DOWN', 3n], [7n, 2n, 'UP', 4n], [7n, 2n, 'HALF_UP', 4n],
    [-7n, 2n, 'DOWN', -3n], [-7n, 2n, 'UP', -4n], [-7n, 2n, 'HALF_UP', -4n],
    [7n, 3n, 'HALF_UP', 2n], [8n, 3n, 'HALF_UP', 3n], [6n, 3n, 'UP', 2n], [0n, 5n, 'UP', 0n],
  ]
  for (const [n, d, r, want] of rows) t.equal(divRound(n, d, r), want, `${n}/${d} ${r}`)
  t.throws(() => divRound(1n, 0n, 'DOWN'), InvariantError)

  t.equal(formatRatio(1n, 3n, 0, 4, 'DOWN'), '0.3333')
  t.equal(formatRatio(2n, 3n, 0, 4, 'HALF_UP'), '0.6667')
  t.equal(formatRatio(2n, 3n, 0, 4, 'DOWN'), '0.6666')
  t.equal(formatRatio(12_345n, 1n, 3, 1, 'HALF_UP'), '12.3')
  // Filled 2 lots at 50000.1 and 1 at 50000.0: 50000.0666…
  const cum = 500_001 * 2 + 500_000
  t.equal(formatAvgPrice(BTC, cum, 3), '50000.1')
  t.equal(formatAvgPrice(BTC, cum, 3, 5), '50000.06667')
  t.equal(formatAvgPrice(BTC, 0, 0), '0.0')
  t.equal(formatAvgPrice(SOL, 21 * 2 + 22, 3, 4), '1.0667', '(1.05·2 + 1.10)/3')
})
