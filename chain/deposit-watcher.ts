// Turns the Vault's Deposited events into Deposit commands once their block is deep enough.
// Only blocks with `confirmations` confirmations are ever read, so a reorg shallower than that
// never reaches the ledger. Idempotent by ref `<txHash>:<logIndex>`: the core refuses a ref it
// has seen, and the watcher skips refs the state holds. After a restart the cursor comes from
// the state too: the block of the newest deposit it credited (deposits are credited in chain
// order, so everything before that block is in).
//
// Deposits in blocks not yet deep enough are reported as they are seen: a DepositPending note
// per deposit each time its confirmation count changes (the history shows status 0 with
// "seen/required"), and one with 0 confirmations if its block leaves the chain before the
// depth. Notes change no balance; the credit is the Deposit alone.

import { getAddress, type JsonRpcProvider, type Log } from 'ethers'
import type { Deposit, DepositPending } from '../core/commands.js'
import type { ChainToken } from './deploy.js'
import { beyondSubAccounts, creditedSub } from './deposit-sub.js'
import { pollLoop, silentLogger, type ExchangeLink, type Logger } from './link.js'
import { LOG_BLOCK_RANGE, vaultAt } from './provider.js'
import { toLedger } from './units.js'

export interface DepositWatcherOptions {
  provider: JsonRpcProvider
  vault: string
  tokens: ChainToken[]
  exchange: ExchangeLink
  /** A deposit is credited once its block has this many confirmations (1: mined). */
  confirmations: number
  /** The first block that can hold a deposit (the Vault's deployment). */
  fromBlock: number
  pollMs?: number
  /** Most blocks per eth_getLogs (RPC providers cap ranges). */
  blockRange?: number
  /** Makes the chain's state so far survive a crash (the embedded chain's file), before any of it is credited. */
  persistChain?: () => Promise<void>
  logger?: Logger
}

const CHAIN_REF = /^(0x[0-9a-f]{64}):\d+$/
/** How many of the newest credited refs are looked up to find where to resume. */
const RESUME_LOOKUPS = 16

/** The transactions of the newest `n` deposits the state credited from a chain, newest first. */
export function chainDeposits(state: { depositRefs: Set<string> }, n: number): string[] {
  const refs = [...state.depositRefs]
  const out: string[] = []
  for (let i = refs.length - 1; i >= 0 && out.length < n; i--) {
    const m = CHAIN_REF.exec(refs[i]!)
    if (m) out.push(m[1]!)
  }
  return out
}

export class DepositWatcher {
  private next = -1
  private readonly vault
  private readonly tokens: Map<string, ChainToken>
  private readonly logger: Logger
  private loop: { stop(): Promise<void> } | undefined
  /** Deposits reported pending and not yet credited: the confirmation count last reported, by ref. */
  private readonly pending = new Map<string, { note: DepositPending }>()

  constructor(private readonly o: DepositWatcherOptions) {
    if (!Number.isInteger(o.confirmations) || o.confirmations < 1) throw new Error('confirmations must be at least 1')
    this.vault = vaultAt(o.vault, o.provider)
    this.tokens = new Map(o.tokens.map((t) => [getAddress(t.address), t]))
    this.logger = o.logger ?? silentLogger
  }

  /** The next block to read: known after the first poll. */
  get cursor(): number { return this.next }

  /** Whether a deposit it has seen waits for more confirmations (more blocks). */
  get awaitingConfirmations(): boolean { return this.pending.size > 0 }

  start(): void {
    this.loop ??= pollLoop(() => this.poll(), this.o.pollMs ?? 500, this.logger, 'deposit watcher')
  }

  async stop(): Promise<void> {
    await this.loop?.stop()
    this.loop = undefined
  }

  /** Reads every newly confirmed block and credits its deposits; how many were credited. */
  async poll(): Promise<number> {
    if (this.next < 0) this.next = await this.resumeBlock()
    const head = await this.o.provider.getBlockNumber()
    const safe = head - this.o.confirmations + 1
    const range = this.o.blockRange ?? LOG_BLOCK_RANGE
    let credited = 0
    while (this.next <= safe) {
      const to = Math.min(safe, this.next + range - 1)
      const logs = await this.o.provider.getLogs({ address: this.o.vault, topics: [this.vault.interface.getEvent('Deposited')!.topicHash],
        fromBlock: this.next, toBlock: to })
      logs.sort((a, b) => a.blockNumber - b.blockNumber || a.index - b.index)
      // A credit the chain could lose would be money the Vault does not hold.
      if (logs.length > 0) await this.o.persistChain?.()
      for (const log of logs) if (await this.credit(log)) credited++
      // Advanced only once the whole range is in: a failed submit reads it again (idempotent).
      this.next = to + 1
    }
    if (this.o.confirmations > 1) await this.reportPending(safe + 1, head)
    return credited
  }

