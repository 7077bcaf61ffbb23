// Sessions (API.md "Sessions"): POST opens one from a wallet's EIP-712 signature and returns
// the API key and its secret; GET shows it; DELETE revokes it. One live session per
// sub-account: a new one replaces the old. POST /fapi/v1/apiKey/rsa opens a session keyed by
// an RSA or Ed25519 public key from a wallet signature, or adds such a key to the caller's session.

import type { FastifyPluginAsync } from 'fastify'
import { getAddress } from 'ethers'
import type { CreateSession, Permission } from '../../core/commands.js'
import { LIMITS } from '../../core/limits.js'
import { authenticate, newApiKey, secretFor } from '../auth.js'
import type { GatewayContext } from '../context.js'
import { ApiError, fromCore, invalidParam, invalidSignature, mandatoryParam, timestampAhead, timestampOutsideRecvWindow, tooManyNewAccounts } from '../errors.js'
import { IpWindows } from '../ip-windows.js'
import { NEW_ACCOUNTS_PER_HOUR } from '../rate-limits.js'
import { checkDuplicates, rawRequest } from '../params.js'
import { sessionDocs } from '../schemas/session.js'
import { canonicalPublicKey } from '../public-keys.js'
import { sessionSigner, sessionTypedData } from '../session-signature.js'
import type { WeightCounter } from '../weights.js'

interface Options {
  ctx: GatewayContext
  weights: WeightCounter
}

const PERMISSIONS = new Set(['TRADE', 'USER_DATA', 'WITHDRAW'])

function required(params: Map<string, string>, name: string): string {
  const v = params.get(name)
  if (v === undefined || v === '') throw mandatoryParam(name)
  return v
}

function int(params: Map<string, string>, name: string, fallback?: number): number {
  const raw = params.get(name)
  if (raw === undefined || raw === '') {
    if (fallback !== undefined) return fallback
    throw mandatoryParam(name)
  }
  if (!/^\d{1,16}$/.test(raw)) throw invalidParam(name)
  return Number(raw)
}

function permissionsOf(raw: string): Permission[] {
  const list = raw.split(',')
  if (list.some((p) => !PERMISSIONS.has(p)) || new Set(list).size !== list.length) throw invalidParam('permissions')
  return list as Permission[]
}

