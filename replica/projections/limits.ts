// Bounds and retention windows of the history read models, in one place. Query maxima are
// the spec's; the gateway validates requests against them and the projections assert them.

const DAY_MS = 86_400_000

export const PROJECTION_LIMITS = {
  /** /fapi/v1/trades. */
  recentTradesMax: 1000,
  /** /fapi/v1/historicalTrades. */
  historicalTradesMax: 500,
  aggTradesMax: 1000,
  klinesMax: 1500,
  allOrdersMax: 1000,
  userTradesMax: 1000,
  incomeMax: 1000,
  walletHistoryMax: 1000,
  openInterestHistoryMax: 500,
  /** Trades of one market within this span of each other, at one price and side, aggregate. */
  aggregateWindowMs: 100,
  /** historicalTrades and income reach back three months (taken as 90 days). */
  tradeRetentionMs: 90 * DAY_MS,
  incomeRetentionMs: 90 * DAY_MS,
  /** Deposit and withdrawal history: default and maximum range. */
  walletRangeMs: 90 * DAY_MS,
  tickerWindowMs: DAY_MS,
  /** Open interest history is kept per bucket of this size (Binance's smallest period). */
  openInterestBucketMs: 300_000,
  /** Id-bearing rows (income, transfers, deposits) one entry may create: ids are seq × this + n. */
  rowsPerEntryMax: 65_536,
  /** Pending batch size (operations and orders) past which apply() refuses until a flush. */
  pendingOpsMax: 4_000_000,
  /** Pending batch size at which `flushDue` tells the apply loop to flush. */
  flushOpsHint: 100_000,
  /** Keys one prune() call deletes at most, so it never holds the store for long. */
  pruneKeysMax: 100_000,
  /** Rows read per iterator step. */
  scanChunk: 256,
} as const
