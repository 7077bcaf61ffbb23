// The one place flags and environment are read: a typed configuration with stated defaults,
// validated at start.

import { readFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { parseArgs } from 'node:util'
import path from 'node:path'
import { validAddress } from '../core/accounts.js'
import { parseCorsOrigins, type CorsOrigins } from '../gateway/cors.js'
import { parseTrustProxy, type TrustProxy } from '../gateway/client-ip.js'
import { DEFAULT_RATE_LIMITS, NEW_ACCOUNTS_PER_HOUR, type RateLimits } from '../gateway/rate-limits.js'
import { CONNECTIONS_PER_IP } from '../gateway/connection-guard.js'
import type { LinkTls } from '../replica/ws-network.js'
import type { KeyType } from './demo-account.js'
import type { PriceFeedOptions } from './price-feed.js'
import { defaultReadyMaxBehindMs } from './readiness.js'

export interface Config {
  command: string
  /** Where the log, snapshots and projections live. */
  dataDir: string
  host: string
  /** The REST API's port. */
  port: number
  network: 'mainnet' | 'testnet'
  /** Chain id of session signatures (EIP-712 domain). */
  chainId: number
  /** Gateway master secret, hex; empty: kept in the data directory. */
  masterSecretHex: string
  /** Replication endpoint of the sequencer (followers connect here). */
  replicationPort: number
  /** Prometheus text metrics at /metrics. */
  metricsPort: number
  /** Sequencer URL a follower replicates from (wss:// when the sequencer's link speaks TLS). */
  follow: string
  /**
   * TLS of the replication and command port, PEM files: the node's certificate and key (both,
   * or neither: then plain ws://), and the CA a follower or `account` trusts the sequencer's
   * certificate by (empty: the system's CAs).
   */
  linkTls: { certFile: string; keyFile: string; caFile: string }
  tickIntervalMs: number
  checkpointInterval: number
  /**
   * A sequencer: standbys that must hold each command before it is acknowledged (0: none); a
   * replica: whether it is such a standby (--standby).
   */
  syncReplicas: number
  standby: boolean
  /**
   * Leadership through etcd (replica/leadership.ts): its client URLs (none: no election), the
   * cluster's name (its key prefix), this node's name in it, and the lease's length.
   */
  election: { etcd: string[]; cluster: string; nodeId: string; leaseMs: number }
  logLevel: string
  /** USDT to fund a new account with (`exchange account --fund`). */
  fund: number
  /** The key `exchange account` registers on the new session besides its HMAC secret. */
  keyType: KeyType
  /** The gateway's rate limits (Binance's by default; raised for load tests). */
  rateLimits: RateLimits
  /** Web page origins the API and streams answer (gateway/cors.ts): any by default. */
  corsOrigins: CorsOrigins
  /** Reverse proxies in front of the gateway, whose X-Forwarded-For names the client (gateway/client-ip.ts). */
  trustProxy: TrustProxy
  /** How far behind the sequencer's time a node may be and still answer /ready with 200 (bin/readiness.ts). */
  readyMaxBehindMs: number
  /** After SIGTERM or SIGINT, how long the node answers /ready with 503 while it still serves, before it stops. */
  drainMs: number
  /** How long a request naming a seq (X-EXCHANGE-SEQ) waits for this node to reach it. */
  readWaitMs: number
  /**
   * Entries the projections may be behind what the node applied before it holds new applying
   * until they are half as far behind (replica/apply-gate.ts); 0: never held.
   */
  projectionsBehindMax: number
  /**
   * The log's archiver (bin/log-archive.ts): entries the LevelDB log keeps at least, older ones
   * moved into segment files in `archiveDir` at checkpoints (0: the log keeps everything).
   */
  logArchive: { keep: number; dir: string }
  /**
   * How often the history read models delete what their windows no longer show (old trades,
   * income and USDⓈ-M user trades, ended orders past Binance's order-history rule:
   * bin/history-upkeep.ts); 0: never.
   */
  pruneIntervalMs: number
  /** A replica: the log archive of its sequencer, to append what it lacks from before following (bin/catch-up.ts); empty: none. */
  catchUpFrom: string
  /** JSON-RPC URL of the chain (`audit`: where the anchors are read). */
  rpcUrl: string
  /** The Vault contract's address on that chain. */
  vaultAddress: string
  /** An exported log file (`audit --log`). */
  logFile: string
  /** `audit --prefix`: the log is a prefix of a running exchange's, so anchors past its end are not findings. */
  prefix: boolean
  /** `withdraw-fees`: the asset, the decimal amount and the address paid. */
  feeWithdrawal: { asset: string; amount: string; to: string }
  /** Where `export-log` writes. */
  outFile: string
  /** `export-log --force`: write over an --out file that exists (else refused: it may be the only copy of a log). */
  force: boolean
  /**
   * `prove`: the account, sub-account and entry whose balances are proven; `verify-proof`: the
   * proof file, or the running exchange's API and the keys file to fetch one with (at `seq`, 0: the anchored one);
   * `session`: the API, the keys file holding the wallet's key, and the sub-account.
   */
  proof: { account: string; sub: number; seq: number; file: string; api: string; keysFile: string }
  /** The chain module: `auto` runs it (on `start` an embedded anvil unless --rpc names a chain), `off` does not. */
  chain: 'auto' | 'off'
  /** The Vault's operator key, hex (from --operator-key or the file --operator-key-file); empty: anvil's dev key. */
  operatorKey: string
  /** Token contracts of an external chain, by asset. */
  tokens: { asset: string; address: string }[]
  /** The block the Vault was deployed in (deposits are scanned from there). */
  vaultBlock: number
  /** Confirmations before a deposit is credited (default 1 on the embedded chain, 12 elsewhere). */
  confirmations: number
  anchorIntervalMs: number
  chainPollMs: number
  /** How long an operator transaction may stay unmined before it is sent again at higher fees. */
  chainResendMs: number
  /**
   * The embedded oracle (bin/price-feed.ts): a seeded random walk per pair, a CSV replay, or none.
   * `start` runs it by default; a sequencer, and a standby once it leads, when `--price-feed` asks.
   */
  priceFeed: PriceFeedOptions
  /** `start`'s market-making bot (bot/market-maker.ts): on by default, `--bot off` or `--no-bot` turns it off. */
  bot: { enabled: boolean; intervalMs: number }
  /** Where the gateway's market-stream sockets live: a fan-out process of their own (default), or the gateway's thread. */
  wsFanOut?: 'process' | 'inline'
  /** Positional arguments after the command (e.g. the data dir of `replay`). */
  args: string[]
}

const OPTIONS = {
  data: { type: 'string', env: 'EXCHANGE_DATA', default: './data' },
  host: { type: 'string', env: 'EXCHANGE_HOST', default: '127.0.0.1' },
  port: { type: 'string', env: 'EXCHANGE_PORT', default: '8080' },
  network: { type: 'string', env: 'EXCHANGE_NETWORK', default: 'mainnet' },
  'chain-id': { type: 'string', env: 'EXCHANGE_CHAIN_ID', default: '' },
  'master-secret': { type: 'string', env: 'EXCHANGE_MASTER_SECRET', default: '' },
  'replication-port': { type: 'string', env: 'EXCHANGE_REPLICATION_PORT', default: '9090' },
  'metrics-port': { type: 'string', env: 'EXCHANGE_METRICS_PORT', default: '9100' },
  follow: { type: 'string', env: 'EXCHANGE_FOLLOW', default: '' },
  'link-tls-cert': { type: 'string', env: 'EXCHANGE_LINK_TLS_CERT', default: '' },
  'link-tls-key': { type: 'string', env: 'EXCHANGE_LINK_TLS_KEY', default: '' },
  'link-tls-ca': { type: 'string', env: 'EXCHANGE_LINK_TLS_CA', default: '' },
  'tick-ms': { type: 'string', env: 'EXCHANGE_TICK_MS', default: '1000' },
  'checkpoint-interval': { type: 'string', env: 'EXCHANGE_CHECKPOINT_INTERVAL', default: '10000' },
  'log-keep': { type: 'string', env: 'EXCHANGE_LOG_KEEP', default: '0' },
  'log-archive': { type: 'string', env: 'EXCHANGE_LOG_ARCHIVE', default: '<data>/log-archive' },
  'catch-up-from': { type: 'string', env: 'EXCHANGE_CATCH_UP_FROM', default: '' },
  'prune-interval-ms': { type: 'string', env: 'EXCHANGE_PRUNE_INTERVAL_MS', default: '3600000' },
  'sync-replicas': { type: 'string', env: 'EXCHANGE_SYNC_REPLICAS', default: '0' },
  standby: { type: 'string', env: 'EXCHANGE_STANDBY', default: 'no' },
  etcd: { type: 'string', env: 'EXCHANGE_ETCD', default: '' },
  cluster: { type: 'string', env: 'EXCHANGE_CLUSTER', default: 'exchange' },
  'node-id': { type: 'string', env: 'EXCHANGE_NODE_ID', default: '' },
  'lease-ms': { type: 'string', env: 'EXCHANGE_LEASE_MS', default: '3000' },
  'log-level': { type: 'string', env: 'EXCHANGE_LOG_LEVEL', default: 'info' },
  fund: { type: 'string', env: 'EXCHANGE_FUND', default: '10000' },
  'key-type': { type: 'string', env: 'EXCHANGE_KEY_TYPE', default: 'hmac' },
  'read-wait-ms': { type: 'string', env: 'EXCHANGE_READ_WAIT_MS', default: '5000' },
  'projections-behind-max': { type: 'string', env: 'EXCHANGE_PROJECTIONS_BEHIND_MAX', default: '50000' },
  rpc: { type: 'string', env: 'EXCHANGE_RPC', default: '' },
  vault: { type: 'string', env: 'EXCHANGE_VAULT', default: '' },
  log: { type: 'string', env: 'EXCHANGE_LOG_FILE', default: '' },
  out: { type: 'string', env: 'EXCHANGE_OUT', default: '' },
  account: { type: 'string', env: 'EXCHANGE_ACCOUNT', default: '' },
  asset: { type: 'string', env: 'EXCHANGE_ASSET', default: 'USDT' },
  amount: { type: 'string', env: 'EXCHANGE_AMOUNT', default: '' },
  to: { type: 'string', env: 'EXCHANGE_TO', default: '' },
  sub: { type: 'string', env: 'EXCHANGE_SUB', default: '0' },
  seq: { type: 'string', env: 'EXCHANGE_SEQ', default: '0' },
  proof: { type: 'string', env: 'EXCHANGE_PROOF', default: '' },
  api: { type: 'string', env: 'EXCHANGE_API', default: '' },
  keys: { type: 'string', env: 'EXCHANGE_KEYS', default: '' },
  prefix: { type: 'string', env: 'EXCHANGE_PREFIX', default: 'no' },
  force: { type: 'string', env: 'EXCHANGE_FORCE', default: 'no' },
  chain: { type: 'string', env: 'EXCHANGE_CHAIN', default: 'auto' },
  'operator-key': { type: 'string', env: 'EXCHANGE_OPERATOR_KEY', default: '' },
  'operator-key-file': { type: 'string', env: 'EXCHANGE_OPERATOR_KEY_FILE', default: '' },
  tokens: { type: 'string', env: 'EXCHANGE_TOKENS', default: '' },
  'vault-block': { type: 'string', env: 'EXCHANGE_VAULT_BLOCK', default: '0' },
  confirmations: { type: 'string', env: 'EXCHANGE_CONFIRMATIONS', default: '' },
  'anchor-interval-ms': { type: 'string', env: 'EXCHANGE_ANCHOR_INTERVAL_MS', default: '10000' },
  'chain-poll-ms': { type: 'string', env: 'EXCHANGE_CHAIN_POLL_MS', default: '500' },
  'chain-resend-ms': { type: 'string', env: 'EXCHANGE_CHAIN_RESEND_MS', default: '60000' },
  'weight-limit': { type: 'string', env: 'EXCHANGE_WEIGHT_LIMIT', default: String(DEFAULT_RATE_LIMITS.weight1m) },
  'sapi-weight-limit': { type: 'string', env: 'EXCHANGE_SAPI_WEIGHT_LIMIT', default: String(DEFAULT_RATE_LIMITS.sapiWeight1m) },
  'order-limit-10s': { type: 'string', env: 'EXCHANGE_ORDER_LIMIT_10S', default: String(DEFAULT_RATE_LIMITS.orders10s) },
  'order-limit-1m': { type: 'string', env: 'EXCHANGE_ORDER_LIMIT_1M', default: String(DEFAULT_RATE_LIMITS.orders1m) },
  'ws-connection-limit': { type: 'string', env: 'EXCHANGE_WS_CONNECTION_LIMIT', default: String(DEFAULT_RATE_LIMITS.wsConnections5m) },
  'connections-per-ip': { type: 'string', env: 'EXCHANGE_CONNECTIONS_PER_IP', default: String(CONNECTIONS_PER_IP) },
  'max-connections': { type: 'string', env: 'EXCHANGE_MAX_CONNECTIONS', default: 'auto' },
  'new-account-limit': { type: 'string', env: 'EXCHANGE_NEW_ACCOUNT_LIMIT', default: String(NEW_ACCOUNTS_PER_HOUR) },
  'cors-origins': { type: 'string', env: 'EXCHANGE_CORS_ORIGINS', default: '*' },
  'trust-proxy': { type: 'string', env: 'EXCHANGE_TRUST_PROXY', default: '' },
  'ready-max-behind-ms': { type: 'string', env: 'EXCHANGE_READY_MAX_BEHIND_MS', default: '' },
  'drain-ms': { type: 'string', env: 'EXCHANGE_DRAIN_MS', default: '0' },
  'price-feed': { type: 'string', env: 'EXCHANGE_PRICE_FEED', default: '' },
  'price-feed-seed': { type: 'string', env: 'EXCHANGE_PRICE_FEED_SEED', default: '1' },
  'price-feed-step': { type: 'string', env: 'EXCHANGE_PRICE_FEED_STEP', default: '0.0005' },
  'price-feed-band': { type: 'string', env: 'EXCHANGE_PRICE_FEED_BAND', default: '0.2' },
  'price-feed-ms': { type: 'string', env: 'EXCHANGE_PRICE_FEED_MS', default: '1000' },
  bot: { type: 'string', env: 'EXCHANGE_BOT', default: 'on' },
  'bot-ms': { type: 'string', env: 'EXCHANGE_BOT_MS', default: '1000' },
  'ws-fan-out': { type: 'string', env: 'EXCHANGE_WS_FAN_OUT', default: 'process' },
} as const

export const USAGE = `usage: exchange <command> [options]
commands:
  start                  sequencer + replica + projections in one process (data under --data), with
                         the embedded chain, price feed and a market-making bot (--no-bot: without)
  sequencer              the sequencer alone, serving replication on --replication-port
                         (--sync-replicas N: acknowledge a command only once N standbys hold it;
                         --price-feed random|csv:FILE: run the embedded oracle, as start does)
  replica --follow URL   a follower replicating from a sequencer, serving the REST API on --port
                         (wss://… when the sequencer runs with --link-tls-cert; --link-tls-ca to trust it;
                         --standby: a synchronous standby, counted by the sequencer's --sync-replicas)
  --etcd URL[,URL…]      automatic fail-over (sequencer and replicas): the sequencer leads while it holds a
                         lease in etcd; replicas find it there (no --follow needed); a --standby with the
                         longest log takes over when the lease lapses (--cluster NAME, --node-id ID,
                         --lease-ms N, default 3000; --sync-replicas N on the sequencer and standbys;
                         --price-feed on the sequencer and standbys: the oracle runs wherever the lead is)
  --log-keep N           (start, sequencer, replica) keep the newest N entries of the log; older ones
                         move into gzipped segments in --log-archive, which audit, prove and restore read
                         (replica --catch-up-from DIR: first append what this node lacks from that archive)
  --prune-interval-ms N  (start, sequencer, replica) how often the history read models delete what no query
                         shows any more: trades and income past 3 months, USDⓈ-M user trades past 6,
                         ended orders past Binance's order-history rule (default 3600000; 0: never)
  cluster status --etcd URL
                         who leads (epoch, URL), the standbys and which are up, and while no one leads,
                         the votes and whom the election waits for (JSON; --cluster NAME)
  cluster forget NODE --etcd URL
                         an election no longer waits for standby NODE, lost for good (refused while it
                         is up or leads): what only it held is given up
  cluster raise-epoch N --etcd URL
                         after etcd's data were lost: write until its revision passes N, the log's newest
                         term (the epoch an elected sequencer names as it stops), so leaders' epochs rise again
  replay <dataDir>       re-apply a log from genesis and print the root at each checkpoint
  account --fund N       a new funded account with a session on the running exchange (JSON);
                         --key-type ed25519 or rsa also registers a key pair (apiPrivateKeyPem)
  withdraw-fees --amount X --to 0x…
                         take X of the collected trading fees in --asset (default USDT) out of the
                         Vault to that address, through the running exchange (paid like a withdrawal)
  audit                  verify the log in --data (or --log: a file, or an archive's directory) from
                         genesis: hash chain, signatures, and with --rpc (and --vault, or the Vault the log declares) every
                         root anchored on chain and every deposit, payment and the reserves against the
                         Vault (its events read from --vault-block)
                         (--prefix: a log exported from a running exchange; later anchors are not findings;
                         --follow URL: a running sequencer's log, over its replication link, as a prefix;
                         with --log, what follows that file or archive)
  export-log --out FILE  write the log in --data, from genesis, to one file (audit --log reads it);
                         --follow URL: a running sequencer's log, over its replication link; a FILE
                         that exists is refused (--force: write over it)
  restore --log FILE     rebuild the log of --data (which must hold none) from an exported one (or an
                         archive's directory), every hash checked; a node then starts on it (keep its
                         gateway-secret with the file)
  prove --account 0x…    the account's balances (--sub, default 0) with their Merkle paths to the state
                         root at --seq (default: the newest checkpoint; with --rpc, the newest one
                         anchored in --vault or the Vault the log declares), from --data or --log (JSON)
  verify-proof --proof F check a balance proof's paths, and with --rpc (and --vault, or the one the
                         proof names) its root's anchor; --api URL --keys FILE instead of --proof:
                         fetch your own from a running exchange (keys: the JSON that account prints)
  session --api URL --keys FILE
                         a session (API key and secret, JSON) for sub-account --sub of the wallet whose
                         privateKey FILE holds, signed by it as a wallet in a web page signs one
options (flag, environment, default):
${Object.entries(OPTIONS).map(([k, v]) => `  --${k.padEnd(20)} ${v.env.padEnd(30)} ${v.default}`).join('\n')}`

function intOption(name: string, value: string, min: number, max: number): number {
  const n = Number(value)
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`--${name} must be an integer in [${min}, ${max}], got ${value}`)
  return n
}

