// A read-only gateway over a projections Fixture, for market-data tests: the gateway clock is
// the test's to move, and `weightOf` sends a request alone in a fresh minute.

import type { FastifyInstance } from 'fastify'
import { buildGateway } from '../../gateway/app.js'
import type { GatewayContext } from '../../gateway/context.js'
import type { Fixture, Teardown } from './projections-fixture.js'

const MIN = 60_000

export interface Reply {
  status: number
  // Response bodies are checked with t.same against literal values.
  body: any
  weight: number
}

export interface MarketGateway {
  app: FastifyInstance
  clock: { now: number }
  get(url: string, headers?: Record<string, string>): Promise<Reply>
  /** A request alone in a fresh minute: its header shows its own weight. */
  weightOf(url: string, headers?: Record<string, string>): Promise<number>
}

export async function marketGateway(t: Teardown, f: Fixture, nowMs: number): Promise<MarketGateway> {
  const clock = { now: nowMs }
  const ctx: GatewayContext = {
    state: () => f.ex.state,
    get projections() { return f.p },
    submit: () => Promise.reject(new Error('market data never submits')),
    now: () => clock.now,
    network: 'mainnet',
    chainId: 1,
    masterSecret: new Uint8Array(32),
    applied: { get seq() { return f.ex.state.seq }, until: async () => true },
  }
  const app = await buildGateway(ctx)
  t.teardown(() => app.close())
  const get = async (url: string, headers: Record<string, string> = {}): Promise<Reply> => {
    const r = await app.inject({ method: 'GET', url, headers })
    return { status: r.statusCode, body: r.json(), weight: Number(r.headers['x-mbx-used-weight-1m']) }
  }
  const weightOf = async (url: string, headers: Record<string, string> = {}): Promise<number> => {
    clock.now = (Math.floor(clock.now / MIN) + 1) * MIN
    return (await get(url, headers)).weight
  }
  return { app, clock, get, weightOf }
}
