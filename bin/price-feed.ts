// The embedded default's oracle: in `exchange start`, signs and submits an OraclePrice for
// every perpetual's pair each interval, from a seeded bounded random walk or a CSV replay.
// Its key lives in the data directory (`oracle-key`), and is registered as each pair's
// oracle (SetOracle) on the first start that runs the feed.

import { readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { Wallet } from 'ethers'
import { makeDir } from '../replica/make-dir.js'
import type { Command } from '../core/commands.js'
import type { PerpMarket, State } from '../core/state.js'
import { signOraclePrice, verifyOraclePrice } from '../replica/oracle-signature.js'
import { OperatorError } from './operator-error.js'
import { randomWallet } from './random-wallet.js'
import type { Logger } from '../replica/node.js'
import type { Acknowledged } from '../replica/sequencer.js'
import { Rng } from '../sim/random.js'

export interface PriceFeedOptions {
  /** 'random', 'off', or 'csv:<file>' (lines `PAIR,PRICE`, replayed in order per pair, looping). */
  source: string
  seed: number
  /** Largest relative move per step of the random walk (0.0005 = 0.05 %). */
  step: number
  /** The walk stays within ± this fraction of where it started (0.2 = 20 %). */
  band: number
  intervalMs: number
}

/** Where a pair's walk starts when the market has neither an index nor a trade yet. */
const START_PRICES: Record<string, number> = { BTCUSDT: 30_000, ETHUSDT: 2_000 }
const E8 = 100_000_000

/** The oracle key in the data directory, created (0600) when missing. */
export async function oracleWallet(dataDir: string): Promise<Wallet> {
  const file = path.join(dataDir, 'oracle-key')
  try {
    return new Wallet((await readFile(file, 'utf8')).trim())
  } catch {
    const wallet = randomWallet()
    await makeDir(dataDir)
    await writeFile(file, wallet.privateKey + '\n', { mode: 0o600 })
    return wallet
  }
}

/** Reads and parses the CSV of `--price-feed csv:<file>`; a bad line names the file. */
export async function loadPriceCsv(file: string): Promise<Map<string, number[]>> {
  const text = await readFile(file, 'utf8')
  try {
    return parsePriceCsv(text)
  } catch (err) {
    throw new OperatorError(`${file}: ${(err as Error).message}`)
  }
}

/** Parses `PAIR,PRICE` lines (blank lines and `#` comments skipped) into a queue per pair. */
export function parsePriceCsv(text: string): Map<string, number[]> {
  const out = new Map<string, number[]>()
  text.split(/\r?\n/).forEach((line, i) => {
    const s = line.trim()
    if (s === '' || s.startsWith('#')) return
    const [pair = '', price = ''] = s.split(',').map((x) => x.trim())
    const n = Number(price)
    if (!/^[A-Z0-9]{2,32}$/.test(pair) || !/^\d+(\.\d{1,8})?$/.test(price) || !(n > 0)) {
      if (i === 0 && !(n > 0)) return // a header line
      throw new OperatorError(`price CSV line ${i + 1}: want PAIR,PRICE; got ${s}`)
    }
    const list = out.get(pair) ?? []
    list.push(Math.round(n * E8))
    out.set(pair, list)
  })
  return out
}

function startPrice(m: PerpMarket): number {
  if (m.prices.indexE8 > 0) return m.prices.indexE8 / E8
  if (m.lastPriceTicks > 0) return (m.lastPriceTicks * m.tickSize) / 10 ** m.pricePrecision
  const known = START_PRICES[m.pair]
  if (known !== undefined) return known
  const lo = (m.minPriceTicks * m.tickSize) / 10 ** m.pricePrecision
  const hi = (m.maxPriceTicks * m.tickSize) / 10 ** m.pricePrecision
  return Math.sqrt(lo * hi)
}

export interface PriceFeed {
  stop(): Promise<void>
}

/**
 * Registers the key for every perpetual that lacks it, then publishes a price per pair each
 * interval. Each signed price is verified before it is submitted, as ingress verifies
 * remote ones; a rejected price (e.g. stale after a clock step) is logged and skipped.
 */
export async function startPriceFeed(o: {
  options: PriceFeedOptions
  dataDir: string
  state: () => State
  submit: (c: Command) => Promise<Acknowledged>
  now: () => number
  logger: Logger
}): Promise<PriceFeed | undefined> {
  const { options } = o
  if (options.source === 'off') return undefined
  const csv = options.source.startsWith('csv:') ? await loadPriceCsv(options.source.slice(4)) : undefined
  if (csv === undefined && options.source !== 'random') throw new Error(`--price-feed must be random, off or csv:<file>; got ${options.source}`)
  const wallet = await oracleWallet(o.dataDir)
  const perps = o.state().markets.filter((m): m is PerpMarket => m?.kind === 'PERP')
  for (const m of perps) {
    if (m.prices.oracle === wallet.address.toLowerCase()) continue
    const ack = await o.submit({ type: 'SetOracle', pair: m.pair, oracle: wallet.address })
    if (!ack.result.ok) throw new Error(`registering the oracle for ${m.pair}: ${ack.result.code}`)
  }
  o.logger.info({ oracle: wallet.address, source: options.source, pairs: perps.map((m) => m.pair) }, 'price feed running')

  const rng = new Rng(options.seed)
  const walks = new Map(perps.map((m) => {
    const start = startPrice(m)
    return [m.pair, { price: start, lo: start * (1 - options.band), hi: start * (1 + options.band) }]
  }))
  const cursors = new Map<string, number>()
  const nextE8 = (pair: string): number | undefined => {
    if (csv !== undefined) {
      const list = csv.get(pair)
      if (list === undefined || list.length === 0) return undefined
      const i = cursors.get(pair) ?? 0
      cursors.set(pair, (i + 1) % list.length)
      return list[i]
    }
    const w = walks.get(pair)!
    const u = rng.u32() / 4294967296 * 2 - 1
    w.price = Math.min(w.hi, Math.max(w.lo, w.price * (1 + options.step * u)))
    return Math.round(w.price * E8)
  }

  let stopped = false
  let running: Promise<void> = Promise.resolve()
  const publish = async (): Promise<void> => {
    for (const m of perps) {
      const priceE8 = nextE8(m.pair)
      if (priceE8 === undefined || stopped) continue
      const cmd = await signOraclePrice(wallet, { pair: m.pair, priceE8, time: o.now() })
      if (!verifyOraclePrice(cmd)) throw new Error('the price feed signed a price that does not verify')
      const ack = await o.submit(cmd)
      if (!ack.result.ok) o.logger.warn({ pair: m.pair, code: ack.result.code }, 'oracle price rejected')
    }
  }
  const timer = setInterval(() => {
    // One round at a time: a slow round delays the next instead of racing it.
    running = running.then(publish).catch((err: Error) => o.logger.warn({ err: err.message }, 'price feed round failed'))
  }, options.intervalMs)
  return {
    async stop() {
      stopped = true
      clearInterval(timer)
      await running
    },
  }
}
