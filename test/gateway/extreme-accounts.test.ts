// Accounts at the edges of what the core allows, read through every GET route: a wallet at the
// ledger's bound behind tiny positions (liquidated only far away), positions at the largest
// quantity and leverage, a hedge-mode account with both sides open, an isolated position at its
// margin's edge, spot balances at the bound and orders resting at the highest price. Each route
// is asked for each account with its required parameters (from the OpenAPI document) and with
// each symbol it takes; none may answer 5xx. Found: positionRisk and the account answered 500 for
// a short far from liquidation (its price in E8 passed what a number holds exactly).

import t from 'tap'
import { Wallet } from 'ethers'
import type { Command } from '../../core/commands.js'
import { LIMITS } from '../../core/limits.js'
import { stateViolations } from '../../sim/model/invariants.js'
import { BTCPERP, BTCSPOT, ETHPERP, ETHSPOT } from '../helpers/exchange.js'
import { limit, market } from '../helpers/commands.js'
import { gatewayRig, hmac, openSession, type GatewayRig, type Keys } from '../helpers/gateway.js'

interface Account { name: string; address: string; keys: Keys }

const MAX = LIMITS.ledgerAmountMax

async function account(rig: GatewayRig, name: string, deposits: [asset: string, wallet: 'PERP' | 'SPOT', amount: number][]): Promise<Account> {
  const wallet = Wallet.createRandom()
  const keys = (await openSession(rig, wallet)).json() as Keys
  for (const [asset, w, amount] of deposits) {
    await rig.run({ type: 'Deposit', account: wallet.address, sub: 0, asset, amount, wallet: w, ref: `${name}-${asset}-${w}` })
  }
  return { name, address: wallet.address, keys }
}

async function ok(rig: GatewayRig, c: Command): Promise<void> {
  const r = await rig.run(c)
  if (!r.ok) throw new Error(`${c.type} refused: ${r.code}`)
}

/** Values for the parameters routes require, by name (symbol is chosen by the route's venue). */
function requiredValue(name: string, rig: GatewayRig): string | undefined {
  const values: Record<string, string> = {
    interval: '1m', contractType: 'PERPETUAL', pair: 'BTCUSDT', period: '5m', coin: 'USDT', asset: 'USDT',
    startTime: String(rig.ex.time - 3_600_000), endTime: String(rig.ex.time), downloadId: '1', orderId: '1', orderListId: '1',
    algoId: '1', preventedMatchId: '1', type: 'MAIN_UMFUTURE', symbols: '["BTCUSDTPERP"]',
  }
  return values[name]
}

interface Operation { parameters?: { name: string; in: string; required?: boolean }[] }

