// The `exchange` command: parses the configuration and runs the chosen role.
// Each command imports what it runs when it runs: the whole program (fastify, ethers, the
// chain client, LevelDB) took ~0.75 s to load, before even `--help` could print.

import pino from 'pino'
import { readFile, stat, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { linkTlsOf, loadConfig, USAGE, type Config } from './config.js'
import type { IngressClient } from '../replica/ingress.js'
import { OperatorError, saidAs, systemErrorMessage } from './operator-error.js'
import type { RunningService } from './readiness.js'
import type { BalanceProof } from './prove.js'

/** The internal links' network for a command that connects to a running node: its master secret (read if not given), and TLS trust if any. */
async function linkNetwork(config: Config, secret?: Uint8Array) {
  const { linkToken, wsNetworkWith } = await import('../replica/ws-network.js')
  const { runningNodeSecret } = await import('./master-secret.js')
  const tls = linkTlsOf(config)
  return wsNetworkWith(linkToken(secret ?? await runningNodeSecret(config)), { ca: tls.ca ?? tls.cert })
}

/** The local sequencer's command port, as `account` and `withdraw-fees` submit through it: over TLS when it runs with a certificate. */
async function localIngress(config: Config, secret: Uint8Array): Promise<IngressClient> {
  const scheme = linkTlsOf(config).cert !== undefined ? 'wss' : 'ws'
  const url = `${scheme}://${config.host}:${config.replicationPort}`
  const { IngressClient } = await import('../replica/ingress.js')
  return IngressClient.connect(await linkNetwork(config, secret), url).catch((err: Error & { code?: string }) => {
    if (err.code === 'ECONNREFUSED') {
      throw new OperatorError(`nothing answers at ${config.host}:${config.replicationPort}: is the exchange running, on that --host and --replication-port?`)
    }
    // The link's own refusals (another master secret: 401) name the URL; a socket's (a certificate not trusted) do not.
    throw new OperatorError(err.code === undefined ? err.message : `${url}: ${err.message}`)
  })
}

/** A JSON file's contents; one that does not parse is said so, naming it. */
async function readJson(file: string, what: string): Promise<unknown> {
  const text = await readFile(file, 'utf8')
  try {
    return JSON.parse(text)
  } catch {
    throw new OperatorError(`${file} is not ${what} (not JSON)`)
  }
}

/** The API key and secret of a keys file (the JSON `exchange account` prints). */
function keysFrom(json: unknown): { apiKey: string; secretKey: string } {
  const k = json as { apiKey?: unknown; secretKey?: unknown } | null
  if (typeof k?.apiKey !== 'string' || typeof k.secretKey !== 'string') throw new OperatorError('the keys file needs apiKey and secretKey (as exchange account prints them)')
  return { apiKey: k.apiKey, secretKey: k.secretKey }
}

async function main(argv: string[]): Promise<void> {
  let config: Config
  try {
    config = loadConfig(argv)
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}\n`)
    process.exit(2)
  }
  const logger = pino({ level: config.logLevel })
  const fatal = (err: Error): void => {
    logger.fatal({ err: err.message }, 'stopping on a fault')
    process.exit(1)
  }
  switch (config.command) {
    case 'start':
    case 'sequencer': {
      // A price CSV that will not parse is refused before anything starts.
      const { loadPriceCsv } = await import('./price-feed.js')
      if (config.priceFeed.source.startsWith('csv:')) await loadPriceCsv(config.priceFeed.source.slice(4))
      const { runSequencer } = await import('./sequencer.js')
      const running = await runSequencer(config, logger, fatal)
      onSignal(running, config.drainMs, logger)
      return
    }
    case 'replica': {
      const { loadPriceCsv } = await import('./price-feed.js')
      if (config.priceFeed.source.startsWith('csv:')) await loadPriceCsv(config.priceFeed.source.slice(4))
      const [{ runFollower }, { runRejoining }, { systemClock }] =
        await Promise.all([import('./follower.js'), import('./rejoin.js'), import('../replica/clock.js')])
      // Of an elected leader: restarted in place when its log parts from the leader's, which rewinds it.
      const running = config.election.etcd.length > 0
        ? await runRejoining((onFault) => runFollower(config, logger, onFault), systemClock, logger, fatal)
        : await runFollower(config, logger, fatal)
      onSignal(running, config.drainMs, logger)
      return
    }
    case 'cluster': {
      const [{ EtcdKv }, { clusterStatus, forgetStandby, raiseEpoch }] = await Promise.all([import('./etcd.js'), import('./cluster.js')])
      const kv = new EtcdKv(config.election.etcd)
      const [action, node] = config.args
      // An etcd that does not answer is said in a line, naming it, as the refusals are.
      const status = await (action === 'forget' ? forgetStandby(kv, config.election.cluster, node!)
        : action === 'raise-epoch' ? raiseEpoch(kv, config.election.cluster, Number(node))
          : clusterStatus(kv, config.election.cluster)).catch((err: unknown) => { throw saidAs(err, `cluster ${action}`) })
      process.stdout.write(JSON.stringify(status, null, 2) + '\n')
      return
    }
    case 'replay': {
      const dir = config.args[0] ?? config.dataDir
      const { replay } = await import('./replay.js')
      await replay(dir, config.checkpointInterval, (line) => process.stdout.write(line + '\n'))
      return
    }
    case 'audit': {
      const { runAudit } = await import('./audit.js')
      const ok = await runAudit({ dataDir: config.dataDir, logFile: config.logFile || undefined, rpc: config.rpcUrl || undefined,
        vault: config.vaultAddress || undefined, vaultBlock: config.vaultBlock, chainId: config.chainId, prefix: config.prefix,
        ...(config.follow ? { follow: { network: await linkNetwork(config), url: config.follow } } : {}),
        out: (line) => process.stdout.write(line + '\n') })
      process.exit(ok ? 0 : 1)
    }
    case 'export-log': {
      const { exportLog, exportLogFromSequencer, existsMessage } = await import('./export-log.js')
      // Refused before any link or log is opened (the file there may be the only copy of a
      // log), and again as the file is created, should another writer have made it since.
      if (!config.force && await stat(config.outFile).catch(() => undefined) !== undefined) throw new OperatorError(existsMessage(config.outFile))
      const n = config.follow ? await exportLogFromSequencer(await linkNetwork(config), config.follow, config.outFile, config.force)
        : await exportLog(config.dataDir, config.outFile, config.force)
      process.stdout.write(`exported ${n} entries to ${config.outFile}\n`)
      return
    }
    case 'restore': {
      const { restoreLog } = await import('./restore.js')
      const r = await restoreLog(config.logFile, config.dataDir)
      process.stdout.write(`restored ${r.entries} entries (seq 1 to ${r.lastSeq}, last hash ${r.lastHash}) into ${path.join(config.dataDir, 'log')}\n`)
      return
    }
    case 'account': {
      const [{ runningNodeSecret }, { embeddedChainFunder }, { createFundedAccount }] =
        await Promise.all([import('./master-secret.js'), import('./chain.js'), import('./demo-account.js')])
      const secret = await runningNodeSecret(config)
      const client = await localIngress(config, secret)
      const funder = await embeddedChainFunder(config)
      try {
        const account = await createFundedAccount({ submit: (c) => client.submit(c), now: () => Date.now(),
          chainId: config.chainId, masterSecret: secret, usdt: config.fund, fundOnChain: funder?.fundOnChain,
          keyType: config.keyType })
        process.stdout.write(JSON.stringify(account, null, 2) + '\n')
      } finally {
        client.close()
        funder?.close()
      }
      return
    }
    case 'withdraw-fees': {
      const [{ runningNodeSecret }, { checkAmount, withdrawFees }] = await Promise.all([import('./master-secret.js'), import('./withdraw-fees.js')])
      checkAmount(config.feeWithdrawal.amount)
      const client = await localIngress(config, await runningNodeSecret(config))
      try {
        const done = await withdrawFees({ api: `http://${config.host}:${config.port}`, ...config.feeWithdrawal, submit: (c) => client.submit(c) })
        process.stdout.write(JSON.stringify(done, null, 2) + '\n')
      } finally {
        client.close()
      }
      return
    }
    case 'prove': {
      const { prove } = await import('./prove.js')
      const proof = await prove({ dataDir: config.logFile ? undefined : config.dataDir, logFile: config.logFile || undefined,
        account: config.proof.account, sub: config.proof.sub, seq: config.proof.seq, checkpointInterval: config.checkpointInterval,
        rpc: config.rpcUrl || undefined, vault: config.vaultAddress || undefined })
      const text = JSON.stringify(proof, null, 2) + '\n'
      if (config.outFile) await writeFile(config.outFile, text)
      else process.stdout.write(text)
      return
    }
    case 'verify-proof': {
      const { file, api, keysFile, seq } = config.proof
      const { fetchBalanceProof, verifyBalanceProof } = await import('./prove.js')
      const keys = file ? undefined : await readJson(keysFile, 'a keys file') as { address?: unknown; subAccount?: unknown } | null
      const proof = keys === undefined ? await readJson(file, 'a balance proof') as BalanceProof : await fetchBalanceProof(api, keysFrom(keys), seq)
      if (!file && config.outFile) await writeFile(config.outFile, JSON.stringify(proof, null, 2) + '\n')
      // Fetched with the keys: it must be their wallet's (the keys file names it, as `exchange account` and `session` print it).
      const expect = typeof keys?.address === 'string' ? { account: keys.address, sub: Number(keys.subAccount ?? 0) } : undefined
      const ok = await verifyBalanceProof({ proof, rpc: config.rpcUrl || undefined, vault: config.vaultAddress || undefined, expect,
        out: (line) => process.stdout.write(line + '\n') })
      process.exit(ok ? 0 : 1)
    }
    case 'session': {
      const { openSession } = await import('./session.js')
      const keys = await readJson(config.proof.keysFile, 'a keys file') as { privateKey?: unknown } | null
      const session = await openSession({ api: config.proof.api, privateKey: String(keys?.privateKey ?? ''), sub: config.proof.sub })
      process.stdout.write(JSON.stringify(session, null, 2) + '\n')
      return
    }
    case 'help':
      process.stdout.write(USAGE + '\n')
      return
    default:
      process.stderr.write(`unknown command ${config.command}\n${USAGE}\n`)
      process.exit(2)
  }
}