function yesNo(name: string, value: string): boolean {
  if (value !== 'yes' && value !== 'no') throw new Error(`--${name} takes yes or no, got ${value}`)
  return value === 'yes'
}

function keyTypeOption(value: string): KeyType {
  if (value !== 'hmac' && value !== 'ed25519' && value !== 'rsa') throw new Error(`--key-type must be hmac, ed25519 or rsa, got ${value}`)
  return value
}

/**
 * A URL option, empty or a URL of one of `schemes` with a host: a typo is named with its flag
 * here, not thrown as a stack (an Invalid URL TypeError) where the URL is first used.
 */
function urlOption(name: string, value: string, schemes: string[], example: string): string {
  if (value === '') return value
  let url: URL | undefined
  try { url = new URL(value) } catch { /* said below */ }
  if (url === undefined || !schemes.includes(url.protocol.slice(0, -1)) || url.host === '') {
    throw new Error(`--${name} must be a ${schemes.join(':// or ')}:// URL, like ${example}; got ${value}`)
  }
  return value
}

/** An option read by `parse`, its errors named after the flag. */
function parsedOption<T>(name: string, value: string, parse: (text: string) => T): T {
  try {
    return parse(value)
  } catch (err) {
    throw new Error(`--${name}: ${(err as Error).message}`)
  }
}

