// Keeps a running node's history read models within their windows (--prune-interval-ms):
// soon after start and then every interval, the projections delete what no query shows any
// more (trades and income past three months, ended orders past the venue's order-history rule:
// replica/projections/order-retention.ts). Without it they grow for good: a bot placing and
// canceling orders leaves a record of each. A pass deletes at most the projections' budget per
// call (PROJECTION_LIMITS.pruneKeysMax) and calls again after a pause while there is more, so
// a first pass over a long history never holds their thread for long.

import { PROJECTION_LIMITS } from '../core/limits.js'
import type { State } from '../core/state.js'
import type { RetainedMarket } from '../replica/projections/order-retention.js'
import type { Logger } from '../replica/node.js'

export interface PrunedHistory {
  prune(nowMs?: number, markets?: readonly RetainedMarket[]): Promise<number>
}

export interface HistoryUpkeepOptions {
  projections: PrunedHistory
  /** The markets whose orders are kept by their venue's rule (every market the state lists). */
  markets: () => readonly RetainedMarket[]
  intervalMs: number
  /** The first pass, this long after start (default: a tenth of the interval, at most a minute). */
  firstMs?: number
  /** Between the calls of one pass while each deletes its whole budget (default 200 ms). */
  pauseMs?: number
  logger?: Logger
}

/** Every market the state lists, with the venue whose order-history rule it keeps. */
export function retainedMarkets(state: State): RetainedMarket[] {
  const out: RetainedMarket[] = []
  // Indexed by market id, from 1.
  for (const m of state.markets) if (m !== undefined) out.push({ marketId: m.marketId, spot: m.kind === 'SPOT' })
  return out
}

export class HistoryUpkeep {
  /** Rows deleted since start (exchange_history_rows_pruned_total). */
  rowsPruned = 0
  private timer: NodeJS.Timeout | null = null
  private running: Promise<void> = Promise.resolve()
  private closed = false

  constructor(private readonly o: HistoryUpkeepOptions) {
    this.schedule(o.firstMs ?? Math.min(60_000, Math.floor(o.intervalMs / 10)))
  }

  /** One pass now (the timer's, and tests'): calls until a call deletes less than its budget. */
  pass(): Promise<void> {
    const run = this.running.then(() => this.prune())
    this.running = run.catch(() => {})
    return run
  }

  async close(): Promise<void> {
    this.closed = true
    if (this.timer !== null) clearTimeout(this.timer)
    await this.running
  }

  private schedule(ms: number): void {
    if (this.closed) return
    this.timer = setTimeout(() => {
      this.pass().catch((err: unknown) => this.o.logger?.warn({ err: String(err) }, 'pruning the history read models failed; trying again next interval'))
        .finally(() => this.schedule(this.o.intervalMs))
    }, ms)
    this.timer.unref()
  }

  private async prune(): Promise<void> {
    let total = 0
    for (;;) {
      const n = await this.o.projections.prune(undefined, this.o.markets())
      total += n
      this.rowsPruned += n
      if (n < PROJECTION_LIMITS.pruneKeysMax || this.closed) break
      await new Promise((resolve) => setTimeout(resolve, this.o.pauseMs ?? 200).unref())
    }
    if (total > 0) this.o.logger?.info({ rows: total }, 'pruned the history read models')
  }
}
