// The chain module in a running sequencer (`exchange start` / `sequencer`): the chain services
// over the node's state, log and checkpoints, configured from flags and environment.

import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import type { BaseWallet } from 'ethers'
import { devKey } from '../chain/anvil.js'
import type { ChainToken, Deployment } from '../chain/deploy.js'
import { depositFromNewWallet } from '../chain/fund.js'
import { chainProvider, Operator } from '../chain/provider.js'
import { CHAIN_DECLARED_RULES, sameChain } from '../core/chain-declaration.js'
import type { Command } from '../core/commands.js'
import { rulesOf } from '../core/rules.js'
import type { State } from '../core/state.js'
import { OperatorError } from './operator-error.js'
import { hex } from '../replica/entry.js'
import type { Logger } from '../replica/node.js'
import type { Acknowledged } from '../replica/sequencer.js'
import { startChainServices, type ChainServices } from '../chain/services.js'
import type { Config } from './config.js'
import type { RunningNode } from './runtime.js'

/** Whether this command runs the chain module: `start` always (embedded chain by default), others with --rpc. */
export function chainEnabled(config: Config): boolean {
  return config.chain === 'auto' && (config.command === 'start' || config.rpcUrl !== '')
}

export async function startChain(config: Config, running: RunningNode, submit: (c: Command) => Promise<Acknowledged>,
  logger: Logger): Promise<ChainServices> {
  const { node } = running.replica
  const log = running.log
  return startChainServices({
    rpcUrl: config.rpcUrl, chainId: config.chainId, vault: config.vaultAddress, vaultBlock: config.vaultBlock,
    tokens: config.tokens, operatorKey: config.operatorKey, confirmations: config.confirmations,
    anchorIntervalMs: config.anchorIntervalMs, pollMs: config.chainPollMs, resendAfterMs: config.chainResendMs,
    stateDir: path.join(config.dataDir, 'chain'),
  }, {
    state: () => node.state,
    submit,
    committedSeq: () => running.replica.committedSeq(),
    onCheckpoint: (fn) => node.onCheckpoint(fn),
    latestCheckpoint: () => node.roots.at(-1),
    anchored: (seq, vault) => running.anchoredAt(seq, vault),
    declare: (chain) => declareChainOnce(node.state, chain, submit),
    // Anchored only once committed: with standbys, once they hold it (link.ts committedSeq).
    logHashAt: async (seq) => (seq <= running.replica.committedSeq() ? hex((await log.read(seq, seq))[0]!.hash) : undefined),
  }, logger)
}

/**
 * Declares the deployment in the log (core/chain-declaration.ts) unless it is there already; a
 * log that declared another chain or Vault stops the node: its services would credit deposits
 * and pay withdrawals on a contract the log's users never used.
 */
async function declareChainOnce(state: State, chain: { chainId: number; vault: string; tokens: ChainToken[] },
  submit: (c: Command) => Promise<Acknowledged>): Promise<void> {
  const tokens = chain.tokens.map(({ asset, address, decimals }) => ({ asset, address, decimals }))
  if (state.chain !== null) {
    if (sameChain(state.chain, { ...chain, tokens })) return
    const named = (c: { chainId: number; vault: string }): string => `Vault ${c.vault} on chain ${c.chainId}`
    throw new OperatorError(`this log declared its money on the ${named(state.chain)} (tokens ${state.chain.tokens.map((t) => `${t.asset} ${t.address}`).join(', ')}); ` +
      `the node is configured for the ${named(chain)} (tokens ${tokens.map((t) => `${t.asset} ${t.address}`).join(', ')}): give --vault, --chain-id and --tokens as the log declares them`)
  }
  if (rulesOf(state) < CHAIN_DECLARED_RULES) return // a log under older rules (a sequencer always declares newer ones first)
  const ack = await submit({ type: 'DeclareChain', chainId: chain.chainId, vault: chain.vault, tokens })
  if (!ack.result.ok) throw new Error(`the chain's declaration was refused at seq ${ack.seq}: ${ack.result.code}`)
}

/**
 * For `exchange account` next to a running `exchange start`: funds on the embedded chain that
 * run left in the data directory (its deployment and RPC URL), or undefined when there is none.
 */
export async function embeddedChainFunder(config: Config): Promise<{
  fundOnChain: (wallet: BaseWallet, asset: string, units: bigint) => Promise<void>
  close(): void
} | undefined> {
  const dir = path.join(config.dataDir, 'chain')
  if (config.chain === 'off' || config.rpcUrl || !existsSync(path.join(dir, 'rpc-url'))) return undefined
  const deployment = JSON.parse(await readFile(path.join(dir, 'deployment.json'), 'utf8')) as Deployment
  const provider = chainProvider((await readFile(path.join(dir, 'rpc-url'), 'utf8')).trim(), config.chainId)
  try {
    await provider.getBlockNumber()
  } catch {
    provider.destroy() // that run's chain is gone (the exchange runs without it now)
    return undefined
  }
  const operator = new Operator(config.operatorKey || devKey(0), provider)
  return {
    fundOnChain: async (wallet, asset, units) => { await depositFromNewWallet({ provider, operator, deployment, wallet, asset, units }) },
    close: () => provider.destroy(),
  }
}