const corsOption = (value: string): CorsOrigins => parsedOption('cors-origins', value, parseCorsOrigins)
const trustProxyOption = (value: string): TrustProxy => parsedOption('trust-proxy', value, parseTrustProxy)

function fractionOption(name: string, value: string): number {
  const n = Number(value)
  if (!/^\d*\.?\d+$/.test(value) || !(n > 0 && n < 1)) throw new Error(`--${name} must be a fraction in (0, 1), got ${value}`)
  return n
}

/** The internal links' TLS from the configured PEM files (replica/ws-network.ts); empty when none are set. */
export function linkTlsOf(config: Config): LinkTls {
  const read = (file: string): Buffer | undefined => (file ? readFileSync(file) : undefined)
  const tls: LinkTls = {}
  const cert = read(config.linkTls.certFile)
  const key = read(config.linkTls.keyFile)
  const ca = read(config.linkTls.caFile)
  if (cert !== undefined) tls.cert = cert
  if (key !== undefined) tls.key = key
  if (ca !== undefined) tls.ca = ca
  return tls
}

/**
 * `--amount -1` as `--amount=-1`: parseArgs takes a value that starts with a dash for a flag
 * and answers in three lines that it is ambiguous; given to the option, the option's own check
 * says what is wrong with it. Only numbers: `--out --force` still lacks its value.
 */
