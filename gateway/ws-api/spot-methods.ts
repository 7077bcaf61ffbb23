// The spot WebSocket API's methods (/ws-api/v3): the session, spot trading and queries (each
// the spot REST route's own code, as on the futures API), the spot listen keys, and the user
// data stream subscriptions that deliver the spot stream's events on the connection itself
// (subscriptions.ts), as ccxt's and the binance package's spot clients use them.

import { ApiError, permissionDenied } from '../errors.js'
import { spotCommissionBody } from '../format-market.js'
import { idParam, looseBool, spotParam } from '../market-params.js'
import { spotAggTradesPage, spotDepthBody, spotDepthWeight, spotHistoricalTradesPage, spotKlinesPage, spotKlinesWeight, spotRecentTradesPage,
  spotTicker24h, spotTicker24hWeight } from '../routes/spot-market.js'
import { pageResult } from '../pages.js'
import { spotExchangeInfoBody } from '../routes/general.js'
import { spotMyFiltersBody } from '../routes/symbols.js'
import { spotAllocationsFrom } from '../routes/account-status.js'
import { spotTradingDayTicker, spotWindowTicker, spotWindowTickerWeight } from '../routes/spot-tickers.js'
import { spotAmendFrom, spotAmendmentsFrom } from '../routes/spot-amend.js'
import { spotAllOcoFrom, spotOcoCancelFrom, spotOcoPlaceFrom, spotOcoQueryFrom, spotOpenOcoFrom, spotOtoPlaceFrom } from '../routes/spot-order-lists.js'
import { spotAllOrdersPage, spotAvgPriceBody, spotBookTickerBody, spotMyTradesPage, spotMyTradesWeight, spotPreventedMatchesFrom,
  spotPreventedMatchesWeight, spotPriceBody, spotTickerWeight } from '../routes/spot-queries.js'
import { spotAccountFrom, spotCancelAllFrom, spotCancelFrom, cancelsPastOrderLimit, spotCancelReplaceFrom, spotOpenOrdersFrom, spotOpenOrdersWeight,
  spotOrderLimitsFrom, spotPlaceFrom, spotQueryFrom, spotTestFrom } from '../routes/spot-trade.js'
import { listenKeyMethods, SESSION_METHODS, type Method, type MethodEnv } from './methods.js'
import type { StreamSubscriptions } from './subscriptions.js'
import { executionRulesBody, executionRulesWeight, referenceCalculationBody, referencePriceBody } from '../reference-price.js'

function subscriptionsOf(env: MethodEnv): StreamSubscriptions {
  if (env.subscriptions === undefined) throw new ApiError(400, -1020, 'This operation is not supported.')
  return env.subscriptions
}

