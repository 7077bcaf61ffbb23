// A gateway over a core state built by the test driver, with real projections in a temp
// dir fed from every result, for inject() and loopback tests.

import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createHmac } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { Wallet, type HDNodeWallet } from 'ethers'
import { sessionDomain, SESSION_TYPES } from '../../gateway/session-signature.js'
import type { Command } from '../../core/commands.js'
import type { Result } from '../../core/events.js'
import type { GenesisSpec } from '../../core/genesis-spec.js'
import { buildGateway } from '../../gateway/app.js'
import type { Payload } from '../../gateway/user-data/events.js'
import { SpotUserEvents } from '../../gateway/user-data/spot-events.js'
import type { CommittedBatch, GatewayContext } from '../../gateway/context.js'
import { createProjections, startProjectionsWorker, type Projections } from '../../replica/projections/index.js'
import { PAGE_FORMATTER_URL } from '../../gateway/page-format.js'
import { TestExchange } from './exchange.js'

export const TEST_CHAIN_ID = 31337
export const TEST_MASTER_SECRET = new Uint8Array(32).fill(7)

export interface GatewayRig {
  ex: TestExchange
  projections: Projections
  app: FastifyInstance
  /** The context the app was built over (for building variants of it). */
  ctx: GatewayContext
  /** Applies a command to the core and feeds its events to the projections (flushed). */
  run(command: Command, dtMs?: number): Promise<Result>
  close(): Promise<void>
}