function withNegativeValues(argv: string[]): string[] {
  const out: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!
    const next = argv[i + 1]
    if (/^--[a-z0-9-]+$/.test(a) && a.slice(2) in OPTIONS && next !== undefined && /^-\.?\d/.test(next)) {
      out.push(`${a}=${next}`)
      i++
    } else {
      out.push(a)
    }
  }
  return out
}

export function loadConfig(argv: string[], env: NodeJS.ProcessEnv = process.env): Config {
  // `--help` or `-h` anywhere asks for the usage, as `exchange help` does (and starts nothing).
  if (argv.some((a) => a === '--help' || a === '-h')) return loadConfig(['help'], env)
  const parsed = parseArgs({
    // `--no-bot` is the short form of `--bot off`; `--prefix`, `--standby` and `--force` of `--prefix yes` and so on.
    args: withNegativeValues(argv).map((a) => (a === '--no-bot' ? '--bot=off' : a === '--prefix' || a === '--standby' || a === '--force' ? `${a}=yes` : a)),
    allowPositionals: true,
    options: Object.fromEntries(Object.keys(OPTIONS).map((k) => [k, { type: 'string' as const }])),
  })
  const get = (k: keyof typeof OPTIONS): string => {
    const flag = parsed.values[k]
    return typeof flag === 'string' ? flag : env[OPTIONS[k].env] ?? OPTIONS[k].default
  }
  const [command = 'start', ...args] = parsed.positionals
  const config: Config = {
    command,
    dataDir: path.resolve(get('data')),
    host: get('host'),
    port: intOption('port', get('port'), 0, 65535),
    network: get('network') === 'testnet' ? 'testnet' : 'mainnet',
    // The embedded dev chain's id (anvil's 31337); the test network has its own.
    chainId: get('chain-id') ? intOption('chain-id', get('chain-id'), 1, 2 ** 32) : get('network') === 'testnet' ? 31338 : 31337,
    masterSecretHex: get('master-secret'),
    replicationPort: intOption('replication-port', get('replication-port'), 0, 65535),
    metricsPort: intOption('metrics-port', get('metrics-port'), 0, 65535),
    follow: urlOption('follow', get('follow'), ['ws', 'wss'], 'ws://127.0.0.1:9090/replication'),
    linkTls: { certFile: get('link-tls-cert'), keyFile: get('link-tls-key'), caFile: get('link-tls-ca') },
    tickIntervalMs: intOption('tick-ms', get('tick-ms'), 0, 60_000),
    checkpointInterval: intOption('checkpoint-interval', get('checkpoint-interval'), 0, 100_000_000),
    syncReplicas: intOption('sync-replicas', get('sync-replicas'), 0, 16),
    standby: yesNo('standby', get('standby')),
    election: {
      etcd: get('etcd') ? get('etcd').split(',') : [],
      cluster: get('cluster'),
      // Unique as long as each machine runs one node per replication port.
      nodeId: get('node-id') || `${hostname()}:${get('replication-port')}`,
      // etcd's shortest lease is 2 s at its default election timeout.
      leaseMs: intOption('lease-ms', get('lease-ms'), 2000, 60_000),
    },
    logLevel: get('log-level'),
    fund: intOption('fund', get('fund'), 1, 1_000_000_000),
    keyType: keyTypeOption(get('key-type')),
    readWaitMs: intOption('read-wait-ms', get('read-wait-ms'), 0, 60_000),
    projectionsBehindMax: intOption('projections-behind-max', get('projections-behind-max'), 0, 10_000_000),
    logArchive: {
      keep: intOption('log-keep', get('log-keep'), 0, Number.MAX_SAFE_INTEGER),
      dir: path.resolve(get('log-archive').replace(/^<data>/, get('data'))),
    },
    catchUpFrom: get('catch-up-from') && path.resolve(get('catch-up-from')),
    pruneIntervalMs: intOption('prune-interval-ms', get('prune-interval-ms'), 0, 7 * 86_400_000),
    rpcUrl: urlOption('rpc', get('rpc'), ['http', 'https'], 'http://127.0.0.1:8545'),
    vaultAddress: get('vault'),
    logFile: get('log'),
    prefix: yesNo('prefix', get('prefix')),
    outFile: get('out'),
    force: yesNo('force', get('force')),
    feeWithdrawal: { asset: get('asset'), amount: get('amount'), to: get('to') },
    proof: { account: get('account'), sub: intOption('sub', get('sub'), 0, 1_000_000), seq: intOption('seq', get('seq'), 0, Number.MAX_SAFE_INTEGER),
      file: get('proof'), api: urlOption('api', get('api'), ['http', 'https'], 'http://127.0.0.1:8080'), keysFile: get('keys') },
    chain: get('chain') === 'off' ? 'off' : 'auto',
    operatorKey: get('operator-key') || (get('operator-key-file') ? readFileSync(get('operator-key-file'), 'utf8').trim() : ''),
    tokens: get('tokens') ? get('tokens').split(',').map((pair) => {
      const [asset = '', address = ''] = pair.split('=')
      if (!/^[A-Z0-9]{1,20}$/.test(asset) || !validAddress(address)) throw new Error(`--tokens wants ASSET=0xaddress,…; got ${pair}`)
      return { asset, address }
    }) : [],
    vaultBlock: intOption('vault-block', get('vault-block'), 0, Number.MAX_SAFE_INTEGER),
    confirmations: intOption('confirmations', get('confirmations') || (get('rpc') ? '12' : '1'), 1, 10_000),
    anchorIntervalMs: intOption('anchor-interval-ms', get('anchor-interval-ms'), 100, 86_400_000),
    chainPollMs: intOption('chain-poll-ms', get('chain-poll-ms'), 10, 60_000),
    chainResendMs: intOption('chain-resend-ms', get('chain-resend-ms'), 1000, 3_600_000),
    rateLimits: {
      weight1m: intOption('weight-limit', get('weight-limit'), 1, 1_000_000_000),
      sapiWeight1m: intOption('sapi-weight-limit', get('sapi-weight-limit'), 1, 1_000_000_000),
      orders10s: intOption('order-limit-10s', get('order-limit-10s'), 1, 1_000_000_000),
      orders1m: intOption('order-limit-1m', get('order-limit-1m'), 1, 1_000_000_000),
      wsConnections5m: intOption('ws-connection-limit', get('ws-connection-limit'), 1, 1_000_000_000),
      connectionsPerIp: intOption('connections-per-ip', get('connections-per-ip'), 1, 10_000_000),
      newAccounts1h: intOption('new-account-limit', get('new-account-limit'), 1, 1_000_000_000),
      // auto: the descriptor limit less what the exchange keeps for itself (gateway/connection-guard.ts).
      ...(get('max-connections') === 'auto' ? {} : { connectionsMax: intOption('max-connections', get('max-connections'), 1, 10_000_000) }),
    },
    corsOrigins: corsOption(get('cors-origins')),
    trustProxy: trustProxyOption(get('trust-proxy')),
    readyMaxBehindMs: get('ready-max-behind-ms') === '' ? defaultReadyMaxBehindMs(intOption('tick-ms', get('tick-ms'), 0, 60_000))
      : intOption('ready-max-behind-ms', get('ready-max-behind-ms'), 100, 86_400_000),
    drainMs: intOption('drain-ms', get('drain-ms'), 0, 600_000),
    priceFeed: {
      // `start` runs one unless told not to; a sequencer or standby only when asked.
      source: get('price-feed') || (command === 'start' ? 'random' : 'off'),
      seed: intOption('price-feed-seed', get('price-feed-seed'), 0, 2 ** 32 - 1),
      step: fractionOption('price-feed-step', get('price-feed-step')),
      band: fractionOption('price-feed-band', get('price-feed-band')),
      intervalMs: intOption('price-feed-ms', get('price-feed-ms'), 100, 3_600_000),
    },
    bot: { enabled: get('bot') === 'on', intervalMs: intOption('bot-ms', get('bot-ms'), 100, 3_600_000) },
    wsFanOut: get('ws-fan-out') === 'inline' ? 'inline' : 'process',
    args,
  }
  if (!/^(random|off|csv:.+)$/.test(config.priceFeed.source)) throw new Error('--price-feed must be random, off or csv:<file>')
  if (get('network') !== 'mainnet' && get('network') !== 'testnet') throw new Error('--network must be mainnet or testnet')
  if (config.masterSecretHex && !/^([0-9a-fA-F]{2}){16,64}$/.test(config.masterSecretHex)) throw new Error('--master-secret must be 16 to 64 bytes of hex')
  checkElection(config)
  if (config.command === 'replica' && config.priceFeed.source !== 'off' && !(config.standby && config.election.etcd.length > 0)) {
    throw new Error('--price-feed on a replica is for a --standby with --etcd: its feed runs once that node leads')
  }
  if (!config.linkTls.certFile !== !config.linkTls.keyFile) throw new Error('--link-tls-cert and --link-tls-key go together')
  if (get('bot') !== 'on' && get('bot') !== 'off') throw new Error('--bot must be on or off')
  if (get('ws-fan-out') !== 'process' && get('ws-fan-out') !== 'inline') throw new Error('--ws-fan-out must be process or inline')
  if (get('chain') !== 'auto' && get('chain') !== 'off') throw new Error('--chain must be auto or off')
  if (config.operatorKey && !/^(0x)?[0-9a-fA-F]{64}$/.test(config.operatorKey)) throw new Error('the operator key must be 32 bytes of hex')
  if (config.logArchive.keep > 0 && config.checkpointInterval === 0) {
    throw new Error('--log-keep needs checkpoints (--checkpoint-interval above 0): the log is cut only where a snapshot can stand in for what went before')
  }
  if (config.pruneIntervalMs > 0 && config.pruneIntervalMs < 1000) throw new Error('--prune-interval-ms must be 0 (never) or at least 1000')
  if (config.catchUpFrom && config.command !== 'replica') throw new Error('--catch-up-from is for a replica: the log archive it appends what it lacks from before following')
  if (config.command === 'export-log' && !config.outFile) throw new Error('export-log needs --out <file>')
  if (config.command === 'restore' && !config.logFile) throw new Error('restore needs --log <file> (a log export-log wrote) and --data <dir>')
  if (config.command === 'withdraw-fees' && (!config.feeWithdrawal.amount || !validAddress(config.feeWithdrawal.to))) {
    throw new Error('withdraw-fees needs --amount <decimal> and --to <0x-prefixed address> (--asset, default USDT)')
  }
  if (config.command === 'prove' && !validAddress(config.proof.account)) throw new Error('prove needs --account <0x-prefixed address>')
  if (config.command === 'verify-proof' && !config.proof.file && !(config.proof.api && config.proof.keysFile)) {
    throw new Error('verify-proof needs --proof <file>, or --api <url> and --keys <file> to fetch your own')
  }
  if (config.command === 'session' && !(config.proof.api && config.proof.keysFile)) {
    throw new Error('session needs --api <url> and --keys <file> (the JSON exchange account prints, with the wallet\'s privateKey)')
  }
  if (config.vaultAddress && !validAddress(config.vaultAddress)) throw new Error('--vault must be a 0x-prefixed 20-byte address')
  return config
}

