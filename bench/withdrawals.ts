// Withdrawal benchmark: how fast a queue of withdrawals is paid on a chain that mines a block a
// second, as a public chain paces them (anvil --block-time 1; the embedded chain mines at once).
// A queue of requests is committed at once, then the executor polls until every one is
// recorded paid; the Vault's token balance must have fallen by exactly their sum. The peer is the
// same queue paid one transaction per withdrawal (the executor with batches of 1: how it paid
// before session 52), on a fresh chain of its own.

import type { Contract } from 'ethers'
import { devKey, startAnvil } from '../chain/anvil.js'
import { deployAll } from '../chain/deploy.js'
import { chainProvider, mined, Operator, tokenAt } from '../chain/provider.js'
import { WithdrawalExecutor } from '../chain/withdrawal-executor.js'
import { apply } from '../core/apply.js'
import type { Command } from '../core/commands.js'
import { DEFAULT_GENESIS, genesisCommands } from '../core/genesis-spec.js'
import { RULES_VERSION } from '../core/rules.js'
import { createState } from '../core/state.js'
import { fixed, int, table, type Benchmark, type BenchSummary } from './lib/bench.js'

const ACCOUNTS = 20
const PER_ACCOUNT = 3
/** 1 USDT each, in ledger units (scale 6 for the default USDT). */
const AMOUNT = 1_000_000

interface Pass { withdrawals: number; seconds: number; transactions: number; blocks: number }

async function payQueue(batch: number): Promise<Pass> {
  const anvil = await startAnvil({ args: ['--block-time', '1'] })
  const provider = chainProvider(anvil.url, anvil.chainId, 50)
  try {
    const operator = new Operator(devKey(0), provider)
    const deployment = await operator.run((s) => deployAll(s))
    const usdt = deployment.tokens.find((t) => t.asset === 'USDT')!
    const total = ACCOUNTS * PER_ACCOUNT * AMOUNT
    await operator.run(async (s) => mined(await (tokenAt(usdt.address, s) as Contract).mint(deployment.vault, BigInt(total))))

    // The ledger: genesis, a deposit per account, then the whole queue of requests.
    const state = createState()
    let seq = 0
    const run = (command: Command) => apply(state, { seq: ++seq, time: 1_700_000_000_000 + seq, command })
    for (const c of [{ type: 'SetRules', version: RULES_VERSION, leafSeed: '0x' + '5a'.repeat(32) } as Command,
      ...genesisCommands(DEFAULT_GENESIS)]) run(c)
    for (let a = 0; a < ACCOUNTS; a++) {
      const account = '0x' + (a + 1).toString(16).padStart(40, '0')
      run({ type: 'Deposit', account, sub: 0, asset: 'USDT', amount: PER_ACCOUNT * AMOUNT, wallet: 'SPOT', ref: `bench:${a}` })
      for (let i = 0; i < PER_ACCOUNT; i++) {
        const r = run({ type: 'WithdrawalRequest', account, sub: 0, asset: 'USDT', amount: AMOUNT, address: account })
        if (!r.ok) throw new Error(`withdrawal request refused: ${r.code}`)
      }
    }
    const queued = ACCOUNTS * PER_ACCOUNT
    const exchange = { state: () => state, submit: async (command: Command) => ({ seq: seq + 1, time: 0, result: run(command) }) }
    const executor = new WithdrawalExecutor({ provider, vault: deployment.vault, fromBlock: 0, tokens: deployment.tokens,
      exchange, operator, batch, pollMs: 50 })
    const vaultHeld = async (): Promise<bigint> => tokenAt(usdt.address, provider).balanceOf!(deployment.vault)
    const firstBlock = await provider.getBlockNumber()
    const nonceBefore = await provider.getTransactionCount(operator.address)
    const started = performance.now()
    let settled = 0
    while (settled < queued) {
      settled += await executor.poll()
      if (settled < queued) await new Promise((r) => setTimeout(r, 50))
    }
    const seconds = (performance.now() - started) / 1000
    if (await vaultHeld() !== 0n) throw new Error(`the Vault still holds ${await vaultHeld()} units after paying everything`)
    // Completed ones leave the pending set and count in the total withdrawn.
    if (state.withdrawals.size !== 0 || state.withdrawn.get('USDT') !== BigInt(total)) {
      throw new Error(`${state.withdrawals.size} withdrawals left pending, ${state.withdrawn.get('USDT')} units withdrawn of ${total}`)
    }
    return { withdrawals: queued, seconds, transactions: await provider.getTransactionCount(operator.address) - nonceBefore,
      blocks: await provider.getBlockNumber() - firstBlock }
  } finally {
    provider.destroy()
    await anvil.stop()
  }
}

async function run(out: (line: string) => void): Promise<BenchSummary> {
  out(`withdrawals: ${ACCOUNTS * PER_ACCOUNT} requests from ${ACCOUNTS} accounts committed at once, paid from the Vault on anvil mining a block a second`)
  const ours = await payQueue(50)
  const peer = await payQueue(1)
  const rate = (p: Pass): number => p.withdrawals / p.seconds
  const row = (name: string, p: Pass): string[] =>
    [name, int(p.withdrawals), int(p.transactions), int(p.blocks), fixed(p.seconds, 1), fixed(rate(p), 2)]
  out('')
  for (const line of table(['executor', 'withdrawals', 'transactions', 'blocks', 'seconds', 'paid/s'],
    [row('batched (50)', ours), row('one at a time', peer)])) out(line)
  const ratio = rate(ours) / rate(peer)
  out('')
  out(`peerRatio (batched paid/s ÷ one-at-a-time paid/s): ${fixed(ratio, 1)}`)
  return { bench: 'withdrawals', paidPerSec: Number(fixed(rate(ours), 2)), seconds: Number(fixed(ours.seconds, 2)),
    peerPaidPerSec: Number(fixed(rate(peer), 3)), peerRatio: Number(fixed(ratio, 1)) }
}

export const benchmark: Benchmark = { name: 'withdrawals', run }
