// The chain side of a running sequencer: the chain itself (an embedded anvil with the
// contracts deployed, kept under the data directory, or any JSON-RPC chain by configuration),
// and the deposit watcher, withdrawal executor and anchorer over the node's state.

import { existsSync } from 'node:fs'
import { readFile, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import type { BaseWallet, JsonRpcProvider } from 'ethers'
import { makeDir } from '../replica/make-dir.js'
import { Anchorer } from './anchor.js'
import { devKey, startAnvil, type Anvil } from './anvil.js'
import { deployAll, type ChainToken, type Deployment } from './deploy.js'
import { chainDeposits, DepositWatcher } from './deposit-watcher.js'
import { pollLoop, type ExchangeLink, type Logger } from './link.js'
import { depositFromNewWallet } from './fund.js'
import { chainProvider, Operator, tokenAt } from './provider.js'
import { WithdrawalExecutor } from './withdrawal-executor.js'
import { OperatorGas } from './operator-gas.js'

export interface ChainSettings {
  /** JSON-RPC URL; empty: an embedded anvil on loopback, its state under `stateDir`. */
  rpcUrl: string
  chainId: number
  /** External chain: the Vault, the block it was deployed in, and the tokens by asset. */
  vault: string
  vaultBlock: number
  tokens: { asset: string; address: string }[]
  /** The operator's private key (hex); empty on the embedded chain (anvil's first dev key). */
  operatorKey: string
  confirmations: number
  anchorIntervalMs: number
  /** How long an operator transaction may stay unmined before it is sent again at higher fees (provider.ts Operator). */
  resendAfterMs?: number
  pollMs: number
  /** Where the embedded chain keeps its state and deployment. */
  stateDir: string
}

export interface NodeLink extends ExchangeLink {
  onCheckpoint(fn: (cp: { seq: number; root: string }) => void): void
  /** The newest checkpoint computed so far (replayed at start), if any. */
  latestCheckpoint(): { seq: number; root: string } | undefined
  logHashAt(seq: number): Promise<string | undefined>
  /** The newest seq the Vault holds an anchor for, as the anchorer learns it (balance proofs default to it). */
  anchored?(seq: number, vault: string): void
  /**
   * The deployment the services are about to run against, before any of them starts: the node
   * declares it in the log, or throws when the log declared another (bin/chain.ts).
   */
  declare?(chain: { chainId: number; vault: string; tokens: ChainToken[] }): Promise<void>
}

export interface ChainServices {
  rpcUrl: string
  chainId: number
  deployment: Deployment
  operatorAddress: string
  /**
   * Embedded chain only: gives `wallet` gas and `units` of `asset`'s token, deposits them into
   * the Vault from it, and resolves once the watcher credited the deposit.
   */
  fundOnChain?(wallet: BaseWallet, asset: string, units: bigint, timeoutMs?: number): Promise<void>
  /** For /metrics: what the operator has left to pay gas with (chain/operator-gas.ts). */
  gauges(): Record<string, number>
  stop(): Promise<void>
}

const anvilStateFile = (stateDir: string): string => path.join(stateDir, 'anvil-state.json')

async function embeddedDeployment(stateDir: string, provider: JsonRpcProvider, operator: Operator, logger: Logger): Promise<Deployment> {
  const file = path.join(stateDir, 'deployment.json')
  if (existsSync(file)) {
    const saved = JSON.parse(await readFile(file, 'utf8')) as Deployment
    if ((await provider.getCode(saved.vault)) !== '0x') return saved
    logger.warn({ vault: saved.vault }, 'embedded chain lost its contracts; deploying new ones')
  }
  const d = await operator.run((s) => deployAll(s))
  await writeFile(file, JSON.stringify(d, null, 2) + '\n')
  logger.info({ vault: d.vault, tokens: d.tokens }, 'contracts deployed')
  return d
}

/** The embedded chain lacks what the log credited from it (the operator's to resolve: bin/main.ts says it alone). */
export class ChainStateLostError extends Error {
  override name = 'ChainStateLostError'
}

/**
 * The embedded chain must still hold what the log credited from it, or the ledger's balances are
 * not backed by the Vault: its state was lost (anvil killed with its state unsaved, or the file
 * removed or replaced by an older one). The newest credited deposit's transaction stands for it.
 */
async function checkChainHoldsDeposits(provider: JsonRpcProvider, node: NodeLink, stateFile: string): Promise<void> {
  const [tx] = chainDeposits(node.state(), 1)
  if (tx === undefined || (await provider.getTransactionReceipt(tx)) !== null) return
  throw new ChainStateLostError(`the embedded chain (${stateFile}) does not hold deposit transaction ${tx}, which the log credited: `
    + 'its state was lost or is older than the log, and the balances the log holds are not in its Vault. '
    + 'Put back the state file that holds it, or start a new exchange with another --data')
}

export async function startChainServices(s: ChainSettings, node: NodeLink, logger: Logger): Promise<ChainServices> {
  let anvil: Anvil | undefined
  let rpcUrl = s.rpcUrl
  if (!rpcUrl) {
    await makeDir(s.stateDir)
    anvil = await startAnvil({ chainId: s.chainId, stateFile: anvilStateFile(s.stateDir), dieWithParent: true })
    if (anvil.exitDump === 'cut') {
      logger.warn({ stateFile: anvilStateFile(s.stateDir) }, 'the embedded chain\'s dump at its last exit was cut short: starting from its last whole save')
    }
    rpcUrl = anvil.url
  }
  const provider = chainProvider(rpcUrl, s.chainId, Math.min(s.pollMs, 100))
  try {
    const operator = new Operator(s.operatorKey || devKey(0), provider, { logger, resendAfterMs: s.resendAfterMs })
    let deployment: Deployment
    if (anvil) {
      await checkChainHoldsDeposits(provider, node, anvilStateFile(s.stateDir))
      deployment = await embeddedDeployment(s.stateDir, provider, operator, logger)
    } else {
      if (!s.vault) throw new Error('an external chain needs --vault')
      // Sessions are signed for this chain id too: the two must agree.
      const actual = Number(await provider.send('eth_chainId', []))
      if (actual !== s.chainId) throw new Error(`${rpcUrl} is chain ${actual}, but --chain-id is ${s.chainId}`)
      const tokens: ChainToken[] = []
      for (const t of s.tokens) tokens.push({ ...t, decimals: Number(await tokenAt(t.address, provider).decimals()) })
      deployment = { vault: s.vault, vaultBlock: s.vaultBlock, tokens }
    }
    await node.declare?.({ chainId: s.chainId, vault: deployment.vault, tokens: deployment.tokens })
    const common = { provider, vault: deployment.vault, tokens: deployment.tokens, exchange: node, pollMs: s.pollMs, logger,
      persistChain: anvil?.saveState }
    const watcher = new DepositWatcher({ ...common, confirmations: s.confirmations, fromBlock: deployment.vaultBlock })
    const executor = new WithdrawalExecutor({ ...common, confirmations: s.confirmations, fromBlock: deployment.vaultBlock, operator })
    const anchorer = new Anchorer({ provider, vault: deployment.vault, operator, confirmations: s.confirmations,
      logHashAt: (seq) => node.logHashAt(seq), intervalMs: s.anchorIntervalMs, logger,
      onAnchored: (seq) => node.anchored?.(seq, deployment.vault) })
    const latest = node.latestCheckpoint()
    if (latest) anchorer.offer(latest)
    node.onCheckpoint((cp) => anchorer.offer(cp))
    const gas = new OperatorGas({ provider, address: operator.address, logger })
    watcher.start()
    executor.start()
    anchorer.start()
    gas.start()
    // Anvil mines only on transactions; deeper confirmations need more blocks. While a deposit, a
    // payment or an anchor waits for them, a block a second, as a chain would give; none while idle, so the
    // chain's state (saved whole before each credit) does not grow by a block a second for ever.
    const awaiting = (): boolean => watcher.awaitingConfirmations || executor.awaitingConfirmations || anchorer.awaitingConfirmations
    const miner = anvil && s.confirmations > 1
      ? pollLoop(async () => { if (awaiting()) await provider.send('evm_mine', []) }, 1000, logger, 'confirmation miner')
      : undefined
    logger.info({ rpc: rpcUrl, chainId: s.chainId, vault: deployment.vault, operator: operator.address,
      confirmations: s.confirmations, embedded: anvil !== undefined }, 'chain services running')

    const services: ChainServices = {
      rpcUrl, chainId: s.chainId, deployment, operatorAddress: operator.address,
      gauges: () => gas.gauges(),
      async stop() {
        await Promise.all([watcher.stop(), executor.stop(), anchorer.stop(), gas.stop(), miner?.stop()])
        provider.destroy()
        if (anvil) await rm(path.join(s.stateDir, 'rpc-url'), { force: true })
        await anvil?.stop()
      },
    }
    if (anvil) {
      // Where `exchange account` (another process) finds this run's chain.
      await writeFile(path.join(s.stateDir, 'rpc-url'), rpcUrl + '\n')
      services.fundOnChain = async (wallet, asset, units, timeoutMs = 30_000) => {
        const ref = await depositFromNewWallet({ provider, operator, deployment, wallet, asset, units })
        const deadline = Date.now() + timeoutMs
        while (!node.state().depositRefs.has(ref)) {
          if (Date.now() > deadline) throw new Error(`deposit ${ref} was not credited within ${timeoutMs} ms`)
          await new Promise((r) => setTimeout(r, 20))
        }
      }
    }
    return services
  } catch (err) {
    provider.destroy()
    // A start that failed (a lost chain refused, say) credited nothing: its anvil's chain must not
    // replace the state file, which the operator may be about to put back.
    await anvil?.stop({ discardState: true })
    throw err
  }
}