/** The replication and election flags, each refused where it means nothing. */
function checkElection(config: Config): void {
  const { etcd, cluster, nodeId } = config.election
  const sequencer = config.command === 'sequencer' || config.command === 'start'
  if (config.command === 'replica' && !config.follow && etcd.length === 0) {
    throw new Error('replica needs --follow <sequencer replication URL>, or --etcd <URL> to find the sequencer there')
  }
  if (config.standby && config.command !== 'replica') throw new Error('--standby is for a replica (exchange replica --follow URL --standby)')
  const standbyCandidate = config.command === 'replica' && config.standby && etcd.length > 0
  if (config.syncReplicas > 0 && !sequencer && !standbyCandidate) {
    throw new Error('--sync-replicas is for the sequencer (exchange sequencer or start), or a standby with --etcd (what it asks once it leads)')
  }
  if (config.command === 'cluster') {
    if (etcd.length === 0) throw new Error('cluster needs --etcd <URL> (the cluster\'s etcd)')
    const [action, node] = config.args
    if (action !== 'status' && action !== 'forget' && action !== 'raise-epoch') throw new Error('cluster takes status, forget <node>, or raise-epoch <term>')
    if (action === 'forget' && !node) throw new Error('cluster forget needs the node to forget (its --node-id)')
    if (action === 'raise-epoch' && !/^\d{1,16}$/.test(node ?? '')) throw new Error('cluster raise-epoch needs the log\'s newest term (the epoch the stopped sequencer named)')
  }
  if (etcd.length === 0) return
  for (const url of etcd) if (!/^https?:\/\/[^/\s]+$/.test(url)) throw new Error(`--etcd wants client URLs like http://127.0.0.1:2379, comma-separated; got ${url}`)
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(cluster)) throw new Error('--cluster must be 1 to 64 letters, digits, dots, dashes or underscores')
  if (!/^[A-Za-z0-9._:-]{1,128}$/.test(nodeId)) throw new Error('--node-id must be 1 to 128 letters, digits, dots, colons, dashes or underscores')
  if (!sequencer && config.command !== 'replica' && config.command !== 'cluster') throw new Error('--etcd is for the sequencer, replicas and cluster')
  // A node elected in a failed leader's place holds every acknowledged command only if the leader waited for standbys.
  if ((sequencer || standbyCandidate) && config.syncReplicas < 1) {
    throw new Error('--etcd needs --sync-replicas 1 or more on the sequencer and on each standby: a standby can take over only if every acknowledged command reached one')
  }
}
