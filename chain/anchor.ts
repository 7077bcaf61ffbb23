// Posts checkpoint roots to the Vault: (seq, stateRoot, logHash), logHash being the hash of
// the log entry at seq. Checkpoints arrive from the node as it applies them; at most one
// anchor goes out per `intervalMs`, for the newest checkpoint whose entry is durable. A seq
// the Vault already has (or one below its latest) is never sent again, so a retry after a
// failure or a restart is harmless. The node (balance proofs, /metrics) is told of an anchor
// only once its block is `confirmations` deep, as deposits are credited: a reorg shallower than
// that can remove it, and a proof naming it could then not be checked until the next one.

import type { Contract, JsonRpcProvider } from 'ethers'
import { pollLoop, silentLogger, type Logger } from './link.js'
import { revertName, vaultAt, type Operator } from './provider.js'

export interface AnchorOptions {
  provider: JsonRpcProvider
  vault: string
  operator: Operator
  /** The hash of the durable log entry at seq (hex, with or without 0x), or undefined if not durable yet. */
  logHashAt(seq: number): Promise<string | undefined>
  /** At most one anchor per this many ms. */
  intervalMs?: number
  logger?: Logger
  /** The newest seq the Vault holds an anchor for `confirmations` blocks deep, whenever the anchorer learns one. */
  onAnchored?(seq: number): void
  /** How deep an anchor's block must be before the node is told of it (1: mined). */
  confirmations?: number
}

export interface Anchored {
  seq: number
  root: string
  logHash: string
  txId: string
}

const with0x = (h: string): string => (h.startsWith('0x') ? h : `0x${h}`)

export class Anchorer {
  private readonly vault: Contract
  private readonly logger: Logger
  private newest: { seq: number; root: string } | undefined
  private loop: { stop(): Promise<void> } | undefined
  /** Whether the Vault holds an anchor not yet deep enough to tell (an idle dev chain must mine for it). */
  awaitingConfirmations = false

  constructor(private readonly o: AnchorOptions) {
    this.vault = vaultAt(o.vault, o.provider)
    this.logger = o.logger ?? silentLogger
  }

  /** A checkpoint the node computed (node.onCheckpoint). Only the newest is kept. */
  offer(cp: { seq: number; root: string }): void {
    if (!this.newest || cp.seq > this.newest.seq) this.newest = { seq: cp.seq, root: cp.root }
  }

  start(): void {
    this.loop ??= pollLoop(() => this.post(), this.o.intervalMs ?? 10_000, this.logger, 'anchor')
  }

  async stop(): Promise<void> {
    await this.loop?.stop()
    this.loop = undefined
  }

  /** Anchors the newest checkpoint unless the Vault has it (or a later one) already. */
  async post(): Promise<Anchored | undefined> {
    // Read with no checkpoint to offer too: a restarted node has none until its next one, maybe
    // hours away, and learns only from here which checkpoint the Vault anchored (the one its
    // balance proofs are made at, naming the Vault).
    const latest = Number(await this.vault.latestSeq())
    const deep = await this.deepSeq(latest)
    if (deep > 0) this.o.onAnchored?.(deep)
    this.awaitingConfirmations = latest > deep
    const cp = this.newest
    if (!cp || cp.seq <= latest) return undefined
    const logHash = await this.o.logHashAt(cp.seq)
    if (logHash === undefined) return undefined
    try {
      const receipt = await this.o.operator.transact(await this.vault.anchor!.populateTransaction(cp.seq, cp.root, with0x(logHash)))
      const anchored = { seq: cp.seq, root: cp.root, logHash: with0x(logHash), txId: receipt.hash as string }
      this.logger.info(anchored, 'state root anchored')
      if ((this.o.confirmations ?? 1) <= 1) this.o.onAnchored?.(cp.seq)
      else this.awaitingConfirmations = true
      return anchored
    } catch (err) {
      // Another anchorer got there first (SeqNotAfter): nothing to do, the Vault has it.
      if (revertName(err) === 'SeqNotAfter') return undefined
      throw err
    }
  }

  /** The Vault's newest anchored seq as of the block `confirmations` deep (`latest`, read at the head, when 1). */
  private async deepSeq(latest: number): Promise<number> {
    const confirmations = this.o.confirmations ?? 1
    if (confirmations <= 1 || latest === 0) return latest
    const block = await this.o.provider.getBlockNumber() - confirmations + 1
    try {
      return Number(await this.vault.latestSeq!({ blockTag: Math.max(0, block) }))
    } catch (err) {
      // That block is older than the Vault (just deployed): no code there, nothing anchored.
      if ((err as { code?: string }).code === 'BAD_DATA') return 0
      throw err
    }
  }
}

/** The anchor the Vault holds at `seq`, or undefined when it holds none there (one call, however many it holds). */
export async function anchorAt(provider: JsonRpcProvider, vaultAddress: string, seq: number): Promise<{ root: string; logHash: string } | undefined> {
  try {
    const [root, logHash] = await vaultAt(vaultAddress, provider).anchorAt(seq) as [string, string]
    return { root, logHash }
  } catch (err) {
    if (revertName(err) === 'NoAnchor') return undefined
    throw err
  }
}

/** The newest seq the Vault anchored at or below `seq`, newest first (usually one call after the count); undefined: none. */
export async function newestAnchorAtOrBelow(provider: JsonRpcProvider, vaultAddress: string, seq: number): Promise<number | undefined> {
  const vault = vaultAt(vaultAddress, provider)
  for (let i = Number(await vault.anchorCount()) - 1; i >= 0; i--) {
    const anchored = Number(await vault.anchoredSeqs(i))
    if (anchored <= seq) return anchored
  }
  return undefined
}

/** Every anchor the Vault holds, oldest first. */
export async function readAnchors(provider: JsonRpcProvider, vaultAddress: string): Promise<{ seq: number; root: string; logHash: string }[]> {
  const vault = vaultAt(vaultAddress, provider)
  const n = Number(await vault.anchorCount())
  const out: { seq: number; root: string; logHash: string }[] = []
  for (let i = 0; i < n; i++) {
    const seq = await vault.anchoredSeqs(i) as bigint
    const [root, logHash] = await vault.anchorAt(seq) as [string, string]
    out.push({ seq: Number(seq), root, logHash })
  }
  return out
}