export const SPOT_METHODS: Record<string, Method> = {
  ...SESSION_METHODS,
  ...listenKeyMethods(2),

  ping: { security: 'NONE', weight: 1, run: () => ({}) },
  time: { security: 'NONE', weight: 1, run: (env) => ({ serverTime: env.ctx.now() }) },

  'order.place': { security: 'TRADE', weight: 1, countsOrder: true, run: (env, a) => spotPlaceFrom(env.ctx, a!) },
  'order.cancelReplace': {
    security: 'TRADE', weight: 1, countsOrder: true, pastOrderLimit: cancelsPastOrderLimit,
    run: (env, a, _p, pastOrderLimit) => spotCancelReplaceFrom(env.ctx, a!, pastOrderLimit),
  },
  'order.test': {
    security: 'TRADE', weight: (p) => looseBool(p, 'computeCommissionRates') === true ? 20 : 1,
    run: (env, a) => spotTestFrom(env.ctx, a!),
  },
  'order.status': { security: 'USER_DATA', weight: 4, run: (env, a) => spotQueryFrom(env.ctx, a!) },
  'order.cancel': { security: 'TRADE', weight: 1, run: (env, a) => spotCancelFrom(env.ctx, a!) },
  'order.amend.keepPriority': { security: 'TRADE', weight: 4, run: (env, a) => spotAmendFrom(env.ctx, a!) },
  'order.amendments': { security: 'USER_DATA', weight: 4, run: (env, a) => spotAmendmentsFrom(env.ctx, a!) },
  'openOrders.status': { security: 'USER_DATA', weight: spotOpenOrdersWeight, run: (env, a) => spotOpenOrdersFrom(env.ctx, a!) },
  'openOrders.cancelAll': { security: 'TRADE', weight: 1, run: (env, a) => spotCancelAllFrom(env.ctx, a!) },
  // OCO order lists (routes/spot-order-lists.ts); orderList.place is the older order/oco form.
  'orderList.place.oco': { security: 'TRADE', weight: 1, countsOrder: 2, run: (env, a) => spotOcoPlaceFrom(env.ctx, a!) },
  'orderList.place': { security: 'TRADE', weight: 1, countsOrder: 2, run: (env, a) => spotOcoPlaceFrom(env.ctx, a!, true) },
  'orderList.place.oto': { security: 'TRADE', weight: 1, countsOrder: 2, run: (env, a) => spotOtoPlaceFrom(env.ctx, a!, false) },
  'orderList.place.otoco': { security: 'TRADE', weight: 1, countsOrder: 3, run: (env, a) => spotOtoPlaceFrom(env.ctx, a!, true) },
  'orderList.place.opo': { security: 'TRADE', weight: 1, countsOrder: 2, run: (env, a) => spotOtoPlaceFrom(env.ctx, a!, false, true) },
  'orderList.place.opoco': { security: 'TRADE', weight: 1, countsOrder: 3, run: (env, a) => spotOtoPlaceFrom(env.ctx, a!, true, true) },
  'orderList.cancel': { security: 'TRADE', weight: 1, run: (env, a) => spotOcoCancelFrom(env.ctx, a!) },
  'orderList.status': { security: 'USER_DATA', weight: 4, run: (env, a) => spotOcoQueryFrom(env.ctx, a!) },
  'openOrderLists.status': { security: 'USER_DATA', weight: 6, run: (_env, a) => spotOpenOcoFrom(a!) },
  allOrderLists: { security: 'USER_DATA', weight: 20, run: (env, a) => spotAllOcoFrom(env.ctx, a!) },
  allOrders: { security: 'USER_DATA', weight: 20, run: (env, a) => pageResult(env, spotAllOrdersPage(env.ctx, a!)) },
  myTrades: { security: 'USER_DATA', weight: spotMyTradesWeight, run: (env, a) => pageResult(env, spotMyTradesPage(env.ctx, a!)) },
  myPreventedMatches: { security: 'USER_DATA', weight: spotPreventedMatchesWeight, run: (env, a) => spotPreventedMatchesFrom(env.ctx, a!) },
  'account.status': { security: 'USER_DATA', weight: 20, run: (env, a) => spotAccountFrom(env.ctx, a!) },
  'account.commission': {
    security: 'USER_DATA', weight: 20,
    run: (env, a) => spotCommissionBody(spotParam(env.ctx.state(), a!.params), false),
  },
  'account.rateLimits.orders': {
    security: 'USER_DATA', weight: 40,
    run: (env, a) => spotOrderLimitsFrom(env.orders, a!),
  },
  myAllocations: { security: 'USER_DATA', weight: 20, run: (env, a) => spotAllocationsFrom(env.ctx, a!.params) },
  myFilters: {
    security: 'USER_DATA', weight: 40,
    run: (env, a) => {
      spotParam(env.ctx.state(), a!.params)
      return spotMyFiltersBody()
    },
  },

  depth: { security: 'NONE', weight: spotDepthWeight, run: (env, _a, p) => spotDepthBody(env.ctx, p) },
  'ticker.price': { security: 'NONE', weight: spotTickerWeight, run: (env, _a, p) => spotPriceBody(env.ctx, p) },
  'ticker.book': { security: 'NONE', weight: spotTickerWeight, run: (env, _a, p) => spotBookTickerBody(env.ctx, p) },
  avgPrice: { security: 'NONE', weight: 2, run: (env, _a, p) => spotAvgPriceBody(env.ctx, p) },
  executionRules: { security: 'NONE', weight: executionRulesWeight, run: (env, _a, p) => executionRulesBody(env.ctx, p) },
  referencePrice: { security: 'NONE', weight: 2, run: (env, _a, p) => referencePriceBody(env.ctx, p) },
  'referencePrice.calculation': { security: 'NONE', weight: 2, run: (env, _a, p) => referenceCalculationBody(env.ctx, p) },
  exchangeInfo: { security: 'NONE', weight: 20, run: (env, _a, p) => spotExchangeInfoBody(env.ctx, p) },
  ticker: { security: 'NONE', weight: spotWindowTickerWeight, run: (env, _a, p) => spotWindowTicker(env.ctx, p) },
  'ticker.tradingDay': { security: 'NONE', weight: spotWindowTickerWeight, run: (env, _a, p) => spotTradingDayTicker(env.ctx, p) },
  'ticker.24hr': { security: 'NONE', weight: spotTicker24hWeight, run: (env, _a, p) => spotTicker24h(env.ctx, p) },
  'trades.recent': { security: 'NONE', weight: 25, run: (env, _a, p) => pageResult(env, spotRecentTradesPage(env.ctx, p)) },
  'trades.historical': { security: 'NONE', weight: 25, run: (env, _a, p) => pageResult(env, spotHistoricalTradesPage(env.ctx, p)) },
  'trades.aggregate': { security: 'NONE', weight: 4, run: (env, _a, p) => pageResult(env, spotAggTradesPage(env.ctx, p)) },
  klines: { security: 'NONE', weight: spotKlinesWeight, run: (env, _a, p) => pageResult(env, spotKlinesPage(env.ctx, p)) },
  uiKlines: { security: 'NONE', weight: spotKlinesWeight, run: (env, _a, p) => pageResult(env, spotKlinesPage(env.ctx, p)) },

  // The logged-on session's events; session.logout ends this subscription.
  'userDataStream.subscribe': {
    security: 'NONE', weight: 2,
    run: (env) => {
      // The logged-on session, looked up again: one revoked or expired since logon is refused.
      const session = env.logon.session
      if (session === undefined || !env.listenKeys.sessionLive(session.apiKey)) throw permissionDenied()
      return { subscriptionId: subscriptionsOf(env).open(session, true) }
    },
  },
  // Any connection, for the session whose apiKey signs the request.
  'userDataStream.subscribe.signature': {
    security: 'SIGNED', weight: 2,
    run: (env, a) => ({ subscriptionId: subscriptionsOf(env).open(a!.session, false) }),
  },
  'userDataStream.unsubscribe': {
    security: 'NONE', weight: 2,
    run: (env, _a, p) => {
      subscriptionsOf(env).close(idParam(p, 'subscriptionId'))
      return {}
    },
  },
  'session.subscriptions': { security: 'NONE', weight: 2, run: (env) => subscriptionsOf(env).list() },
}