t.test('every GET route answers accounts at the edges without a 5xx', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const counterparty = await account(rig, 'counterparty', [['USDT', 'PERP', 10_000_000 * 1_000_000], ['USDT', 'SPOT', MAX],
    ['BTC', 'SPOT', 1_000 * 100_000_000]])
  // The ledger's bound in every wallet, behind the smallest positions: liquidation prices far off.
  const whale = await account(rig, 'whale', [['USDT', 'PERP', MAX], ['USDT', 'SPOT', MAX], ['BTC', 'SPOT', MAX], ['ETH', 'SPOT', MAX]])
  await ok(rig, limit(counterparty.address, 'BUY', 300_000, 4))
  await ok(rig, market(whale.address, 'SELL', 4))
  await ok(rig, limit(counterparty.address, 'SELL', 200_000, 10, { marketId: ETHPERP }))
  await ok(rig, market(whale.address, 'BUY', 10, { marketId: ETHPERP }))
  // Spot: the highest price the market takes, resting with the most it may hold.
  await ok(rig, limit(whale.address, 'SELL', 100_000_000, 1_000 * 10_000, { marketId: BTCSPOT }))
  await ok(rig, limit(whale.address, 'BUY', 1, 9_000 * 10_000, { marketId: ETHSPOT }))
  // The largest position at the highest leverage the bracket allows it.
  const large = await account(rig, 'large', [['USDT', 'PERP', 5_000_000 * 1_000_000]])
  await ok(rig, limit(counterparty.address, 'SELL', 300_000, 120_000))
  await ok(rig, market(large.address, 'BUY', 120_000))
  // Both sides open in hedge mode, in both markets.
  const hedge = await account(rig, 'hedge', [['USDT', 'PERP', 100_000 * 1_000_000]])
  await ok(rig, { type: 'ChangePositionMode', account: hedge.address, sub: 0, dualSide: true })
  for (const [marketId, price, lots] of [[BTCPERP, 300_000, 10], [ETHPERP, 200_000, 100]] as const) {
    await ok(rig, limit(counterparty.address, 'SELL', price, lots, { marketId }))
    await ok(rig, market(hedge.address, 'BUY', lots, { marketId, positionSide: 'LONG' }))
    await ok(rig, limit(counterparty.address, 'BUY', price, lots, { marketId }))
    await ok(rig, market(hedge.address, 'SELL', lots, { marketId, positionSide: 'SHORT' }))
  }
  // Isolated at 125×, with the least margin the order needed.
  const isolated = await account(rig, 'isolated', [['USDT', 'PERP', 25 * 1_000_000]])
  await ok(rig, { type: 'ChangeMarginType', account: isolated.address, sub: 0, marketId: BTCPERP, marginType: 'ISOLATED' })
  await ok(rig, { type: 'ChangeLeverage', account: isolated.address, sub: 0, marketId: BTCPERP, leverage: 125 })
  await ok(rig, limit(counterparty.address, 'SELL', 300_000, 10))
  await ok(rig, market(isolated.address, 'BUY', 10))
  const accounts = [counterparty, whale, large, hedge, isolated]

  const doc = (await rig.app.inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, Record<string, Operation>> }
  const failures: string[] = []
  let requests = 0
  let answered = 0
  for (const [path, ops] of Object.entries(doc.paths)) {
    const op = ops.get
    if (op === undefined || path.includes('{')) continue
    const query = (op.parameters ?? []).filter((p) => p.in === 'query')
    const takesSymbol = query.some((p) => p.name === 'symbol')
    const symbols = path.startsWith('/api') || path.startsWith('/sapi') ? ['BTCUSDT', 'ETHUSDT'] : ['BTCUSDTPERP', 'ETHUSDTPERP']
    const variants: Record<string, string>[] = takesSymbol ? [...symbols.map((symbol) => ({ symbol })), {}] : [{}]
    for (const variant of variants) {
      for (const a of accounts) {
        const params: Record<string, string> = { ...variant }
        for (const p of query) {
          if (!p.required || p.name in params || p.name === 'signature' || p.name === 'timestamp') continue
          const v = p.name === 'symbol' ? symbols[0] : requiredValue(p.name, rig)
          if (v !== undefined) params[p.name] = v
        }
        const q = new URLSearchParams({ ...params, timestamp: String(rig.ex.time) }).toString()
        // An address per request: the sweep is not to meet the per-IP weight limit.
        const r = await rig.app.inject({ method: 'GET', url: `${path}?${q}&signature=${hmac(a.keys.secretKey, q)}`,
          headers: { 'x-mbx-apikey': a.keys.apiKey }, remoteAddress: `10.${requests >> 16 & 255}.${requests >> 8 & 255}.${requests & 255}` })
        requests++
        if (r.statusCode === 200) answered++
        if (r.statusCode >= 500) failures.push(`${a.name}: GET ${path}?${q} → ${r.statusCode} ${r.body}`)
      }
    }
  }
  t.ok(requests > 1_000 && answered > requests / 2, `${answered} of ${requests} requests answered 200`)
  t.same(failures, [], 'no 5xx')
})

