// The chain module in a running sequencer (`exchange start` / `sequencer`): the chain services
// over the node's state, log and checkpoints, configured from flags and environment.

import path from 'node:path'
import type { Command } from '../core/commands.js'
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
    anchorIntervalMs: config.anchorIntervalMs, pollMs: config.chainPollMs, stateDir: path.join(config.dataDir, 'chain'),
  }, {
    state: () => node.state,
    submit,
    onCheckpoint: (fn) => node.onCheckpoint(fn),
    latestCheckpoint: () => node.roots.at(-1),
    logHashAt: async (seq) => (seq <= log.lastSeq ? hex((await log.read(seq, seq))[0]!.hash) : undefined),
  }, logger)
}