  /** Notes for the deposits in blocks `from..head` (not yet deep enough), and for any that left the chain. */
  private async reportPending(from: number, head: number): Promise<void> {
    const seen = new Set<string>()
    if (from <= head) {
      const logs = await this.o.provider.getLogs({ address: this.o.vault, topics: [this.vault.interface.getEvent('Deposited')!.topicHash],
        fromBlock: Math.max(from, this.o.fromBlock), toBlock: head })
      logs.sort((a, b) => a.blockNumber - b.blockNumber || a.index - b.index)
      for (const log of logs) {
        const parsed = this.parse(log)
        if (parsed === undefined) continue
        seen.add(parsed.ref)
        const confirmations = head - log.blockNumber + 1
        if (this.pending.get(parsed.ref)?.note.confirmations === confirmations) continue
        const note: DepositPending = { type: 'DepositPending', account: parsed.account, sub: parsed.sub, asset: parsed.asset,
          amount: parsed.amount, ref: parsed.ref, confirmations, required: this.o.confirmations }
        if (await this.note(note)) this.pending.set(parsed.ref, { note })
      }
    }
    for (const [ref, { note }] of this.pending) {
      if (seen.has(ref)) continue
      this.pending.delete(ref)
      // Credited since (the usual case), or its block was reorganized away: then the row goes.
      if (!this.o.exchange.state().depositRefs.has(ref)) await this.note({ ...note, confirmations: 0 })
    }
  }

  /** Submits a pending note; false when refused (e.g. credited meanwhile). */
  private async note(cmd: DepositPending): Promise<boolean> {
    const ack = await this.o.exchange.submit(cmd)
    return ack.result.ok
  }

  /** A Deposited log as the ledger would credit it, or undefined (with a warning) when it would not be. */
  private parse(log: Log): { ref: string; account: string; sub: number; asset: string; amount: number } | undefined {
    const ref = `${log.transactionHash}:${log.index}`
    const state = this.o.exchange.state()
    const ev = this.vault.interface.parseLog(log)
    if (!ev) return undefined
    const token = this.tokens.get(getAddress(ev.args.token as string))
    const asset = token && state.assets.get(token.asset)
    const amount = token && asset ? toLedger(ev.args.amount as bigint, token.decimals, asset.scale) : undefined
    if (!token || amount === undefined) return undefined
    return { ref, account: getAddress(ev.args.account as string), sub: creditedSub(Number(ev.args.subAccount)), asset: token.asset, amount }
  }

  /** Where a fresh watcher starts: the block of the newest chain deposit the state holds. */
  private async resumeBlock(): Promise<number> {
    let best = this.o.fromBlock
    for (const tx of chainDeposits(this.o.exchange.state(), RESUME_LOOKUPS)) {
      const receipt = await this.o.provider.getTransactionReceipt(tx)
      if (receipt && receipt.blockNumber > best) best = receipt.blockNumber
    }
    return best
  }

  private async credit(log: Log): Promise<boolean> {
    const ref = `${log.transactionHash}:${log.index}`
    const state = this.o.exchange.state()
    if (state.depositRefs.has(ref)) return false
    const ev = this.vault.interface.parseLog(log)
    if (!ev) return false
    const token = this.tokens.get(getAddress(ev.args.token as string))
    const skip = (why: string): false => {
      this.logger.warn({ ref, token: ev.args.token, amount: String(ev.args.amount), why }, 'deposit not credited')
      return false
    }
    if (!token) return skip('token not listed')
    const asset = state.assets.get(token.asset)
    if (!asset) return skip(`asset ${token.asset} unknown to the exchange`)
    const amount = toLedger(ev.args.amount as bigint, token.decimals, asset.scale)
    if (amount === undefined) return skip(`amount below one unit of the ledger's ${asset.scale} decimals, or above its maximum`)
    const named = Number(ev.args.subAccount)
    if (beyondSubAccounts(named)) {
      this.logger.warn({ ref, subAccount: named }, 'deposit for a sub-account no address has: credited to the master account (sub-account 0)')
    }
    const cmd: Deposit = { type: 'Deposit', account: getAddress(ev.args.account as string), sub: creditedSub(named),
      asset: token.asset, amount, wallet: 'SPOT', ref }
    const ack = await this.o.exchange.submit(cmd)
    if (!ack.result.ok) {
      if (ack.result.code !== 'DEPOSIT_DUPLICATE') skip(`refused: ${ack.result.code}`)
      return false
    }
    this.logger.info({ ref, account: cmd.account, sub: cmd.sub, asset: cmd.asset, amount, seq: ack.seq }, 'deposit credited')
    return true
  }
}
