// The WebSocket API's methods, each dispatched to the code its REST route runs (same
// parameters, checks, weights and bodies): order.place is POST /fapi/v1/order answering the
// RESULT form, account.status is GET /fapi/v2/account, and so on.

import type { Session, State, SubAccount } from '../../core/state.js'
import type { Authenticated } from '../auth.js'
import type { GatewayContext } from '../context.js'
import { type ApiError, invalidListenKey } from '../errors.js'
import { accountJson, positionRiskJson, positionRows, symbolHeld } from '../format-account.js'
import { optional, perpParam } from '../market-params.js'
import type { OrderCounter } from '../order-counter.js'
import { balanceRows } from '../routes/account.js'
import { modifyFrom } from '../routes/batch-orders.js'
import { bookTickerBodies, bySymbol, depthBody, depthWeight, tickerPriceBody } from '../routes/market.js'
import { cancelFrom, placeFrom, queryFrom } from '../routes/trade.js'
import { cancelAlgoFrom, placeAlgoFrom } from '../routes/algo-orders.js'
import type { ListenKeys } from '../user-data/listen-keys.js'
import type { WeightCounter } from '../weights.js'
import type { WsSecurity } from './signing.js'
import type { StreamSubscriptions } from './subscriptions.js'
import type { Refusals } from '../refusals.js'
import type { ConnectionGuard } from '../connection-guard.js'
import type { OpenPerIp } from '../open-per-ip.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** New-order limits per account, shared by REST and the WebSocket API (decorated in app.ts). */
    orders: OrderCounter
    /** The same for spot orders (spot REST and /ws-api/v3). */
    spotOrders: OrderCounter
    /** The context the routes run on (with the processing deadline), for the WebSocket API. */
    gatewayCtx: GatewayContext
    /** Request weight per IP, shared by REST and the WebSocket API (decorated in app.ts). */
    weights: WeightCounter
    /** Reports a request that failed with -1000 (anything but a refusal) to the operator (app.ts). */
    serverError: (err: unknown, what: string) => void
    /** Refusals answered over REST and the WebSocket API, by code, for /metrics (app.ts). */
    refusals: Refusals
    /** The API port's open TCP connections, bounded per address and in all (app.ts). */
    connectionGuard: ConnectionGuard
    /** WebSocket connections open per client address, every WebSocket path together (app.ts). */
    wsOpen: OpenPerIp
  }
}

export type Params = Map<string, string>

/** One connection's session.logon state. */
export interface Logon {
  session: Session | undefined
  authorizedSince: number | null
  readonly connectedSince: number
  /** Whether answers carry rateLimits unless a request says otherwise (the connection URL's returnRateLimits). */
  readonly returnRateLimits: boolean
}

export interface MethodEnv {
  ctx: GatewayContext
  /** The listen keys of this API's stream: futures on /ws-fapi/v1, spot on /ws-api/v3. */
  listenKeys: ListenKeys
  /** The new-order limits of this API's venue (app.orders, or app.spotOrders). */
  orders: OrderCounter
  logon: Logon
  /** The spot API's user data stream subscriptions (absent on the futures API). */
  subscriptions?: StreamSubscriptions
  /** Binance spot's `timeUnit=MICROSECOND` on the connection's URL: answers' times in µs. */
  micro: boolean
}

export interface Method {
  security: WsSecurity
  /** REQUEST_WEIGHT, as the REST route charges it. */
  weight: number | ((p: Params) => number)
  /** New orders: counted against the ORDERS limits, reported in rateLimits (a number: an order list's orders). */
  countsOrder?: boolean | number
  /** Whether the request still runs past the order limits, given their -1015 (cancelReplace's CANCEL_ONLY). */
  pastOrderLimit?: (p: Params) => boolean
  run(env: MethodEnv, a: Authenticated | undefined, p: Params, pastOrderLimit?: ApiError): unknown
}

function sessionStatus(env: MethodEnv): object {
  const { logon } = env
  return {
    apiKey: logon.session?.apiKey ?? null, authorizedSince: logon.authorizedSince, connectedSince: logon.connectedSince,
    returnRateLimits: logon.returnRateLimits, serverTime: env.ctx.now(),
    // Spot's: whether the connection holds a user data stream subscription.
    ...(env.subscriptions === undefined ? {} : { userDataStream: env.subscriptions.any }),
  }
}

