// Genesis: the default spec becomes exact integer markets, and bad or repeated genesis
// commands are refused without changing anything.

import t from 'tap'
import type { Command, CreatePerpMarket, CreateSpotMarket } from '../../core/commands.js'
import { DEFAULT_GENESIS, genesisCommands } from '../../core/genesis-spec.js'
import type { PerpMarket } from '../../core/state.js'
import { stateRoot } from '../../core/root.js'
import { decodeSnapshot, encodeSnapshot } from '../../core/snapshot.js'
import { BTCPERP, BTCSPOT, ETHPERP, ETHSPOT, TestExchange } from '../helpers/exchange.js'
import { rejection } from '../helpers/commands.js'

t.test('the default genesis in integers', async (t) => {
  const ex = new TestExchange()
  const fields = ['symbol', 'pricePrecision', 'quantityPrecision', 'tickSize', 'stepSize', 'minPriceTicks', 'maxPriceTicks',
    'minQtyLots', 'maxQtyLots', 'marketMaxQtyLots', 'minNotional', 'makerFeePpm', 'takerFeePpm', 'quotePerTickLot', 'basePerLot'] as const
  const rows: [number, (string | number)[]][] = [
    // BTCUSDTPERP: 0.1 × 0.001 BTC = 0.0001 USDT = 100 units; 0.001 BTC = 100,000 units.
    [BTCPERP, ['BTCUSDTPERP', 1, 3, 1, 1, 1_000, 10_000_000, 1, 1_000_000, 120_000, 100_000_000, 200, 500, 100, 100_000]],
    // ETHUSDTPERP: 0.01 × 0.001 = 0.00001 USDT = 10 units.
    [ETHPERP, ['ETHUSDTPERP', 2, 3, 1, 1, 1_000, 10_000_000, 1, 10_000_000, 2_000_000, 20_000_000, 200, 500, 10, 100_000]],
    // BTCUSDT: 0.01 × 0.0001 = 0.000001 USDT = 1 unit; 0.0001 BTC = 10,000 units.
    [BTCSPOT, ['BTCUSDT', 2, 4, 1, 1, 1, 100_000_000, 1, 10_000_000, 1_000_000, 5_000_000, 1_000, 1_000, 1, 10_000]],
    [ETHSPOT, ['ETHUSDT', 2, 4, 1, 1, 1, 10_000_000, 1, 90_000_000, 10_000_000, 5_000_000, 1_000, 1_000, 1, 10_000]],
  ]
  for (const [id, want] of rows) {
    const m = ex.state.markets[id]!
    t.same(fields.map((f) => m[f]), want, m.symbol)
    t.same([m.status, m.nextOrderId, m.nextTradeId], ['TRADING', 1, 1])
  }
  const btc = ex.state.markets[BTCPERP] as PerpMarket
  t.same([btc.kind, btc.pair, btc.maxLeverage, btc.defaultLeverage, btc.brackets.length], ['PERP', 'BTCUSDT', 125, 20, 12])
  t.same(btc.brackets[0], { notionalCap: 50_000_000_000, maxLeverage: 125, mmrPpm: 4_000 })
  t.same(btc.brackets[11], { notionalCap: 1_800_000_000_000_000, maxLeverage: 1, mmrPpm: 500_000 })
  t.equal((ex.state.markets[ETHPERP] as PerpMarket).maxLeverage, 100)
  t.same([...ex.state.assets.values()], [{ name: 'USDT', scale: 6 }, { name: 'BTC', scale: 8 }, { name: 'ETH', scale: 8 }])
})

