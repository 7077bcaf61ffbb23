// Every bound of the core in one place (DESIGN.md §9). Code that would pass one refuses.

export const LIMITS = {
  assetsMax: 64,
  marketsMax: 256,
  subAccountsMax: 32,
  bracketsMax: 16,
  /** Open orders of one sub-account in one market (Binance MAX_NUM_ORDERS is 200). */
  openOrdersPerMarketMax: 200,
  /** Open orders of one sub-account across all markets. */
  openOrdersPerAccountMax: 1000,
  /** Resting orders in one book. */
  ordersPerBookMax: 2_000_000,
  /** Distinct price levels on one side of one book. */
  levelsPerSideMax: 200_000,
  /** Maker orders one taker may meet in one command; the rest of the taker expires. */
  fillsPerCommandMax: 2_000,
  /** Amendments of one order (Binance: at most 10,000; the next is -5026). */
  amendmentsPerOrderMax: 10_000,
  clientOrderIdLengthMax: 36,
  assetNameLengthMax: 16,
  symbolLengthMax: 32,
  ledgerScaleMax: 18,
  precisionMax: 12,
  leverageMax: 125,
  /** Largest goodTillDate Binance accepts (9999-12-31T23:59:59Z). */
  goodTillDateMax: 253402300799000,
  /** Entries of orders that left before their goodTillDate, beyond twice the live ones, before a market's GTD queue is compacted. */
  gtdStaleMax: 1024,
  /** Waiting conditional orders per sub-account and market (Binance MAX_NUM_ALGO_ORDERS, -4045). */
  conditionalOrdersPerMarketMax: 10,
  /** A spot trailing stop's trailingDelta, BIPS, either side (Binance's TRAILING_DELTA filter: 10..2000). */
  trailingDeltaMinBips: 10,
  trailingDeltaMaxBips: 2_000,
  /** Parts of a spot iceberg order, ceil(quantity / icebergQty) (Binance's ICEBERG_PARTS filter). */
  icebergPartsMax: 10,
  /** Open iceberg orders per sub-account and spot market (Binance's MAX_NUM_ICEBERG_ORDERS, its documented 5). */
  icebergOrdersPerMarketMax: 5,
  /** A spot pegged order's pegOffsetValue: levels deeper than the best (Binance's documented 100 at most). */
  pegOffsetLevelsMax: 100,
  /** A spot order's strategyType: Binance reserves the values below 1,000,000; an INT, so at most 2^31 − 1. */
  strategyTypeMin: 1_000_000,
  strategyTypeMax: 2_147_483_647,
  /** A spot order's strategyId (Binance's is a LONG): kept exact as a number, so at most 2^53 − 1. */
  strategyIdMax: Number.MAX_SAFE_INTEGER,
  /** Executing OCO order lists per sub-account and market (Binance MAX_NUM_ORDER_LISTS). */
  orderListsPerMarketMax: 20,
  /** Dead entries beyond the live ones before a trigger heap is rebuilt (core/trigger-index.ts). */
  triggerStaleMax: 1024,
  /** Rounds of triggers one price move may cascade through; each conditional fires at most once, so this only guards. */
  triggerRoundsMax: 100_000,
  /**
   * Liquidations (cross accounts or isolated positions) one price move carries out; the rest
   * stay flagged in liquidation and go on at the market's next move (core/liquidation/sweep.ts).
   */
  liquidationsPerMoveMax: 1_000,
  /** Dead entries beyond twice the holders before a liquidation trigger heap is rebuilt (core/liquidation/watch.ts). */
  liquidationWatchStaleMax: 1024,
  /** Longest countdownCancelAll countdown (Binance sets none; a day, so a deadline stays near). */
  countdownMaxMs: 86_400_000,
  /** A GTD order must live at least this long after placement (Binance: 600 s). */
  goodTillDateMinAheadMs: 600_000,
  pendingWithdrawalsPerAccountMax: 100,
  /** A session lives at most this long (API.md: 30 days). */
  sessionLifetimeMaxMs: 30 * 86_400_000,
  /** An RSA public key's PEM text (a 4096-bit SPKI key is 800 characters). */
  rsaPublicKeyPemLengthMax: 1_024,
  /** A listen key lives this long after its creation or last keep-alive (Binance: 60 minutes). */
  listenKeyTtlMs: 60 * 60_000,
  withdrawRefLengthMax: 64,
  depositRefLengthMax: 100,
  /** The deepest confirmation count a pending deposit note may name. */
  depositConfirmationsMax: 10_000,
  feePpmMax: 100_000,
  /** Ledger amounts stay well inside the exact range of a JS number. */
  ledgerAmountMax: 2 ** 52,
  /** An oracle price older than this against the sequencer's time is stale. */
  oraclePriceMaxAgeMs: 60_000,
  /** An oracle price may be this far ahead of the sequencer's time (clock skew). */
  oraclePriceMaxAheadMs: 5_000,
  /** Oracle prices, 1e-8 units: at most 10^7 quote coins per base coin. */
  oraclePriceE8Max: 10 ** 15,
  /** Longest funding interval (Binance offers 1, 4 and 8 h). */
  fundingIntervalMaxMs: 24 * 3_600_000,
  /** A premium sample is clamped to ±50 %, which keeps a day's weighted sum exact. */
  premiumE8Max: 50_000_000,

  // Replication layer (replica/), stated here so every bound lives in one place.
  /** Commands waiting for the sequencer; past this, submitters are told it is overloaded. */
  ingressQueueMax: 100_000,
  /**
   * Commands in one group commit. Everything applied and not yet durable (up to two batches)
   * is alive in the young generation, and each scavenge copies it: at 4,096 the saturated
   * sequencer spent ~17% of its time in GC against ~11% at 1,024, and sequenced ~10% fewer
   * commands per second (docs/BENCHMARKS.md, session 13). An fsync here takes ~0.1 ms, so
   * smaller writes cost little; order flow rarely fills even one batch.
   */
  batchMax: 1_024,
  /** Encoded size of one command, bytes. */
  commandBytesMax: 16_384,
  /** Entries in one replication message. */
  replicationBatchMax: 4_096,
  /** Bytes buffered for one follower connection before it is dropped. */
  followerBufferBytesMax: 64 * 1024 * 1024,
} as const

