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
