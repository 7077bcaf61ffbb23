// `exchange start`'s market-making bot on a real exchange process: its accounts are funded by
// deposits on the embedded chain, it keeps every perpetual and spot book two-sided around the
// index, and its taker makes trades and klines appear; `--no-bot` leaves the books empty.

import t from 'tap'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { chainProvider } from '../../chain/provider.js'
import { loadConfig } from '../../bin/config.js'
import { freePort } from '../../replica/free-port.js'
import { signedRequest, startExchange, type Proc } from '../helpers/processes.js'

type Level = [string, string]
interface Book { bids: Level[]; asks: Level[] }
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

async function start(t: { teardown(fn: () => unknown): void }, flags: string[]): Promise<{ proc: Proc; dir: string; base: string }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bot-'))
  const [port, repl, metrics] = [await freePort(), await freePort(), await freePort()]
  const proc = startExchange(['start', '--data', dir, '--port', String(port), '--replication-port', String(repl),
    '--metrics-port', String(metrics), '--chain-poll-ms', '50', '--price-feed-ms', '200', '--checkpoint-interval', '0', ...flags])
  t.teardown(async () => { await proc.kill(); await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }) })
  await proc.waitFor((l) => l.msg === 'price feed running', 60_000)
  return { proc, dir, base: `http://127.0.0.1:${port}` }
}

/** Polls `read` until `done` holds (at most `rounds` × 100 ms), returning the last value read. */
async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, rounds = 600): Promise<T> {
  let v = await read()
  for (let i = 0; i < rounds && !done(v); i++) {
    await sleep(100)
    v = await read()
  }
  return v
}

const get = async <T>(base: string, p: string): Promise<T> => (await fetch(base + p)).json() as Promise<T>

t.test('the bot is on by default; --no-bot, --bot off and EXCHANGE_BOT=off turn it off', async (t) => {
  t.same(loadConfig(['start'], {}).bot, { enabled: true, intervalMs: 1000 })
  t.same(loadConfig(['start', '--no-bot'], {}).bot, { enabled: false, intervalMs: 1000 })
  t.same(loadConfig(['start', '--bot', 'off', '--bot-ms', '250'], {}).bot, { enabled: false, intervalMs: 250 })
  t.same(loadConfig(['start'], { EXCHANGE_BOT: 'off' }).bot.enabled, false)
  t.throws(() => loadConfig(['start', '--bot', 'maybe'], {}), /--bot must be on or off/)
  t.throws(() => loadConfig(['start', '--bot-ms', '5'], {}), /--bot-ms must be an integer in \[100, 3600000\], got 5/)
})

