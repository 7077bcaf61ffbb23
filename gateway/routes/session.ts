// Sessions (API.md "Sessions"): POST opens one from a wallet's EIP-712 signature and returns
// the API key and its secret; GET shows it; DELETE revokes it. One live session per
// sub-account: a new one replaces the old.

import type { FastifyPluginAsync } from 'fastify'
import { getAddress } from 'ethers'
import type { Permission } from '../../core/commands.js'
import { LIMITS } from '../../core/limits.js'
import { authenticate, newApiKey, secretFor } from '../auth.js'
import type { GatewayContext } from '../context.js'
import { ApiError, fromCore, invalidParam, invalidSignature, mandatoryParam, timestampAhead, timestampOutsideRecvWindow } from '../errors.js'
import { rawRequest } from '../params.js'
import { sessionSigner } from '../session-signature.js'
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
  app.post('/fapi/v1/session', async (req) => {
    weights.charge(req.ip, 1)
    const { params } = rawRequest(req)
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
    const signer = sessionSigner(ctx.chainId, { address, subAccount, permissions: permissionsText, expiresAt, nonce }, signature)
    if (signer !== address) throw invalidSignature()

    const apiKey = newApiKey()
    const ack = await ctx.submit({ type: 'CreateSession', account: address, sub: subAccount, apiKey, permissions,
      expiresAt, nonce, signature: signature.toLowerCase() })
    if (!ack.result.ok) throw fromCore(ack.result.code, { venue: 'futures', op: 'admin' })
    return { apiKey, secretKey: secretFor(ctx.masterSecret, apiKey), address, subAccount, permissions, expiresAt }
  })

  app.get('/fapi/v1/session', async (req) => {
    weights.charge(req.ip, 1)
    const { session } = authenticate(ctx, req, 'USER_DATA')
    return { apiKey: session.apiKey, address: session.account, subAccount: session.sub,
      permissions: session.permissions, expiresAt: session.expiresAt }
  })

  app.delete('/fapi/v1/session', async (req) => {
    weights.charge(req.ip, 1)
    const { session } = authenticate(ctx, req, 'USER_DATA')
    const ack = await ctx.submit({ type: 'RevokeSession', account: session.account, sub: session.sub, apiKey: session.apiKey })
    if (!ack.result.ok) throw fromCore(ack.result.code, { venue: 'futures', op: 'admin' })
    return {}
  })
}