export async function gatewayRig(spec?: GenesisSpec): Promise<GatewayRig> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gw-'))
  const ex = new TestExchange(spec)
  // TEST_PROJECTIONS_WORKER=1 runs them in a worker thread, as a node does.
  const options = { pageFormatter: PAGE_FORMATTER_URL }
  const projections = process.env.TEST_PROJECTIONS_WORKER === '1' ? await startProjectionsWorker(dir, options) : await createProjections(dir, options)
  // Genesis events (assets, markets) carry nothing the projections keep; the entries still count.
  for (let seq = 1; seq <= ex.state.seq; seq++) projections.apply(seq, ex.time, [])
  await projections.flush()
  const batchListeners = new Set<(c: CommittedBatch) => void>()
  /** Hands the entry just applied to the streams, as a replica's committed feed would. */
  const publish = (result: Result) => {
    const c = { entries: [{ seq: ex.state.seq, time: ex.time }], results: [result] }
    for (const fn of batchListeners) fn(c)
  }
  const ctx: GatewayContext = {
    state: () => ex.state,
    projections,
    submit: async (command) => {
      const result = ex.run(command)
      const seq = ex.state.seq
      const time = ex.time
      projections.apply(seq, time, result.events)
      publish(result)
      await projections.flush()
      return { seq, time, result }
    },
    onCommitted: (listener) => {
      batchListeners.add(listener)
      return () => { batchListeners.delete(listener) }
    },
    now: () => ex.time,
    network: 'mainnet',
    chainId: TEST_CHAIN_ID,
    masterSecret: TEST_MASTER_SECRET,
    // Every command here is applied and flushed before its submit resolves.
    applied: { get seq() { return projections.flushedSeq }, until: async (seq) => projections.flushedSeq >= seq },
  }
  // checkResponses: a response schema that loses a field the handler returned fails the test (500).
  const app = await buildGateway(ctx, { checkResponses: true })
  return {
    ex, projections, app, ctx,
    async run(command, dtMs = 1) {
      const result = ex.run(command, dtMs)
      projections.apply(ex.state.seq, ex.time, result.events)
      publish(result)
      await projections.flush()
      return result
    },
    async close() {
      await app.close()
      await projections.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/**
 * POSTs /fapi/v1/session for `wallet` (sub-account 0 unless told), signed by `sign` (default: the
 * wallet itself), to the rig's app (or `app`, another gateway over its context) from `remoteAddress`.
 */
export async function openSession(rig: GatewayRig, wallet: HDNodeWallet,
  o: { permissions?: string; nonce?: number; sign?: HDNodeWallet; subAccount?: number; app?: FastifyInstance; remoteAddress?: string } = {}) {
  const request = { address: wallet.address, subAccount: o.subAccount ?? 0, permissions: o.permissions ?? 'TRADE,USER_DATA',
    expiresAt: rig.ex.time + 86_400_000, nonce: o.nonce ?? rig.ex.time }
  const signature = await (o.sign ?? wallet).signTypedData(sessionDomain(TEST_CHAIN_ID), SESSION_TYPES, request)
  const body = new URLSearchParams({ ...Object.fromEntries(Object.entries(request).map(([k, v]) => [k, String(v)])), signature })
  return (o.app ?? rig.app).inject({ method: 'POST', url: '/fapi/v1/session', payload: body.toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' }, ...(o.remoteAddress === undefined ? {} : { remoteAddress: o.remoteAddress }) })
}

/** HMAC-SHA256 hex of query then body, as Binance signs. */
export function hmac(secret: string, query: string, body = ''): string {
  return createHmac('sha256', secret).update(query + body).digest('hex')
}

export interface Keys { apiKey: string; secretKey: string }

/** A signed request with the params in the query string (timestamp added). */
export function signedInject(rig: GatewayRig, keys: Keys, method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string,
  params: Record<string, string | number> = {}) {
  const q = new URLSearchParams({ ...Object.fromEntries(Object.entries(params).map(([k, v]) => [k, String(v)])),
    timestamp: String(rig.ex.time) }).toString()
  return rig.app.inject({ method, url: `${path}?${q}&signature=${hmac(keys.secretKey, q)}`, headers: { 'x-mbx-apikey': keys.apiKey } })
}

/** A wallet with a session, funded with `usdt` in its perp wallet: the usual trader of a test. */
export async function fundedTrader(rig: GatewayRig, usdt = 100_000): Promise<{ address: string; keys: Keys }> {
  const wallet = Wallet.createRandom()
  const keys = (await openSession(rig, wallet)).json() as Keys
  await rig.run({ type: 'Deposit', account: wallet.address, sub: 0, asset: 'USDT', amount: usdt * 1_000_000, wallet: 'PERP', ref: wallet.address })
  return { address: wallet.address, keys }
}

/** A spot seller holding 1 BTC and a spot buyer holding 10,000 USDT, each with a session. */
export async function spotTraders(rig: GatewayRig) {
  const sellerWallet = Wallet.createRandom()
  const buyerWallet = Wallet.createRandom()
  const seller = (await openSession(rig, sellerWallet)).json() as Keys
  const buyer = (await openSession(rig, buyerWallet)).json() as Keys
  await rig.run({ type: 'Deposit', account: sellerWallet.address, sub: 0, asset: 'BTC', amount: 100_000_000, wallet: 'SPOT', ref: 's' })
  await rig.run({ type: 'Deposit', account: buyerWallet.address, sub: 0, asset: 'USDT', amount: 10_000_000_000, wallet: 'SPOT', ref: 'b' })
  return { seller, buyer, sellerWallet, buyerWallet }
}

/**
 * A rig with the spot traders, `post` (a signed POST with symbol BTCUSDT, to /api/v3/order unless
 * named) and `depth` (BTCUSDT's REST depth): where the spot feature tests start.
 */
export async function spotRig() {
  const rig = await gatewayRig()
  const traders = await spotTraders(rig)
  const post = (keys: Keys, p: Record<string, string>, route = '/api/v3/order') =>
    signedInject(rig, keys, 'POST', route, { symbol: 'BTCUSDT', ...p })
  const depth = async () => (await rig.app.inject('/api/v3/depth?symbol=BTCUSDT')).json() as { bids: string[][]; asks: string[][] }
  return { rig, ...traders, post, depth }
}

/**
 * The spot user data stream's payloads for what the rig's gateway submits from now on: each
 * entry's events through SpotUserEvents, for the accounts `wants` names.
 */
export function spotStreamOf(rig: GatewayRig, wants: (account: string) => boolean = () => true): Payload[] {
  const stream = new SpotUserEvents()
  stream.seed(rig.ex.state)
  const seen: Payload[] = []
  const run = rig.ctx.submit
  rig.ctx.submit = async (c) => {
    const ack = await run(c)
    stream.entry(rig.ex.state, rig.ex.time, (ack.result as Result).events, wants, (_a, _s, p) => seen.push(p))
    return ack
  }
  return seen
}