t.test('genesis rejections', async (t) => {
  const cmds = genesisCommands(DEFAULT_GENESIS)
  const btc = cmds.find((c) => c.type === 'CreatePerpMarket') as CreatePerpMarket
  const spot = cmds.find((c) => c.type === 'CreateSpotMarket') as CreateSpotMarket
  const perp = (over: Partial<CreatePerpMarket>): Command => ({ ...btc, marketId: 9, symbol: 'SOLUSDTPERP', pair: 'SOLUSDT', base: 'SOL', ...over })
  const ex = new TestExchange()
  const rows: [string, Command, string][] = [
    ['an asset again', { type: 'CreateAsset', asset: 'USDT', scale: 6 }, 'ALREADY_EXISTS'],
    ['a lower-case asset', { type: 'CreateAsset', asset: 'sol', scale: 8 }, 'GENESIS_INVALID'],
    ['scale 19', { type: 'CreateAsset', asset: 'SOL', scale: 19 }, 'GENESIS_INVALID'],
    ['scale -1', { type: 'CreateAsset', asset: 'SOL', scale: -1 }, 'GENESIS_INVALID'],
    ['a market id in use', { ...btc }, 'GENESIS_INVALID'],
    ['a symbol in use', { ...spot, marketId: 9 }, 'GENESIS_INVALID'],
    ['an unknown base asset', perp({}), 'GENESIS_INVALID'],
  ]
  for (const [name, cmd, code] of rows) t.same(rejection(ex, cmd), { code, eventCount: 0, rootUnchanged: true }, name)

  ex.ok({ type: 'CreateAsset', asset: 'SOL', scale: 8 })
  const more: [string, Command, string][] = [
    ['brackets whose leverage rises', perp({ brackets: [btc.brackets[1]!, { ...btc.brackets[2]!, maxLeverage: 101 }] }), 'GENESIS_INVALID'],
    ['brackets whose cap falls', perp({ brackets: [btc.brackets[1]!, { ...btc.brackets[2]!, notionalCap: 1 }] }), 'GENESIS_INVALID'],
    ['no brackets', perp({ brackets: [] }), 'GENESIS_INVALID'],
    ['default leverage above the max', perp({ defaultLeverage: 126 }), 'GENESIS_INVALID'],
    ['a perp margined in another asset', perp({ quote: 'BTC' }), 'GENESIS_INVALID'],
    ['min price above max', perp({ minPriceTicks: 10_000_001 }), 'GENESIS_INVALID'],
    ['a tick finer than a USDT unit', perp({ pricePrecision: 7 }), 'GENESIS_INVALID'],
    ['fee above 10%', perp({ takerFeePpm: 100_001 }), 'GENESIS_INVALID'],
    ['the largest order past the ledger bound', perp({ maxQtyLots: 100_000_000 }), 'GENESIS_INVALID'],
    ['a price band of 100 %', perp({ percentPricePpm: 1_000_000 }), 'GENESIS_INVALID'],
    ['a negative market take bound', perp({ marketTakeBoundPpm: -1 }), 'GENESIS_INVALID'],
  ]
  for (const [name, cmd, code] of more) t.same(rejection(ex, cmd), { code, eventCount: 0, rootUnchanged: true }, name)
  const ok = ex.run(perp({}))
  t.match(ok, { ok: true, events: [{ type: 'market', marketId: 9, status: 'TRADING' }] })
  t.equal(ex.state.marketsBySymbol.get('SOLUSDTPERP')?.marketId, 9)
})

t.test('a market before its assets is invalid', async (t) => {
  const cmds = genesisCommands(DEFAULT_GENESIS)
  const ex = new TestExchange({ assets: [], perpMarkets: [], spotMarkets: [] })
  t.equal(rejection(ex, cmds.find((c) => c.type === 'CreatePerpMarket')!).code, 'GENESIS_INVALID')
})

t.test('genesis specs must be exact in their units', async (t) => {
  const spec = structuredClone(DEFAULT_GENESIS)
  spec.perpMarkets[0]!.minPrice = '100.05'
  t.throws(() => genesisCommands(spec), /minPrice 100.05 is not a multiple of 0.1/)
})

t.test('a genesis spec sets the optional market parameters in their units', async (t) => {
  const spec = structuredClone(DEFAULT_GENESIS)
  Object.assign(spec.perpMarkets[0]!, { triggerProtect: '0.1', liquidationFee: '0.015', fundingIntervalHours: 4,
    percentPrice: '0.1', marketTakeBound: '0' })
  const btc = genesisCommands(spec).find((c) => c.type === 'CreatePerpMarket')!
  t.match(btc, { triggerProtectPpm: 100_000, liquidationFeePpm: 15_000, fundingIntervalMs: 4 * 3_600_000,
    percentPricePpm: 100_000, marketTakeBoundPpm: 0 })
  const ex = new TestExchange(spec)
  t.match(ex.state.markets[btc.marketId], { triggerProtectPpm: 100_000, percentPricePpm: 100_000, marketTakeBoundPpm: 0 })
  const copy = decodeSnapshot(encodeSnapshot(ex.state))
  t.match(copy.markets[btc.marketId], { percentPricePpm: 100_000, marketTakeBoundPpm: 0 }, 'the band through a snapshot')
  t.equal(stateRoot(copy), stateRoot(ex.state))
  const bandOnly = structuredClone(DEFAULT_GENESIS)
  bandOnly.perpMarkets[0]!.marketTakeBound = '0.1'
  t.not(stateRoot(new TestExchange(bandOnly).state), stateRoot(new TestExchange().state), 'the band is in the root')
  t.equal(genesisCommands(DEFAULT_GENESIS).find((c) => c.type === 'CreatePerpMarket')!.triggerProtectPpm, undefined, 'default: the core\'s 0.05')
})

t.test('market status', async (t) => {
  const ex = new TestExchange()
  t.same(rejection(ex, { type: 'SetMarketStatus', marketId: 99, status: 'HALT' }).code, 'MARKET_UNKNOWN')
  t.same(rejection(ex, { type: 'SetMarketStatus', marketId: 1, status: 'CLOSED' as never }).code, 'COMMAND_INVALID')
  t.match(ex.run({ type: 'SetMarketStatus', marketId: 1, status: 'BREAK' }), { ok: true, events: [{ type: 'market', marketId: 1, status: 'BREAK' }] })
})
