// A core driver wired to a fresh projections store: every command's events go to the
// projections with the entry's seq and time, as the replica's apply loop will do.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Command, PlaceOrder } from '../../core/commands.js'
import type { Event, Result } from '../../core/events.js'
import { createProjections, startProjectionsWorker, type Projections } from '../../replica/projections/index.js'
import { PAGE_FORMATTER_URL } from '../../gateway/page-format.js'
import { BTCPERP, btcLots, btcTicks, TestExchange } from './exchange.js'

export interface LoggedEntry {
  seq: number
  time: number
  events: Event[]
}

/**
 * The store in this thread, or with TEST_PROJECTIONS_WORKER=1 (or `worker`) in a worker thread
 * as a node runs it; with the gateway's page formatter, as a node gives it.
 */
export function openProjections(path: string, worker = process.env.TEST_PROJECTIONS_WORKER === '1'): Promise<Projections> {
  const options = { pageFormatter: PAGE_FORMATTER_URL }
  return worker ? startProjectionsWorker(path, options) : createProjections(path, options)
}

export interface Teardown {
  teardown(fn: () => unknown): void
}

export class Fixture {
  readonly ex = new TestExchange()
  /** Every entry fed so far, genesis included, to rebuild from. */
  readonly log: LoggedEntry[] = []
  /** Flush after each command (true) or leave it to the test. */
  autoFlush = true

  private constructor(readonly dir: string, public p: Projections) {
    // Genesis events (assets, markets) carry nothing the projections keep; the entries still count.
    for (let seq = 1; seq <= this.ex.state.seq; seq++) this.feed(seq, this.ex.time, [])
  }

  static async open(t: Teardown, o: { worker?: boolean } = {}): Promise<Fixture> {
    const dir = mkdtempSync(join(tmpdir(), 'proj-'))
    const f = new Fixture(dir, await openProjections(join(dir, 'db'), o.worker))
    await f.p.flush()
    t.teardown(async () => {
      await f.p.close().catch(() => undefined)
      rmSync(dir, { recursive: true, force: true })
    })
    return f
  }

  feed(seq: number, time: number, events: Event[]): void {
    this.log.push({ seq, time, events })
    this.p.apply(seq, time, events)
  }

  /** Runs a command `dtMs` after the previous one and hands its events to the projections. */
  async run(command: Command, dtMs = 1): Promise<Result> {
    const r = this.ex.run(command, dtMs)
    this.feed(this.ex.state.seq, this.ex.time, r.events)
    if (this.autoFlush) await this.p.flush()
    return r
  }

  async ok(command: Command, dtMs = 1): Promise<Result> {
    const r = await this.run(command, dtMs)
    if (!r.ok) throw new Error(`${command.type} rejected: ${r.code}`)
    return r
  }

  /** Runs `command` at absolute time `timeMs` (not before the previous entry). */
  async at(timeMs: number, command: Command): Promise<Result> {
    if (timeMs < this.ex.time) throw new Error(`time ${timeMs} is before ${this.ex.time}`)
    return this.ok(command, timeMs - this.ex.time)
  }

  async fund(account: string, usdt: number, wallet: 'PERP' | 'SPOT' = 'PERP', sub = 0): Promise<void> {
    await this.ok({ type: 'Deposit', account, sub, asset: 'USDT', amount: usdt * 1_000_000, wallet, ref: `fund-${this.ex.state.seq}` }, 0)
  }

  /** Reopens the projections from disk. */
  async reopen(o: { worker?: boolean } = {}): Promise<void> {
    await this.p.close()
    this.p = await openProjections(join(this.dir, 'db'), o.worker)
  }
}

/** A BTCUSDTPERP limit order in decimal price and quantity. */
export function limit(account: string, side: 'BUY' | 'SELL', price: number, qty: number,
  extra: Partial<PlaceOrder> = {}): PlaceOrder {
  return {
    type: 'PlaceOrder', account, sub: 0, marketId: BTCPERP, side, orderType: 'LIMIT', timeInForce: 'GTC',
    priceTicks: btcTicks(price), qtyLots: btcLots(qty), ...extra,
  }
}

/**
 * One trade of `qty` at `price` at `timeMs`: a maker rests (CAROL-free accounts: ALICE sells
 * or BOB bids) and the other side takes, so `takerSide` decides buyerIsMaker.
 */
export async function trade(f: Fixture, maker: string, taker: string, price: number, qty: number, timeMs: number,
  takerSide: 'BUY' | 'SELL' = 'BUY'): Promise<void> {
  const makerSide = takerSide === 'BUY' ? 'SELL' : 'BUY'
  await f.at(timeMs, limit(maker, makerSide, price, qty))
  const r = await f.ok(limit(taker, takerSide, price, qty), 0)
  if (!r.events.some((e) => e.type === 'trade')) throw new Error('no trade happened')
}
