// The one place flags and environment are read: a typed configuration with stated defaults,
// validated at start.

import { parseArgs } from 'node:util'
import path from 'node:path'

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
  /** Sequencer URL a follower replicates from. */
  follow: string
  tickIntervalMs: number
  checkpointInterval: number
  logLevel: string
  /** USDT to fund a new account with (`exchange account --fund`). */
  fund: number
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
  'tick-ms': { type: 'string', env: 'EXCHANGE_TICK_MS', default: '1000' },
  'checkpoint-interval': { type: 'string', env: 'EXCHANGE_CHECKPOINT_INTERVAL', default: '10000' },
  'log-level': { type: 'string', env: 'EXCHANGE_LOG_LEVEL', default: 'info' },
  fund: { type: 'string', env: 'EXCHANGE_FUND', default: '10000' },
} as const

export const USAGE = `usage: exchange <command> [options]
commands:
  start                  sequencer + replica + projections in one process (data under --data)
  sequencer              the sequencer alone, serving replication on --replication-port
  replica --follow URL   a follower replicating from a sequencer
  replay <dataDir>       re-apply a log from genesis and print the root at each checkpoint
  account --fund N       a new funded account with a session on the running exchange (JSON)
options (flag, environment, default):
${Object.entries(OPTIONS).map(([k, v]) => `  --${k.padEnd(20)} ${v.env.padEnd(30)} ${v.default}`).join('\n')}`

function intOption(name: string, value: string, min: number, max: number): number {
  const n = Number(value)
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`--${name} must be an integer in [${min}, ${max}], got ${value}`)
  return n
}

export function loadConfig(argv: string[], env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = parseArgs({
    args: argv,
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
    follow: get('follow'),
    tickIntervalMs: intOption('tick-ms', get('tick-ms'), 0, 60_000),
    checkpointInterval: intOption('checkpoint-interval', get('checkpoint-interval'), 0, 100_000_000),
    logLevel: get('log-level'),
    fund: intOption('fund', get('fund'), 1, 1_000_000_000),
    args,
  }
  if (get('network') !== 'mainnet' && get('network') !== 'testnet') throw new Error('--network must be mainnet or testnet')
  if (config.masterSecretHex && !/^([0-9a-fA-F]{2}){16,64}$/.test(config.masterSecretHex)) throw new Error('--master-secret must be 16 to 64 bytes of hex')
  if (config.command === 'replica' && !config.follow) throw new Error('replica needs --follow <sequencer replication URL>')
  return config
}