t.test('the bot quotes every book on both sides around the index and trades', { timeout: 120_000 }, async (t) => {
  const { proc, dir, base } = await start(t, ['--bot', 'on', '--bot-ms', '200'])
  await proc.waitFor((l) => l.msg === 'market maker running', 60_000)
  const books = [['/fapi/v1/depth', 'BTCUSDTPERP'], ['/fapi/v1/depth', 'ETHUSDTPERP'], ['/api/v3/depth', 'BTCUSDT'], ['/api/v3/depth', 'ETHUSDT']]
  /** Within 0.2 % of `index`: the bot quotes 10 bps out and requotes once the index moved 5 bps. */
  const near = (price: number, index: number): boolean => Math.abs(price - index) / index < 0.002
  for (const [route, symbol] of books) {
    const pair = symbol.replace('PERP', '')
    // The book and the index read together: the feed moves the index every 200 ms, and the bot
    // follows it a round later (later still on a loaded machine), so a book read long before
    // its index can lag it past the band.
    const read = async () => {
      const book = await get<Book>(base, `${route}?symbol=${symbol}&limit=10`)
      return { book, index: Number((await get<{ indexPrice: string }>(base, `/fapi/v1/premiumIndex?symbol=${pair}PERP`)).indexPrice) }
    }
    // A requote places a side's new levels before cancelling its old ones: read between the two,
    // a book shows both (more levels, or a level's size doubled where old and new share a price).
    const settled = (b: Book): boolean => {
      const clip = Number(b.bids[0]![1])
      return [b.bids, b.asks].every((side) => side.every(([, q], i) => Math.abs(Number(q) - clip * (i + 1)) < clip / 2))
    }
    const { book, index } = await until(read, ({ book: b, index: i }) => b.bids.length === 3 && b.asks.length === 3 &&
      settled(b) && near(Number(b.bids[0]![0]), i) && near(Number(b.asks[0]![0]), i))
    t.equal(book.bids.length, 3, `${symbol}: three bids`)
    t.equal(book.asks.length, 3, `${symbol}: three asks`)
    const bids = book.bids.map(([p, q]) => [Number(p), Number(q)] as const)
    const asks = book.asks.map(([p, q]) => [Number(p), Number(q)] as const)
    t.ok(bids[0]![0] < asks[0]![0], `${symbol}: bid below ask`)
    // Sizes grow by one clip per level, the same each side.
    const clip = book.bids[0]![1]
    const decimals = clip.split('.')[1]?.length ?? 0
    for (let i = 0; i < 3; i++) {
      const size = (Number(clip) * (i + 1)).toFixed(decimals)
      t.equal(book.bids[i]![1], size, `${symbol}: bid level ${i + 1} size`)
      t.equal(book.asks[i]![1], size, `${symbol}: ask level ${i + 1} size`)
    }
    // Around the index: the nearest quotes within 0.2 % of it.
    t.ok(near(bids[0]![0], index) && near(asks[0]![0], index), `${symbol}: near the index ${index}`)
  }
  const trades = await until(() => get<unknown[]>(base, '/fapi/v1/trades?symbol=BTCUSDTPERP'), (r) => r.length > 0)
  t.ok(trades.length > 0, 'the taker traded on the perpetual')
  const spotTrades = await until(() => get<unknown[]>(base, '/api/v3/trades?symbol=ETHUSDT'), (r) => r.length > 0)
  t.ok(spotTrades.length > 0, 'and on a spot book')
  const klines = await get<unknown[][]>(base, '/fapi/v1/klines?symbol=BTCUSDTPERP&interval=1m')
  t.ok(klines.length > 0 && Number(klines.at(-1)![8]) > 0, 'a kline with trades')

  // Both accounts were funded by deposits the chain holds.
  const accounts = JSON.parse(await readFile(path.join(dir, 'bot-accounts.json'), 'utf8')) as Record<'maker' | 'taker', { apiKey: string; secretKey: string }>
  const running = proc.lines.find((l) => l.msg === 'chain services running')!
  const provider = chainProvider(running.rpc as string, 31337)
  t.teardown(() => provider.destroy())
  for (const who of ['maker', 'taker'] as const) {
    const rows = (await signedRequest(base, accounts[who], 'GET', '/sapi/v1/capital/deposit/hisrec')).body as
      { coin: string; status: number; txId: string }[]
    t.same(rows.map((r) => [r.coin, r.status]).sort(), [['BTC', 1], ['ETH', 1], ['USDT', 1]], `${who}: three deposits`)
    for (const r of rows) t.equal((await provider.getTransactionReceipt(r.txId.split(':')[0]!))?.to, running.vault)
  }
  t.notOk(proc.lines.some((l) => typeof l.msg === 'string' && /market maker: round failed/.test(l.msg)), 'no round failed')
})

t.test('--no-bot: no bot accounts and empty books', { timeout: 120_000 }, async (t) => {
  const { proc, dir, base } = await start(t, ['--no-bot'])
  await until(() => get<{ indexPrice: string }>(base, '/fapi/v1/premiumIndex?symbol=BTCUSDTPERP'), (p) => Number(p.indexPrice) > 0)
  for (const url of ['/fapi/v1/depth?symbol=BTCUSDTPERP', '/fapi/v1/depth?symbol=ETHUSDTPERP', '/api/v3/depth?symbol=BTCUSDT', '/api/v3/depth?symbol=ETHUSDT']) {
    const { bids, asks } = await get<Book>(base, url)
    t.same([bids, asks], [[], []], url)
  }
  t.same(await get<unknown[]>(base, '/fapi/v1/trades?symbol=BTCUSDTPERP'), [])
  t.equal(existsSync(path.join(dir, 'bot-accounts.json')), false)
  t.notOk(proc.lines.some((l) => l.msg === 'market maker running'))
})