/**
 * SIGTERM or SIGINT stops the node: first, for `drainMs`, it answers /ready with 503 while it
 * still serves, so a load balancer moves its clients away; a second signal cuts that short.
 */
function onSignal(running: RunningService, drainMs: number, logger: pino.Logger): void {
  let signals = 0
  let cutShort: () => void = () => {}
  const handler = (): void => {
    signals++
    if (signals > 1) return cutShort()
    running.drain()
    if (drainMs > 0) logger.info({ drainMs }, 'draining: /ready answers 503; stopping after')
    new Promise<void>((resolve) => {
      cutShort = resolve
      setTimeout(resolve, drainMs)
    }).then(() => running.stop()).then(() => process.exit(0), () => process.exit(1))
  }
  process.on('SIGINT', handler)
  process.on('SIGTERM', handler)
}

/**
 * What an operator's mistake needs said: its message, not our stack. The error classes are
 * imported here, on the way out, as the commands are: the chain's pull in ethers (~0.4 s).
 */
async function operatorMessage(err: Error): Promise<string | undefined> {
  const [{ DatabaseInUseError, NoLogError }, { EpochBehindError, NotLeaderError }, { CommittedTailError, DivergedError, ForkUnconfirmedError },
    { AnvilStartError }, { ChainStateLostError }, { LogCorruptError }] = await Promise.all([import('../replica/level-open.js'),
    import('../replica/leadership.js'), import('../replica/rewind.js'), import('../chain/anvil.js'), import('../chain/services.js'),
    import('../replica/chain.js')])
  // A tool reading a damaged log (replay, export-log, prove); a node says more as it refuses to start (runtime.ts).
  if (err instanceof LogCorruptError) return err.message
  if (err instanceof DatabaseInUseError || err instanceof NoLogError || err instanceof OperatorError || err instanceof EpochBehindError ||
    err instanceof CommittedTailError || err instanceof DivergedError || err instanceof ForkUnconfirmedError || err instanceof ChainStateLostError ||
    err instanceof AnvilStartError) return err.message
  if (err instanceof NotLeaderError) return `${err.message}: start this node as a standby (exchange replica --standby --etcd …); if it led before, what its log holds beyond the leader's is cut off then`
  return systemErrorMessage(err)
}

main(process.argv.slice(2)).catch(async (err: Error) => {
  const told = await operatorMessage(err).catch(() => undefined)
  process.stderr.write(`exchange: ${told ?? err.stack ?? err.message}\n`)
  process.exit(1)
})
