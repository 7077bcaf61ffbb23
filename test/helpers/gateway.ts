// A gateway over a core state built by the test driver, with real projections in a temp
// dir fed from every result, for inject() and loopback tests.

import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { FastifyInstance } from 'fastify'
import type { Command } from '../../core/commands.js'
import type { Result } from '../../core/events.js'
import { buildGateway } from '../../gateway/app.js'
import type { GatewayContext } from '../../gateway/context.js'
import { createProjections, type Projections } from '../../replica/projections/index.js'
import { TestExchange } from './exchange.js'

export const TEST_CHAIN_ID = 31337
export const TEST_MASTER_SECRET = new Uint8Array(32).fill(7)

export interface GatewayRig {
  ex: TestExchange
  projections: Projections
  app: FastifyInstance
  /** Applies a command to the core and feeds its events to the projections (flushed). */
  run(command: Command, dtMs?: number): Promise<Result>
  close(): Promise<void>
}

export async function gatewayRig(): Promise<GatewayRig> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gw-'))
  const ex = new TestExchange()
  const projections = await createProjections(dir)
  // Genesis events (assets, markets) carry nothing the projections keep; the entries still count.
  for (let seq = 1; seq <= ex.state.seq; seq++) projections.apply(seq, ex.time, [])
  await projections.flush()
  const ctx: GatewayContext = {
    state: () => ex.state,
    projections,
    submit: async (command) => {
      const result = ex.run(command)
      projections.apply(ex.state.seq, ex.time, result.events)
      await projections.flush()
      return { seq: ex.state.seq, time: ex.time, result }
    },
    now: () => ex.time,
    network: 'mainnet',
    chainId: TEST_CHAIN_ID,
    masterSecret: TEST_MASTER_SECRET,
  }
  const app = await buildGateway(ctx)
  return {
    ex, projections, app,
    async run(command, dtMs = 1) {
      const result = ex.run(command, dtMs)
      projections.apply(ex.state.seq, ex.time, result.events)
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
