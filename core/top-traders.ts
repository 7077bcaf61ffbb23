// Binance's "top trader" statistics of a perpetual (/futures/data/topLongShortAccountRatio and
// topLongShortPositionRatio): among the sub-accounts holding a position in the market, the
// fifth with the highest margin balance, how many are net long and net short, and how many
// lots their long and short positions hold. The margin balance needs the state (wallets and
// every position's PnL at the marks), which no event carries, so the core takes the sample:
// at the first Tick of each 5-minute bucket (core/price-tick.ts), on the prices event.

import type { TopTradersFields } from './events.js'
import { holdingPnl, isolatedWalletTotal } from './margin.js'
import type { PerpMarket, State, SubAccount } from './state.js'

/** The statistics' bucket: Binance's shortest period. */
export const TOP_TRADERS_BUCKET_MS = 5 * 60_000
/** The top fifth, as Binance's "top 20 % of users by margin balance". */
const TOP_SHARE_DIVISOR = 5

/** A sub-account's margin balance: perp wallet, isolated wallets, every position's PnL at the marks. */
function marginBalance(state: State, sub: SubAccount): number {
  let n = sub.perpWallet + isolatedWalletTotal(sub)
  for (const h of sub.perp.values()) n += holdingPnl(state.markets[h.marketId] as PerpMarket, h, sub.dualSide)
  return n
}

export function topTraders(state: State, m: PerpMarket): TopTradersFields {
  const holders: { sub: SubAccount; balance: number; lots: number }[] = []
  for (const account of state.accounts.values()) {
    for (const sub of account.subs) {
      const h = sub?.perp.get(m.marketId)
      if (sub === undefined || h === undefined) continue
      // Signed lots: one-way BOTH, hedge LONG (≥ 0) and SHORT (≤ 0).
      const lots = h.both.qtyLots + h.long.qtyLots + h.short.qtyLots
      if (h.both.qtyLots === 0 && h.long.qtyLots === 0 && h.short.qtyLots === 0) continue
      holders.push({ sub, balance: marginBalance(state, sub), lots })
    }
  }
  // Highest balance first; ties by address, then sub-account, so every replica ranks alike.
  holders.sort((a, b) => b.balance - a.balance || (a.sub.address < b.sub.address ? -1 : a.sub.address > b.sub.address ? 1 : 0)
    || a.sub.sub - b.sub.sub)
  const top = holders.slice(0, Math.ceil(holders.length / TOP_SHARE_DIVISOR))
  const out: TopTradersFields = { longAccounts: 0, shortAccounts: 0, longLots: 0, shortLots: 0 }
  for (const { sub, lots } of top) {
    if (lots > 0) out.longAccounts += 1
    else if (lots < 0) out.shortAccounts += 1
    const h = sub.perp.get(m.marketId)!
    for (const q of [h.both.qtyLots, h.long.qtyLots, h.short.qtyLots]) {
      if (q > 0) out.longLots += q
      else out.shortLots -= q
    }
  }
  return out
}