/** session.logon, .status and .logout, on both APIs. */
export const SESSION_METHODS: Record<string, Method> = {
  'session.logon': {
    security: 'SIGNED', weight: 2,
    run: (env, a) => {
      env.logon.session = a!.session
      env.logon.authorizedSince = env.ctx.now()
      return sessionStatus(env)
    },
  },
  'session.status': { security: 'NONE', weight: 2, run: (env) => sessionStatus(env) },
  'session.logout': {
    security: 'NONE', weight: 2,
    run: (env) => {
      env.logon.session = undefined
      env.logon.authorizedSince = null
      env.subscriptions?.logout()
      return sessionStatus(env)
    },
  },
}

/**
 * userDataStream.start, .ping and .stop on the API's own listen keys (env.listenKeys), as
 * the REST routes: spot's want the listenKey on ping and stop and answer ping with {}.
 * `weight`: the venue's (futures 1, spot 2).
 */
export function listenKeyMethods(weight: number): Record<string, Method> {
  return {
    'userDataStream.start': {
      security: 'USER_STREAM', weight,
      run: async (env, a) => ({ listenKey: (await env.listenKeys.open(a!.session)).listenKey }),
    },
    'userDataStream.ping': {
      security: 'USER_STREAM', weight,
      run: async (env, a) => {
        env.listenKeys.checkSent(a!.session.apiKey, a!.params)
        const entry = await env.listenKeys.keepAlive(a!.session)
        if (!entry) throw invalidListenKey()
        return env.listenKeys.stream === 'SPOT' ? {} : { listenKey: entry.listenKey }
      },
    },
    'userDataStream.stop': {
      security: 'USER_STREAM', weight,
      run: async (env, a) => {
        env.listenKeys.checkSent(a!.session.apiKey, a!.params)
        if (!(await env.listenKeys.close(a!.session))) throw invalidListenKey()
        return {}
      },
    },
  }
}

export const METHODS: Record<string, Method> = {
  ...SESSION_METHODS,
  ...listenKeyMethods(1),

  'order.place': { security: 'TRADE', weight: 0, countsOrder: true, run: (env, a, p) => placeFrom(env.ctx, a!, p, 'RESULT') },
  'order.modify': { security: 'TRADE', weight: 0, countsOrder: true, run: (env, a, p) => modifyFrom(env.ctx, a!, p) },
  'order.cancel': { security: 'TRADE', weight: 1, run: (env, a, p) => cancelFrom(env.ctx, a!, p) },
  'order.status': { security: 'USER_DATA', weight: 4, run: (env, a, p) => queryFrom(env.ctx, a!, p) },
  'algoOrder.place': { security: 'TRADE', weight: 0, countsOrder: true, run: (env, a, p) => placeAlgoFrom(env.ctx, a!, p) },
  'algoOrder.cancel': { security: 'TRADE', weight: 1, run: (env, a, p) => cancelAlgoFrom(env.ctx, a!, p) },

  'account.balance': {
    security: 'USER_DATA', weight: 5,
    run: (env, a) => balanceRows(env.ctx.state(), a!.session.account, a!.session.sub, a!.sub),
  },
  'account.position': { security: 'USER_DATA', weight: 5, run: (env, a, p) => positionsFrom(env.ctx.state(), a!.sub, p, false) },
  'account.status': { security: 'USER_DATA', weight: 5, run: (env, a) => accountJson(env.ctx.state(), a!.sub) },
  // Binance's v2 names are the WebSocket forms of REST v3, which list only symbols with a position or open orders.
  'v2/account.position': { security: 'USER_DATA', weight: 5, run: (env, a, p) => positionsFrom(env.ctx.state(), a!.sub, p, true) },
  'v2/account.status': { security: 'USER_DATA', weight: 5, run: (env, a) => accountJson(env.ctx.state(), a!.sub, true) },

  depth: { security: 'NONE', weight: depthWeight, run: (env, _a, p) => depthBody(env.ctx, p) },
  'ticker.price': { security: 'NONE', weight: bySymbol(1, 2), run: (env, _a, p) => tickerPriceBody(env.ctx, p) },
  'ticker.book': { security: 'NONE', weight: bySymbol(2, 5), run: (env, _a, p) => bookTickerBodies(env.ctx, p) },
}

// v2/account.balance answers as the v1 name, as REST serves /fapi/v2 and v3 of balance alike.
METHODS['v2/account.balance'] = METHODS['account.balance']!

/** account.position's rows: the symbol's, or every perpetual's (`heldOnly`: those held, as REST v3). */
function positionsFrom(state: State, sub: SubAccount | undefined, p: Params, heldOnly: boolean): object[] {
  const only = optional(p, 'symbol') === undefined ? undefined : perpParam(state, p)
  const rows = positionRows(state, sub, only)
  return (heldOnly ? rows.filter(symbolHeld) : rows).map((r) => positionRiskJson(state, r))
}
