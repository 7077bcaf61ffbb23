// The WebSocket APIs for an account at the core's edges, as test/gateway/extreme-accounts.test.ts
// does for REST: the ledger bound in every wallet behind small positions (a short liquidated only
// far away), spot orders resting at the highest price. Every method of /ws-fapi/v1 and
// /ws-api/v3, signed, with each symbol and without: never a 5xx.

import t from 'tap'
import { LIMITS } from '../../core/limits.js'
import { METHODS } from '../../gateway/ws-api/methods.js'
import { SPOT_METHODS } from '../../gateway/ws-api/spot-methods.js'
import { BTCSPOT, ETHPERP } from '../helpers/exchange.js'
import { limit, market } from '../helpers/commands.js'
import { signed, wsApiRig } from './ws-api-rig.js'

const MAX = LIMITS.ledgerAmountMax
const OTHER = '0x' + '7'.repeat(40)

t.test('every WebSocket API method answers an account at the edges without a 5xx', async (t) => {
  const { rig, open, keys, address } = await wsApiRig(t, { permissions: 'TRADE,USER_DATA,WITHDRAW', messagesPerSecond: 1_000_000 })
  const run = async (c: Parameters<typeof rig.run>[0]): Promise<void> => {
    const r = await rig.run(c)
    if (!r.ok) throw new Error(`${c.type} refused: ${r.code}`)
  }
  await run({ type: 'Deposit', account: address, sub: 0, asset: 'USDT', amount: MAX - 100_000_000_000, wallet: 'PERP', ref: 'top-up' })
  for (const asset of ['USDT', 'BTC', 'ETH']) await run({ type: 'Deposit', account: address, sub: 0, asset, amount: MAX, wallet: 'SPOT', ref: `s-${asset}` })
  await run({ type: 'Deposit', account: OTHER, sub: 0, asset: 'USDT', amount: 10_000_000_000, wallet: 'PERP', ref: 'other' })
  await run(limit(OTHER, 'BUY', 300_000, 4))
  await run(market(address, 'SELL', 4))
  await run(limit(OTHER, 'SELL', 200_000, 10, { marketId: ETHPERP }))
  await run(market(address, 'BUY', 10, { marketId: ETHPERP }))
  await run(limit(address, 'SELL', 100_000_000, 10_000_000, { marketId: BTCSPOT }))

  const failures: string[] = []
  let id = 0
  let answered = 0
  for (const [path, table, symbols] of [['/ws-fapi/v1', METHODS, ['BTCUSDTPERP', 'ETHUSDTPERP']],
    ['/ws-api/v3', SPOT_METHODS, ['BTCUSDT', 'ETHUSDT']]] as const) {
    const ws = await open(path)
    for (const method of Object.keys(table).filter((m) => m !== 'session.logout')) {
      for (const variant of [...symbols.map((symbol) => ({ symbol })), {}]) {
        // A new minute now and then: the weight limit is not what is tested here.
        if (rig.app.weights.used('127.0.0.1') > 1500) await rig.run({ type: 'Tick' }, 60_000)
        ws.send(JSON.stringify({ id: ++id, method, params: signed(rig, keys, variant) }))
        const r = await ws.next((m) => m !== null && typeof m === 'object' && 'status' in m) as { status: number; error?: unknown }
        if (r.status === 200) answered++
        if (r.status >= 500) failures.push(`${path} ${method} ${JSON.stringify(variant)} → ${r.status} ${JSON.stringify(r.error)}`)
      }
    }
  }
  t.ok(answered > 50, `${answered} of ${id} answered 200`)
  t.same(failures, [], 'no 5xx')
})
