// A gateway with its WebSocket endpoints (market streams, user data streams and the WebSocket
// APIs) listening on loopback, optionally with one funded session, and params signed the
// WebSocket API's way: what the WebSocket tests share.

import { createHmac } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import { Wallet } from 'ethers'
import { attachStreams } from '../../gateway/ws/attach.js'
import { signaturePayload } from '../../gateway/ws-api/signing.js'
import { gatewayRig, openSession, type GatewayRig, type Keys } from '../helpers/gateway.js'
import { connect, FAN_OUT, type Client } from './client.js'

export type WsParams = Record<string, string | number | boolean>

type Tap = { teardown(fn: () => unknown): void }

/**
 * A gateway rig with its WebSocket endpoints listening on loopback; `open` connects a client
 * to a path, and every client and the rig close when the test ends.
 */
export async function listeningRig(t: Tap, o: Parameters<typeof attachStreams>[2] = {}) {
  const rig = await gatewayRig()
  attachStreams(rig.app, rig.ctx, { fanOut: FAN_OUT, ...o })
  await rig.app.listen({ port: 0, host: '127.0.0.1' })
  const port = (rig.app.server.address() as AddressInfo).port
  const clients: Client[] = []
  t.teardown(async () => { for (const c of clients) c.close(); await rig.close() })
  const open = async (path: string) => { const c = await connect(`ws://127.0.0.1:${port}${path}`); clients.push(c); return c }
  return { rig, open, port }
}

export async function wsApiRig(t: Tap, o: { permissions?: string; messagesPerSecond?: number } = {}) {
  const { rig, open: openPath, port } = await listeningRig(t, o.messagesPerSecond === undefined ? {} : { messagesPerSecond: o.messagesPerSecond })
  const open = (path = '/ws-fapi/v1') => openPath(path)
  const wallet = Wallet.createRandom()
  const keys = (await openSession(rig, wallet, o.permissions === undefined ? {} : { permissions: o.permissions })).json() as Keys
  await rig.run({ type: 'Deposit', account: wallet.address, sub: 0, asset: 'USDT', amount: 100_000_000_000, wallet: 'PERP', ref: 'd1' })
  return { rig, open, keys, address: wallet.address, http: `http://127.0.0.1:${port}` }
}

/** params with apiKey and timestamp, HMAC-signed over the sorted `key=value` text. */
export function signed<P extends WsParams>(rig: GatewayRig, keys: Keys, params: P): WsParams {
  const p: WsParams = { apiKey: keys.apiKey, timestamp: rig.ex.time, ...params }
  const text = signaturePayload(new Map(Object.entries(p).map(([k, v]) => [k, String(v)])))
  return { ...p, signature: createHmac('sha256', keys.secretKey).update(text).digest('hex') }
}
