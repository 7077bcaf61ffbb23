// Per-account position settings: leverage per market and one-way ⇄ hedge mode (margin type:
// core/isolated.ts).

import { ensureHolding, ensureSub, findSub, validIssuer } from './accounts.js'
import type { ChangeLeverage, ChangePositionMode } from './commands.js'
import type { Result } from './events.js'
import { LIMITS } from './limits.js'
import { exposure, marginView, maxNotionalAt, NO_DELTA, positionInitialMargin, unrealizedPnl } from './margin.js'
import { marketOf } from './resting.js'
import { accept, reject } from './results.js'
import type { State } from './state.js'

export function changeLeverage(state: State, cmd: ChangeLeverage, time: number): Result {
  const m = marketOf(state, cmd.marketId)
  if (m === undefined) return reject('MARKET_UNKNOWN')
  if (!validIssuer(cmd)) return reject('ACCOUNT_INVALID')
  const lev = cmd.leverage
  if (!Number.isInteger(lev) || lev < 1 || lev > LIMITS.leverageMax || lev > m.maxLeverage) return reject('LEVERAGE_INVALID')
  const existing = findSub(state, cmd)
  const h = existing?.perp.get(m.marketId)
  if (existing && h && lev !== h.leverage) {
    const exp = exposure(m, h, existing.dualSide, NO_DELTA)
    if (exp * m.quotePerTickLot > maxNotionalAt(m, lev)) return reject('POSITION_LIMIT')
    if (lev < h.leverage && marginView(state, existing, m.marketId, NO_DELTA, lev).available < 0) {
      return reject('MARGIN_INSUFFICIENT')
    }
    // An isolated position must still hold its initial margin at the lower leverage.
    if (lev < h.leverage && h.marginType === 'ISOLATED') {
      for (const p of [h.both, h.long, h.short]) {
        if (p.qtyLots === 0) continue
        if (p.isolatedWallet + unrealizedPnl(m, p) < positionInitialMargin(m, p, lev)) return reject('MARGIN_INSUFFICIENT')
      }
    }
  }
  const sub = ensureSub(state, cmd)
  ensureHolding(sub, m).leverage = lev
  return accept([{ type: 'leverage', account: sub.address, sub: sub.sub, marketId: m.marketId, leverage: lev,
    maxNotional: maxNotionalAt(m, lev), time }])
}

export function changePositionMode(state: State, cmd: ChangePositionMode, time: number): Result {
  if (!validIssuer(cmd)) return reject('ACCOUNT_INVALID')
  if (typeof cmd.dualSide !== 'boolean') return reject('COMMAND_INVALID')
  const existing = findSub(state, cmd)
  if ((existing?.dualSide ?? false) === cmd.dualSide) return reject('POSITION_MODE_UNCHANGED')
  if (existing) {
    for (const o of existing.orders.values()) if (o.market.kind === 'PERP') return reject('POSITION_MODE_OPEN_ORDERS')
    for (const h of existing.perp.values()) {
      if (h.both.qtyLots !== 0 || h.long.qtyLots !== 0 || h.short.qtyLots !== 0) return reject('POSITION_MODE_OPEN_POSITION')
    }
  }
  const sub = ensureSub(state, cmd)
  sub.dualSide = cmd.dualSide
  return accept([{ type: 'positionMode', account: sub.address, sub: sub.sub, dualSide: cmd.dualSide, time }])
}