export const sessionRoutes: FastifyPluginAsync<Options> = async (app, { ctx, weights }) => {
  const newAccounts = new IpWindows(ctx.now, ctx.rateLimits?.newAccounts1h ?? NEW_ACCOUNTS_PER_HOUR, 3_600_000)
  /** A session for a wallet with no account yet makes one: counted against the IP's hourly budget (rate-limits.ts). */
  function admitAccount(ip: string, command: CreateSession): void {
    if (ctx.state().accounts.has(command.account)) return
    const wait = newAccounts.admit(ip)
    if (wait !== undefined) throw tooManyNewAccounts(newAccounts.limit, wait)
  }

  /**
   * A wallet-signed session request, checked: the fields, the nonce inside recvWindow, and
   * the EIP-712 signature by `address` (over the RSA key too when `publicKey` is given).
   */
  function walletSigned(params: Map<string, string>, publicKey?: string): CreateSession {
    let address: string
    try { address = getAddress(required(params, 'address')) } catch (err) {
      if (err instanceof ApiError) throw err
      throw invalidParam('address')
    }
    const subAccount = int(params, 'subAccount', 0)
    if (subAccount >= LIMITS.subAccountsMax) throw invalidParam('subAccount')
    const permissionsText = params.get('permissions') ?? 'TRADE,USER_DATA'
    const permissions = permissionsOf(permissionsText)
    const expiresAt = int(params, 'expiresAt')
    const nonce = int(params, 'nonce')
    const recvWindow = int(params, 'recvWindow', 5000)
    if (recvWindow > 60_000) throw invalidParam('recvWindow')
    const now = ctx.now()
    if (nonce >= now + 1000) throw timestampAhead()
    if (now - nonce > recvWindow) throw timestampOutsideRecvWindow()
    const signature = required(params, 'signature')
    const request = { address, subAccount, permissions: permissionsText, expiresAt, nonce }
    const signer = sessionSigner(ctx.chainId, publicKey === undefined ? request : { ...request, publicKey }, signature)
    if (signer !== address) throw invalidSignature()
    return { type: 'CreateSession', account: address, sub: subAccount, apiKey: newApiKey(), permissions,
      expiresAt, nonce, signature: signature.toLowerCase(), ...(publicKey === undefined ? {} : { rsaPublicKey: publicKey }) }
  }

  app.post('/fapi/v1/session', sessionDocs.open, async (req) => {
    weights.charge(req.ip, 1)
    const raw = rawRequest(req)
    checkDuplicates(raw)
    const command = walletSigned(raw.params)
    admitAccount(req.ip, command)
    const ack = await ctx.submit(command)
    if (!ack.result.ok) throw fromCore(ack.result.code, { venue: 'futures', op: 'admin' })
    const { apiKey, account: address, sub: subAccount, permissions, expiresAt } = command
    return { apiKey, secretKey: secretFor(ctx.masterSecret, apiKey), address, subAccount, permissions, expiresAt }
  })

  // RSA keys (API.md "Sessions"), and Ed25519 keys the same way. Without an API key: a
  // wallet-signed request, like a session's with the key in the signed message, opens a session
  // keyed by it (replacing the old one) and returns its apiKey; requests are then signed with the
  // private key. With an API key (a signed request): the key is added to the caller's session.
  // A public key is not a secret, so the log keeps it.
  app.post('/fapi/v1/apiKey/rsa', sessionDocs.rsaKey, async (req) => {
    weights.charge(req.ip, 1)
    if (req.headers['x-mbx-apikey'] === undefined) {
      const raw = rawRequest(req)
      checkDuplicates(raw)
      const { params } = raw
      const command = walletSigned(params, canonicalPublicKey(required(params, 'publicKey')))
      admitAccount(req.ip, command)
      const ack = await ctx.submit(command)
      if (!ack.result.ok) throw fromCore(ack.result.code, { venue: 'futures', op: 'admin' })
      const { apiKey, account: address, sub: subAccount, permissions, expiresAt, rsaPublicKey } = command
      return { apiKey, address, subAccount, permissions, expiresAt, publicKey: rsaPublicKey }
    }
    const { session, params } = authenticate(ctx, req, 'USER_DATA')
    const publicKey = canonicalPublicKey(required(params, 'publicKey'))
    const ack = await ctx.submit({ type: 'RegisterRsaKey', account: session.account, sub: session.sub,
      apiKey: session.apiKey, publicKey })
    if (!ack.result.ok) throw fromCore(ack.result.code, { venue: 'futures', op: 'admin', param: 'publicKey' })
    return { apiKey: session.apiKey, address: session.account, subAccount: session.sub,
      permissions: session.permissions, expiresAt: session.expiresAt, publicKey }
  })

  // Public: what a web page has the user's wallet sign, with this exchange's chain id.
  app.get('/fapi/v1/session/typedData', sessionDocs.typedData, async (req) => {
    weights.charge(req.ip, 1)
    return sessionTypedData(ctx.chainId)
  })

  app.get('/fapi/v1/session', sessionDocs.show, async (req) => {
    weights.charge(req.ip, 1)
    const { session } = authenticate(ctx, req, 'USER_DATA')
    return { apiKey: session.apiKey, address: session.account, subAccount: session.sub,
      permissions: session.permissions, expiresAt: session.expiresAt }
  })

  app.delete('/fapi/v1/session', sessionDocs.revoke, async (req) => {
    weights.charge(req.ip, 1)
    const { session } = authenticate(ctx, req, 'USER_DATA')
    const ack = await ctx.submit({ type: 'RevokeSession', account: session.account, sub: session.sub, apiKey: session.apiKey })
    if (!ack.result.ok) throw fromCore(ack.result.code, { venue: 'futures', op: 'admin' })
    return {}
  })
}