// Orders at the edges of every filter, from an account the ledger bound backs in every wallet:
// every type each venue takes, at the lowest and highest price and stop, the smallest and the
// largest quantity, quote-sized spot market orders up to the ledger; then every GET route again.
// None may answer 5xx (a core assert would surface as one), and the core's invariants hold after.
t.test('orders at the edges of every filter answer without a 5xx, and reads after them too', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const maker = await account(rig, 'maker', [['USDT', 'PERP', MAX], ['USDT', 'SPOT', MAX], ['BTC', 'SPOT', MAX], ['ETH', 'SPOT', MAX]])
  const whale = await account(rig, 'whale', [['USDT', 'PERP', MAX], ['USDT', 'SPOT', MAX], ['BTC', 'SPOT', MAX], ['ETH', 'SPOT', MAX]])
  // Depth on both sides of every book, near 30,000 (BTC) and 2,000 (ETH).
  for (const [marketId, mid, lots] of [[BTCPERP, 300_000, 1_000], [ETHPERP, 200_000, 10_000], [BTCSPOT, 3_000_000, 100_000],
    [ETHSPOT, 200_000, 1_000_000]] as const) {
    await ok(rig, limit(maker.address, 'BUY', mid - mid / 100, lots, { marketId }))
    await ok(rig, limit(maker.address, 'SELL', mid + mid / 100, lots, { marketId }))
  }
  type P = Record<string, string>
  const perp: [string, P][] = []
  for (const symbol of ['BTCUSDTPERP', 'ETHUSDTPERP']) {
    const [lo, hi, mid] = symbol === 'BTCUSDTPERP' ? ['100.0', '1000000.0', '30000.0'] : ['10.00', '100000.00', '2000.00']
    const [qMin, qMarket, qMax] = symbol === 'BTCUSDTPERP' ? ['0.001', '120', '1000'] : ['0.001', '2000', '10000']
    for (const side of ['BUY', 'SELL']) {
      for (const price of [lo, hi, mid]) {
        for (const quantity of [qMin, qMax]) {
          for (const timeInForce of ['GTC', 'IOC', 'FOK', 'GTX']) perp.push([symbol, { side, type: 'LIMIT', timeInForce, price, quantity }])
          for (const type of ['STOP', 'TAKE_PROFIT']) perp.push([symbol, { side, type, price, stopPrice: price === lo ? hi : lo, quantity }])
        }
        for (const type of ['STOP_MARKET', 'TAKE_PROFIT_MARKET']) {
          perp.push([symbol, { side, type, stopPrice: price, quantity: qMarket }])
          perp.push([symbol, { side, type, stopPrice: price, closePosition: 'true' }])
        }
        for (const callbackRate of ['0.1', '10']) {
          perp.push([symbol, { side, type: 'TRAILING_STOP_MARKET', activationPrice: price, callbackRate, quantity: qMarket }])
        }
      }
      for (const quantity of [qMin, qMarket]) perp.push([symbol, { side, type: 'MARKET', quantity }])
      for (const priceMatch of ['OPPONENT', 'QUEUE_20']) perp.push([symbol, { side, type: 'LIMIT', timeInForce: 'GTC', priceMatch, quantity: qMax }])
    }
  }
  const spot: [string, P][] = []
  for (const symbol of ['BTCUSDT', 'ETHUSDT']) {
    const [lo, hi, mid] = symbol === 'BTCUSDT' ? ['0.01', '1000000.00', '30000.00'] : ['0.01', '100000.00', '2000.00']
    const [qMin, qMarket, qMax] = symbol === 'BTCUSDT' ? ['0.0001', '100', '1000'] : ['0.0001', '1000', '9000']
    for (const side of ['BUY', 'SELL']) {
      for (const price of [lo, hi, mid]) {
        for (const quantity of [qMin, qMax]) {
          for (const timeInForce of ['GTC', 'IOC', 'FOK']) spot.push([symbol, { side, type: 'LIMIT', timeInForce, price, quantity }])
          spot.push([symbol, { side, type: 'LIMIT_MAKER', price, quantity }])
          spot.push([symbol, { side, type: 'LIMIT', timeInForce: 'GTC', price, quantity, icebergQty: qMin }])
          for (const type of ['STOP_LOSS_LIMIT', 'TAKE_PROFIT_LIMIT']) {
            spot.push([symbol, { side, type, timeInForce: 'GTC', price, stopPrice: price === lo ? hi : lo, quantity }])
            spot.push([symbol, { side, type, timeInForce: 'GTC', price, trailingDelta: '1', quantity }])
          }
        }
        for (const type of ['STOP_LOSS', 'TAKE_PROFIT']) spot.push([symbol, { side, type, stopPrice: price, quantity: qMarket }])
        spot.push([symbol, { side, type: 'LIMIT', timeInForce: 'GTC', pegPriceType: 'PRIMARY_PEG', pegOffsetType: 'PRICE_LEVEL', pegOffsetValue: '100', quantity: qMax }])
      }
      for (const quantity of [qMin, qMarket]) spot.push([symbol, { side, type: 'MARKET', quantity }])
      for (const quoteOrderQty of ['0.01', '1000000000', '4503599627.370495']) spot.push([symbol, { side, type: 'MARKET', quoteOrderQty }])
      spot.push([symbol, { side, type: 'STOP_LOSS', trailingDelta: '2000', quantity: qMarket }])
    }
  }

  const failures: string[] = []
  let sent = 0
  const statuses = new Map<number, number>()
  const send = async (method: 'POST' | 'GET', path: string, params: P): Promise<void> => {
    // A new minute now and then: the order and weight limits are not what is tested here.
    if (++sent % 200 === 0) await rig.run({ type: 'Tick' }, 60_000)
    const q = new URLSearchParams({ ...params, timestamp: String(rig.ex.time) }).toString()
    const r = await rig.app.inject({ method, url: `${path}?${q}&signature=${hmac(whale.keys.secretKey, q)}`,
      headers: { 'x-mbx-apikey': whale.keys.apiKey }, remoteAddress: `10.1.${sent >> 8 & 255}.${sent & 255}` })
    statuses.set(r.statusCode, (statuses.get(r.statusCode) ?? 0) + 1)
    if (r.statusCode >= 500) failures.push(`${method} ${path}?${q} → ${r.statusCode} ${r.body}`)
  }
  for (const [symbol, p] of perp) await send('POST', '/fapi/v1/order', { symbol, ...p })
  for (const [symbol, p] of spot) await send('POST', '/api/v3/order', { symbol, ...p })
  for (const symbol of ['BTCUSDT', 'ETHUSDT']) {
    for (const [above, below] of [['1000000.00', '0.01'], ['0.02', '0.01']]) {
      for (const side of ['BUY', 'SELL']) {
        await send('POST', '/api/v3/orderList/oco', { symbol, side, quantity: '100', aboveType: 'LIMIT_MAKER', abovePrice: above,
          belowType: 'STOP_LOSS', belowStopPrice: below })
      }
    }
  }
  // Wallet moves at the ledger bound: past it they are refused (OVERFLOW), never a 5xx.
  for (const amount of ['4503599627.370496', '0.000001', '1000']) {
    for (const path of ['/sapi/v1/asset/transferQuoteFromSpotToPerp', '/sapi/v1/asset/transferQuoteFromPerpToSpot']) await send('POST', path, { amount })
    await send('POST', '/sapi/v1/futures/transfer', { asset: 'USDT', amount, type: '1' })
  }
  for (const path of ['/fapi/v2/account', '/fapi/v3/positionRisk', '/fapi/v1/openOrders', '/fapi/v2/balance', '/api/v3/account',
    '/api/v3/openOrders', '/api/v3/openOrderList']) await send('GET', path, {})
  t.comment(`statuses: ${JSON.stringify(Object.fromEntries(statuses))}`)
  t.ok((statuses.get(200) ?? 0) > 100, `${statuses.get(200)} of ${sent} answered 200`)
  t.same(failures, [], 'no 5xx')
  t.same(stateViolations(rig.ex.state), [], 'books, ownership, money, positions and stops hold')
})
