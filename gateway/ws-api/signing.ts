// Authentication of WebSocket API requests (Binance's rule): the signature covers the
// params sorted by key as `key=value&…`, `signature` excluded; apiKey travels in the params;
// after session.logon the connection's session stands in for apiKey and signature.
// The checks themselves are the REST ones (auth.ts): same secrets, RSA keys, recvWindow.

import type { Session } from '../../core/state.js'
import { checkSignature, checkTiming, sessionByKey, type Authenticated, type Security } from '../auth.js'
import type { GatewayContext } from '../context.js'
import { permissionDenied } from '../errors.js'

/** The text a WebSocket API signature covers. */
export function signaturePayload(params: ReadonlyMap<string, string>): string {
  return [...params.keys()].filter((k) => k !== 'signature').sort()
    .map((k) => `${k}=${params.get(k)!}`).join('&')
}

/** What a request must prove: nothing, its key (USER_STREAM), or key, signature and time. */
export type WsSecurity = 'NONE' | 'USER_STREAM' | 'SIGNED' | Security

/**
 * The request's authentication. `loggedOn` is the connection's session.logon session: it is
 * used when the request carries no apiKey of its own, and is looked up again so an expired
 * or closed session stops working at once. Signed requests still need a fresh timestamp.
 */
export function authenticateWs(ctx: GatewayContext, params: Map<string, string>, security: WsSecurity,
  loggedOn: Session | undefined): Authenticated {
  const r = { rawQuery: signaturePayload(params), rawBody: '', params }
  const ownKey = params.get('apiKey')
  const viaLogon = ownKey === undefined && loggedOn !== undefined
  const session = sessionByKey(ctx, viaLogon ? loggedOn.apiKey : ownKey)
  if (security !== 'USER_STREAM' && security !== 'NONE') {
    if (!viaLogon) checkSignature(ctx, session, r)
    checkTiming(ctx, r)
    if (security !== 'SIGNED' && !session.permissions.includes(security)) throw permissionDenied()
  }
  const sub = ctx.state().accounts.get(session.account)?.subs[session.sub]
  return { ...r, session, sub }
}
