// What the exchange did, for /metrics: counted from each committed entry's command and result
// (commands by type and outcome, refusals by the core's code, trades and volume per market,
// liquidation and ADL orders, margin calls), and read from the state at each scrape (the
// insurance fund per asset, open interest per perpetual). An operator's dashboard shows order
// flow, refusal spikes and risk beside the node's health; every node counts what it applies, so
// the counters of nodes started together agree.

import type { Command } from '../core/commands.js'
import type { Result } from '../core/events.js'
import type { Market, State } from '../core/state.js'
import type { Committed } from '../replica/sequencer.js'
import type { Gauges } from './metrics.js'

/** Per market, since start: sums in lots and tick·lots (floats: a dashboard's figures), scaled when shown. */
interface MarketActivity {
  trades: number
  lots: number
  tickLots: number
  liquidations: number
  adl: number
}

/** Counts what committed entries did; `gauges()` shows the counts and the state's risk figures. */
export class TradingMetrics {
  private readonly commands = new Map<string, { accepted: number; rejected: number }>()
  private readonly refusals = new Map<string, number>()
  /** By market id. */
  private readonly markets: (MarketActivity | undefined)[] = []
  private marginCalls = 0

  constructor(private readonly state: () => State) {}

  /** The listener for the node's committed batches. */
  readonly committed = (c: Committed): void => {
    for (let i = 0; i < c.entries.length; i++) this.count(c.entries[i]!.command, c.results[i]!)
  }

  private count(command: Command, result: Result): void {
    let n = this.commands.get(command.type)
    if (n === undefined) this.commands.set(command.type, n = { accepted: 0, rejected: 0 })
    if (result.ok) n.accepted++
    else {
      n.rejected++
      this.refusals.set(result.code, (this.refusals.get(result.code) ?? 0) + 1)
    }
    const events = result.events
    for (let i = 0; i < events.length; i++) {
      const e = events[i]!
      if (e.type === 'trade' || e.type === 'spotTrade') {
        // An ADL fill closes positions off the book: counted as its ADL order, not as a trade.
        if (e.type === 'trade' && e.adl === true) continue
        const a = this.activity(e.marketId)
        a.trades++
        a.lots += e.qtyLots
        a.tickLots += e.qtyLots * e.priceTicks
      } else if (e.type === 'forceOrder') {
        const a = this.activity(e.marketId)
        if (e.autoCloseType === 'ADL') a.adl++
        else a.liquidations++
      } else if (e.type === 'marginCall') {
        this.marginCalls++
      }
    }
  }

  private activity(marketId: number): MarketActivity {
    return this.markets[marketId] ??= { trades: 0, lots: 0, tickLots: 0, liquidations: 0, adl: 0 }
  }

  readonly gauges: Gauges = () => {
    const s = this.state()
    const out: Record<string, number> = {}
    for (const [type, n] of this.commands) {
      out[`exchange_commands_total{command="${type}",outcome="accepted"}`] = n.accepted
      out[`exchange_commands_total{command="${type}",outcome="rejected"}`] = n.rejected
    }
    for (const [code, n] of this.refusals) out[`exchange_command_rejections_total{code="${code}"}`] = n
    const markets: [Market, MarketActivity][] = []
    this.markets.forEach((a, id) => { const m = s.markets[id]; if (a !== undefined && m !== undefined) markets.push([m, a]) })
    const base = (m: Market, lots: number): number => lots * m.stepSize / 10 ** m.quantityPrecision
    for (const [m, a] of markets) out[`exchange_trades_total{symbol="${m.symbol}"}`] = a.trades
    for (const [m, a] of markets) out[`exchange_traded_base_total{symbol="${m.symbol}"}`] = base(m, a.lots)
    for (const [m, a] of markets) out[`exchange_traded_quote_total{symbol="${m.symbol}"}`] = base(m, a.tickLots) * m.tickSize / 10 ** m.pricePrecision
    for (const [m, a] of markets) if (m.kind === 'PERP') out[`exchange_liquidation_orders_total{symbol="${m.symbol}"}`] = a.liquidations
    for (const [m, a] of markets) if (m.kind === 'PERP') out[`exchange_adl_orders_total{symbol="${m.symbol}"}`] = a.adl
    out.exchange_margin_calls_total = this.marginCalls
    for (const m of s.markets) {
      if (m?.kind === 'PERP') out[`exchange_open_interest{symbol="${m.symbol}"}`] = base(m, m.openInterestLots)
    }
    for (const [asset, units] of s.insurance) out[`exchange_insurance_fund{asset="${asset}"}`] = units / 10 ** (s.assets.get(asset)?.scale ?? 0)
    return out
  }
}
