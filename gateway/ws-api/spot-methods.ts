// The spot WebSocket API's methods (/ws-api/v3): the session, the spot listen keys, and the
// user data stream subscriptions that deliver the spot stream's events on the connection
// itself (subscriptions.ts), as ccxt's and the binance package's spot clients use them.

import { ApiError, permissionDenied } from '../errors.js'
import { idParam } from '../market-params.js'
import { listenKeyMethods, SESSION_METHODS, type Method, type MethodEnv } from './methods.js'
import type { StreamSubscriptions } from './subscriptions.js'

function subscriptionsOf(env: MethodEnv): StreamSubscriptions {
  if (env.subscriptions === undefined) throw new ApiError(400, -1020, 'This operation is not supported.')
  return env.subscriptions
}

export const SPOT_METHODS: Record<string, Method> = {
  ...SESSION_METHODS,
  ...listenKeyMethods(true),

  ping: { security: 'NONE', weight: 1, run: () => ({}) },
  time: { security: 'NONE', weight: 1, run: (env) => ({ serverTime: env.ctx.now() }) },

  // The logged-on session's events; session.logout ends this subscription.
  'userDataStream.subscribe': {
    security: 'NONE', weight: 2,
    run: (env) => {
      const session = env.logon.session
      if (session === undefined || session.expiresAt <= env.ctx.now()) throw permissionDenied()
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
