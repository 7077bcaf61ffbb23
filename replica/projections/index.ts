// The history read models (DESIGN.md §5): derived from core events into LevelDB sublevels,
// rebuildable from the log. Writers apply; the gateway only reads.

export { createProjections, PROJECTED_EVENTS, type ProjectionsOptions } from './projections.js'
/** The projections as readers and feeders see them, in this thread or in a worker's. */
export type { ProjectionsApi as Projections } from './projections.js'
export { startProjectionsWorker, ProjectionsClient } from './projections-client.js'
export type * from './records.js'
export { INCOME_TYPE_CODES } from './records.js'
export { KLINE_INTERVALS, PERP_INTERVAL_COUNT, isKlineInterval, isPerpKlineInterval, bucketOpen, bucketClose, zonedBucketOpen, zonedBucketClose, type KlineInterval } from './intervals.js'
export { PROJECTION_LIMITS } from '../../core/limits.js'
export { walletRange, type WalletQuery } from './wallet-queries.js'
export type { TradesQuery, AggTradesQuery, RangeQuery } from './market-queries.js'
export type { AllOrdersQuery, UserTradesQuery, IncomeQuery } from './account-queries.js'
export type { TimeRange } from './time-range.js'
export type { Page, PageArgs, PageQuery } from './pages.js'
export type { ProjectionsParent } from './stores.js'
export type { FundingRateRecord, FundingRateQuery } from './funding.js'
export type { OrderListRecord, OrderListQuery } from './order-lists.js'
export type { PriceKind, PriceKlineRecord, PriceKlineQuery } from './price-klines.js'