/** Bounds of the replica's log and snapshot stores. */
export const REPLICA_LIMITS = {
  /** Entries in one appended batch (one group commit, one LevelDB value). */
  batchEntriesMax: 10_000,
  /** Entries one read() returns. */
  readEntriesMax: 100_000,
  /** Batches open() verifies at the tail even when the newest ones are sound. */
  tailCheckBatches: 4,
  /** Batches open() may drop from a torn tail; more than that is corruption, not a torn write, and open() refuses. */
  tailRepairBatchesMax: 16,
  /** Snapshots the snapshot store keeps at most; save() prunes past it. */
  snapshotsKeptMax: 64,
  /** Bytes of stored batches read ahead of a replay and not yet taken; reading pauses past it. */
  readAheadBytesMax: 8 * 1024 * 1024,
  /** Snapshots a node keeps after each checkpoint. */
  snapshotsKept: 3,
  /** Command key sets a replay builds by a compiled literal (replica/body-tape.ts); past it, field by field. */
  tapeKeySetsMax: 256,
  /** Fields of a command the replay's tape takes (no command has half as many); a larger map is left to msgpackr. */
  tapeFieldsMax: 64,
} as const

const DAY_MS = 86_400_000

/** Bounds and retention windows of the history read models (replica/projections). */
export const PROJECTION_LIMITS = {
  /** /fapi/v1/trades. */
  recentTradesMax: 1000,
  /** /api/v3/historicalTrades (Binance spot's; /fapi/v1/historicalTrades asks for 500 at most). */
  historicalTradesMax: 1000,
  aggTradesMax: 1000,
  klinesMax: 1500,
  allOrdersMax: 1000,
  userTradesMax: 1000,
  incomeMax: 1000,
  /** /fapi/v1/income's `page`: the rows it reaches, pages before it and its own (each page walks those before it). */
  incomePagedMax: 10_000,
  walletHistoryMax: 1000,
  /** Open interest changes read at once: a month of 5-minute buckets (8,640), as /futures/data reads its whole reach. */
  openInterestHistoryMax: 9_000,
  /** /fapi/v1/fundingRate. */
  fundingRateHistoryMax: 1000,
  /** /fapi/v1/forceOrders (Binance: default 50, max 100). */
  forceOrdersMax: 100,
  /** /fapi/v1/forceOrders without startTime searches this far back from endTime (Binance: 7 days). */
  forceOrdersWindowMs: 7 * DAY_MS,
  /** Forced orders are kept (and reachable) this long, as the other account histories. */
  forceOrderRetentionMs: 90 * DAY_MS,
  /** /fapi/v1/positionMargin/history (Binance's default 500; its maximum unstated). */
  positionMarginHistoryMax: 1000,
  /** Position margin history reaches back 30 days, and one query spans at most that. */
  positionMarginRetentionMs: 30 * DAY_MS,
  /** /fapi/v1/orderAmendment (Binance: default 50, max 100). */
  orderAmendmentsMax: 100,
  /** /api/v3/myPreventedMatches (Binance: default 500, max 1000). */
  preventedMatchesMax: 1000,
  /** GET /api/v3/allOrderList rows per request. */
  orderListsMax: 1000,
  preventedMatchRetentionMs: 90 * DAY_MS,
  /** /api/v3/order/amendments (Binance: default 500, max 1000). */
  spotOrderAmendmentsMax: 1000,
  /** Order modify history reaches back three months (taken as 90 days). */
  orderAmendmentRetentionMs: 90 * DAY_MS,
  /** Trades of one market within this span of each other, at one price and side, aggregate. */
  aggregateWindowMs: 100,
  /** historicalTrades and income reach back three months (taken as 90 days). */
  tradeRetentionMs: 90 * DAY_MS,
  /** Spot 1s klines (up to one per trade) are kept as long as the trades. */
  secondKlineRetentionMs: 90 * DAY_MS,
  incomeRetentionMs: 90 * DAY_MS,
  /**
   * Order history (Binance USDⓈ-M's rule): an order that ended CANCELED or EXPIRED with nothing
   * filled is found for 3 days after it was created, any other for 90.
   */
  perpUnfilledOrderRetentionMs: 3 * DAY_MS,
  perpOrderRetentionMs: 90 * DAY_MS,
  /** Spot: an order that ended with nothing filled is found for 90 days; one that traded stays, as its trades do. */
  spotUnfilledOrderRetentionMs: 90 * DAY_MS,
  /** USDⓈ-M user trades reach back 6 months (taken as 180 days); spot's are kept, as Binance's. */
  perpUserTradeRetentionMs: 180 * DAY_MS,
  /** /fapi/v1/allOrders and allAlgoOrders: at most 7 days between startTime and endTime, the last 7 by default. */
  perpOrderHistoryWindowMs: 7 * DAY_MS,
  /** /api/v3/allOrders: at most 24 hours between startTime and endTime. */
  spotOrderHistoryWindowMs: DAY_MS,
  /** Deposit and withdrawal history: default and maximum range. */
  walletRangeMs: 90 * DAY_MS,
  tickerWindowMs: DAY_MS,
  /** The longest rolling-window ticker (spot GET /api/v3/ticker windowSize 7d). */
  tickerWindowMaxMs: 7 * DAY_MS,
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
