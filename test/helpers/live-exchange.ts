// A real `exchange start` process on loopback with two funded traders, for driving real,
// unmodified client libraries (ccxt, the `binance` package) against the gateway by base URL,
// and a guard that fails the test if any client sends a request off this machine.

import { execFile } from 'node:child_process'
import diagnostics from 'node:diagnostics_channel'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { EXCHANGE_BIN, NODE, NODE_ARGS } from './paths.js'
import { freePort } from '../../replica/free-port.js'
import { signedRequest, startExchange } from './processes.js'

const run = promisify(execFile)

export interface LiveAccount {
  address: string
  apiKey: string
  secretKey: string
}

export interface LiveExchange {
  /** `http://127.0.0.1:<port>`: the only thing a client is told. */
  base: string
  /** Its metrics port (/metrics, /ready). */
  metrics: number
  /** The demo account `start` funds: 100,000 USDT, half perp margin, half spot. */
  maker: LiveAccount
  /** A second account from `exchange account --fund 20000`: 10,000 perp, 10,000 spot. */
  taker: LiveAccount
  /** A signed request made by hand, to read state independently of the client under test. */
  signed(who: LiveAccount, method: string, path: string, params?: Record<string, string>): Promise<unknown>
  /** Requests clients started to any host but loopback (URLs). */
  offMachine: string[]
  /** Another account from `exchange account` with these options (`--fund N`, `--key-type …`), as it prints it. */
  newAccount(options: string[]): Promise<LiveAccount & Record<string, unknown>>
  /** Runs `exchange <args>` as a user would beside this exchange (no data-directory options added): its stdout. */
  cli(args: string[]): Promise<string>
}

interface Tap {
  teardown(fn: () => unknown): void
}

const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost'])

/**
 * Records every HTTP request this process starts to a host that is not loopback: through
 * node:http(s) (axios, which the binance package uses, and `ws`'s WebSocket upgrade requests,
 * which both clients' streams use) and through fetch (undici, which ccxt uses). There is no network here, so such a call would hang or fail; the test asserts
 * none was even attempted.
 */
function watchRequests(t: Tap): string[] {
  const seen: string[] = []
  const onHttp = (message: unknown): void => {
    const req = (message as { request: { host: string; path: string } }).request
    if (!LOOPBACK.has(req.host)) seen.push(`${req.host}${req.path}`)
  }
  const onFetch = (message: unknown): void => {
    const req = (message as { request: { origin: string; path: string } }).request
    if (!LOOPBACK.has(new URL(req.origin).hostname)) seen.push(`${req.origin}${req.path}`)
  }
  diagnostics.subscribe('http.client.request.start', onHttp)
  diagnostics.subscribe('undici:request:create', onFetch)
  t.teardown(() => {
    diagnostics.unsubscribe('http.client.request.start', onHttp)
    diagnostics.unsubscribe('undici:request:create', onFetch)
  })
  return seen
}

/** `extra`: more options for `exchange start` (`--no-bot`, …). */
export async function startLiveExchange(t: Tap, extra: string[] = []): Promise<LiveExchange> {
  const offMachine = watchRequests(t)
  const dir = await mkdtemp(path.join(os.tmpdir(), 'clients-'))
  const [port, repl, metrics] = [await freePort(), await freePort(), await freePort()]
  const args = ['--data', dir, '--port', String(port), '--replication-port', String(repl), '--metrics-port', String(metrics)]
  // No price feed: the clients' scenarios hand-compute marks from their own trades.
  const proc = startExchange(['start', ...args, '--price-feed', 'off', ...extra])
  t.teardown(async () => { await proc.kill(); await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }) })
  await proc.waitFor((l) => l.msg === 'demo account funded', 30_000)
  const maker = JSON.parse(await readFile(path.join(dir, 'demo-account.json'), 'utf8')) as LiveAccount
  const newAccount = async (options: string[]): Promise<LiveAccount & Record<string, unknown>> =>
    JSON.parse((await run(NODE, [...NODE_ARGS, EXCHANGE_BIN, 'account', ...options, ...args])).stdout)
  const taker = await newAccount(['--fund', '20000'])
  const base = `http://127.0.0.1:${port}`
  const signed = async (who: LiveAccount, method: string, p: string, params: Record<string, string> = {}): Promise<unknown> =>
    (await signedRequest(base, who, method, p, params)).body
  const cli = async (cliArgs: string[]): Promise<string> => (await run(NODE, [...NODE_ARGS, EXCHANGE_BIN, ...cliArgs])).stdout
  return { base, metrics, maker, taker, signed, offMachine, newAccount, cli }
}

/**
 * Reads until `done` holds, for data the projections serve (trades, klines, tickers), which
 * trail the state by one flush; bounded, so a real gap fails instead of hanging (generously:
 * four test files share two cores).
 */
export async function eventually<T>(read: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const v = await read()
    if (done(v) || Date.now() > deadline) return v
    await new Promise((r) => setTimeout(r, 50))
  }
}
