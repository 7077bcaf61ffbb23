// Pays the withdrawals the ledger already debited: the pending ones in the state, several in
// one transaction (Vault.withdrawMany) and one at a time (Vault.withdraw) where that reverts,
// from the operator's key; then submits WithdrawalComplete with the transaction hash, or
// WithdrawalFail (the core refunds) when a payment alone reverts. The Vault
// pays an id at most once, and before sending the executor asks it whether the id was paid
// (a restart between paying and completing), so no withdrawal is ever paid twice. A payment
// the chain refuses is refunded only once what the operator sent before this executor started
// is mined: a payment in flight from an earlier run, or from a deposed leader with the same key,
// may be what the refusal is about, and a refund beside it would pay the user twice.
// A payment is recorded (WithdrawalComplete) only once its block is as deep as a deposit's must
// be (`confirmations`): a reorg shallower than that can remove it, and the id is then paid again
// (the Vault still pays it at most once, on whichever branch stands).

import { getAddress, toBeHex, zeroPadValue, type Contract, type JsonRpcProvider, type TransactionReceipt } from 'ethers'
import type { Withdrawal } from '../core/state.js'
import type { ChainToken } from './deploy.js'
import { pollLoop, silentLogger, type ExchangeLink, type Logger } from './link.js'
import { LOG_BLOCK_RANGE, revertName, vaultAt, type Operator } from './provider.js'
import { toTokenUnits } from './units.js'

export interface WithdrawalExecutorOptions {
  provider: JsonRpcProvider
  vault: string
  /** Where to look for an earlier payment's event (the Vault's deployment block). */
  fromBlock: number
  tokens: ChainToken[]
  exchange: ExchangeLink
  operator: Operator
  /** Makes the chain's state so far survive a crash (the embedded chain's file), before a payment is recorded. */
  persistChain?: () => Promise<void>
  /** How deep a payment's block must be before it is recorded (1: mined), as the deposit watcher's. */
  confirmations?: number
  /** Withdrawals paid in one transaction at most (default MAX_BATCH; 1: each alone, as before session 52). */
  batch?: number
  /** Most blocks per eth_getLogs (default LOG_BLOCK_RANGE, as the deposit watcher's). */
  blockRange?: number
  pollMs?: number
  logger?: Logger
}

export type Outcome = { status: 'COMPLETED'; txId: string } | { status: 'FAILED'; reason: string }
/** Not decided yet: the chain refused the payment while the operator had transactions unmined. */
type Undecided = { status: 'UNDECIDED'; reason: string; inFlight: number }
/** Paid, in a block not yet `confirmations` deep. */
type Shallow = { status: 'SHALLOW'; txId: string }
/** A Vault payment: its transaction and block, and, found by its event, whom it paid what. */
interface Payment { txId: string; block: number; paid?: { token: string; to: string; amount: bigint } }
/** A withdrawal ready to pay: the token's address and the amount in its units. */
interface Payable { w: Withdrawal; token: string; units: bigint }

/** Withdrawals paid in one transaction at most (~70k gas each: 3.5M of a block's 30M). */
const MAX_BATCH = 50

export class WithdrawalExecutor {
  private readonly vault: Contract
  private readonly logger: Logger
  private loop: { stop(): Promise<void> } | undefined
  /** Pending withdrawals by the seq of the state they were first seen in (their request is at or before it). */
  private readonly seenAt = new Map<number, number>()
  /** Withdrawals left undecided, and the reason last logged for each (logged once per reason). */
  private readonly undecided = new Map<number, string>()
  /** Withdrawals paid in a block not deep enough yet, and that payment's transaction. */
  private readonly shallow = new Map<number, string>()
  /**
   * What this poll read of the chain: the head and receipts, each read once (a batch's payments
   * share one transaction, and a public RPC provider counts every call).
   */
  private view: { head?: Promise<number>; receipts: Map<string, Promise<TransactionReceipt | null>> } = { receipts: new Map() }
  /**
   * The operator's pending nonce at this executor's first poll: transactions below it were sent
   * before (by an earlier run or another process), those after by this process's services.
   */
  private nonceAtStart: number | undefined

  constructor(private readonly o: WithdrawalExecutorOptions) {
    this.vault = vaultAt(o.vault, o.provider)
    this.logger = o.logger ?? silentLogger
  }

  start(): void {
    this.loop ??= pollLoop(() => this.poll(), this.o.pollMs ?? 500, this.logger, 'withdrawal executor')
  }

  async stop(): Promise<void> {
    await this.loop?.stop()
    this.loop = undefined
  }

  /** Whether a payment waits for its block to be deep enough (an idle dev chain must mine for it). */
  get awaitingConfirmations(): boolean { return this.shallow.size > 0 }

  /**
   * Settles every pending withdrawal, oldest first; how many were settled. One first seen in a
   * state not yet committed (link.ts committedSeq) waits until that state is: its request may
   * not survive a fail-over, and the id would then be another request's.
   */
  async poll(): Promise<number> {
    this.view = { receipts: new Map() }
    const state = this.o.exchange.state()
    const committed = this.o.exchange.committedSeq?.() ?? state.seq
    this.nonceAtStart ??= await this.o.provider.getTransactionCount(this.o.operator.address, 'pending')
    const pending = [...state.withdrawals.values()]
      .filter((w) => w.status === 'PROCESSING').sort((a, b) => a.withdrawalId - b.withdrawalId)
    for (const id of this.seenAt.keys()) if (state.withdrawals.get(id)?.status !== 'PROCESSING') this.seenAt.delete(id)
    for (const id of this.undecided.keys()) if (!this.seenAt.has(id)) this.undecided.delete(id)
    for (const id of this.shallow.keys()) if (!this.seenAt.has(id)) this.shallow.delete(id)
    const due = pending.filter((w) => {
      const seen = this.seenAt.get(w.withdrawalId) ?? state.seq
      this.seenAt.set(w.withdrawalId, seen)
      return seen <= committed
    })
    const outcomes = await this.decide(due)
    let settled = 0
    let persisted = false
    for (const w of due) {
      const outcome = outcomes.get(w.withdrawalId)!
      if (outcome.status === 'UNDECIDED') {
        if (this.undecided.get(w.withdrawalId) !== outcome.reason) {
          this.logger.warn({ withdrawalId: w.withdrawalId, reason: outcome.reason, inFlight: outcome.inFlight },
            'withdrawal refused on chain while operator transactions are unmined; waiting for them before refunding')
        }
        this.undecided.set(w.withdrawalId, outcome.reason)
        continue
      }
      this.undecided.delete(w.withdrawalId)
      if (outcome.status === 'SHALLOW') {
        this.shallow.set(w.withdrawalId, outcome.txId)
        continue
      }
      this.shallow.delete(w.withdrawalId)
      // Recorded as paid only once the payment cannot vanish with the chain (every payment of
      // this poll was made before the first is recorded: one save covers them all).
      if (outcome.status === 'COMPLETED' && !persisted) {
        await this.o.persistChain?.()
        persisted = true
      }
      const ack = await this.o.exchange.submit(outcome.status === 'COMPLETED'
        ? { type: 'WithdrawalComplete', withdrawalId: w.withdrawalId, txId: outcome.txId }
        : { type: 'WithdrawalFail', withdrawalId: w.withdrawalId, reason: outcome.reason })
      if (!ack.result.ok) {
        this.logger.warn({ withdrawalId: w.withdrawalId, code: ack.result.code }, 'withdrawal settlement refused')
        continue
      }
      this.logger.info({ withdrawalId: w.withdrawalId, ...outcome }, 'withdrawal settled')
      settled++
    }
    return settled
  }

  /**
   * What becomes of each due withdrawal this poll: one the Vault paid already is settled by that
   * payment; the rest are paid, up to MAX_BATCH in one transaction (`withdrawMany`), and one at a
   * time where a batch reverts (one of them the Vault cannot pay, or a Vault without it). Throws
   * only when the chain could not be asked.
   */
  private async decide(due: Withdrawal[]): Promise<Map<number, Outcome | Undecided | Shallow>> {
    const decided = new Map<number, Outcome | Undecided | Shallow>()
    const unpaid: Payable[] = []
    for (const w of due) {
      const earlier = await this.payment(w.withdrawalId)
      if (earlier) {
        decided.set(w.withdrawalId, this.paidElsewhere(w, earlier) ?? await this.settled(earlier))
        continue
      }
      const gone = this.shallow.get(w.withdrawalId)
      if (gone !== undefined) {
        // Its block left the chain (a reorg shallower than the depth) and took the payment along.
        this.logger.warn({ withdrawalId: w.withdrawalId, txId: gone }, 'withdrawal payment left the chain in a reorg; paying again')
        this.shallow.delete(w.withdrawalId)
      }
      const payable = this.payable(w)
      if ('status' in payable) decided.set(w.withdrawalId, payable)
      else unpaid.push(payable)
    }
    const batch = this.o.batch ?? MAX_BATCH
    for (let i = 0; batch > 1 && unpaid.length - i > 1; i += batch) {
      const paid = await this.payMany(unpaid.slice(i, i + batch))
      if (paid === undefined) break
      for (const [id, outcome] of paid) decided.set(id, outcome)
    }
    for (const p of unpaid) if (!decided.has(p.w.withdrawalId)) decided.set(p.w.withdrawalId, await this.pay(p))
    return decided
  }

  /** What paying `w` takes: its token and amount in token units, or why it cannot be paid. */
  private payable(w: Withdrawal): Payable | Outcome {
    const token = this.o.tokens.find((t) => t.asset === w.asset)
    if (!token) return { status: 'FAILED', reason: `${w.asset} is not on chain` }
    const scale = this.o.exchange.state().assets.get(w.asset)?.scale
    const units = scale === undefined ? undefined : toTokenUnits(w.amount, token.decimals, scale)
    if (units === undefined) return { status: 'FAILED', reason: `amount not payable in ${token.decimals}-decimal tokens` }
    return { w, token: token.address, units }
  }

  /**
   * Pays `batch` in one transaction: the outcome of each id it paid (the Vault passes over one
   * another transaction paid meanwhile: paid alone, it reverts and that payment is found), or
   * undefined when the transaction reverts (each is then paid alone, which tells which one cannot be).
   */
  private async payMany(batch: Payable[]): Promise<Map<number, Outcome | Shallow> | undefined> {
    let receipt
    try {
      receipt = await this.o.operator.transact(await this.vault.withdrawMany!.populateTransaction(
        batch.map((p) => p.w.withdrawalId), batch.map((p) => p.token), batch.map((p) => getAddress(p.w.address)),
        batch.map((p) => p.units)))
    } catch (err) {
      if (revertName(err) === undefined) throw err
      return undefined
    }
    const paid = new Map<number, Outcome | Shallow>()
    for (const id of this.withdrawnIds(receipt)) paid.set(id, await this.settled({ txId: receipt.hash, block: receipt.blockNumber }))
    return paid
  }

  /** Pays one withdrawal. Throws only when the chain could not be asked. */
  private async pay({ w, token, units }: Payable): Promise<Outcome | Undecided | Shallow> {
    try {
      const receipt = await this.o.operator.transact(
        await this.vault.withdraw!.populateTransaction(w.withdrawalId, token, getAddress(w.address), units))
      return this.settled({ txId: receipt.hash, block: receipt.blockNumber })
    } catch (err) {
      const reverted = revertName(err)
      if (reverted === undefined) throw err
      // A payment that went out before (an earlier run's, mined since) makes this one revert:
      // the id is paid, so it completes, never refunds.
      const paid = await this.payment(w.withdrawalId)
      if (paid) return this.paidElsewhere(w, paid) ?? this.settled(paid)
      // One not mined yet can too: the node judges gas against its pending state, where that
      // payment already paid the id (AlreadyPaid) or emptied the Vault. Refunded only once what
      // was sent before this executor started is mined; until then the next polls ask again.
      const inFlight = await this.inFlight()
      if (inFlight > 0 || reverted === 'AlreadyPaid') return { status: 'UNDECIDED', reason: reverted, inFlight }
      return { status: 'FAILED', reason: reverted }
    }
  }

  /**
   * How many transactions sent before this executor started are not mined yet. (This process's
   * own, such as the anchorer's, pay no withdrawal: on a chain with slow blocks one is nearly
   * always in flight, and counting them would hold refunds back for good.)
   */
  private async inFlight(): Promise<number> {
    const mined = await this.o.provider.getTransactionCount(this.o.operator.address, 'latest')
    return Math.max(0, (this.nonceAtStart ?? 0) - mined)
  }

  /**
   * FAILED (refunded) when the Vault's payment of `w`'s id is not `w`'s: another token, payee or
   * amount. The id is spent (the Vault pays each once), so `w` can never be paid under it; marking
   * it paid would give its owner nothing. Only another sender with the operator's key, or a log
   * restored onto a Vault that had paid past it, spends an id so; the audit shows that payment.
   */
  private paidElsewhere(w: Withdrawal, p: Payment): Outcome | undefined {
    const due = this.payable(w)
    if (p.paid === undefined || 'status' in due) return undefined
    if (p.paid.token.toLowerCase() === due.token.toLowerCase() && p.paid.to.toLowerCase() === w.address.toLowerCase() &&
      p.paid.amount === due.units) return undefined
    this.logger.error({ withdrawalId: w.withdrawalId, txId: p.txId, paid: { ...p.paid, amount: String(p.paid.amount) },
      due: { token: due.token, to: w.address, amount: String(due.units) } },
    'withdrawal id already paid by the Vault to another payee or amount; refunding (the operator key spent it, or the log was restored onto a Vault that paid past it)')
    return { status: 'FAILED', reason: `the Vault paid id ${w.withdrawalId} otherwise (${p.txId})` }
  }

  /** Completed when `p`'s block is deep enough, else left to a later poll. */
  private async settled(p: Payment): Promise<Outcome | Shallow> {
    const required = this.o.confirmations ?? 1
    if (required <= 1) return { status: 'COMPLETED', txId: p.txId }
    this.view.head ??= this.o.provider.getBlockNumber()
    // A payment made in this poll may lie above the head read before it.
    const depth = Math.max(await this.view.head, p.block) - p.block + 1
    return { status: depth >= required ? 'COMPLETED' : 'SHALLOW', txId: p.txId }
  }

  /**
   * The transaction that paid withdrawal `id` and its block, if the Vault paid it: the payment
   * this executor saw last (its receipt), else the id's Withdrawn event, searched back from the
   * head `blockRange` blocks at a time (RPC providers cap a call's range, and a Vault a few days
   * old on a public chain is past any cap: one call from its deployment would always be refused).
   */
  private async payment(id: number): Promise<Payment | undefined> {
    const known = this.shallow.get(id)
    if (known !== undefined) {
      // A node gives receipts of the chain as it stands: one with the event is the payment.
      let receipt = this.view.receipts.get(known)
      if (receipt === undefined) this.view.receipts.set(known, receipt = this.o.provider.getTransactionReceipt(known))
      const r = await receipt
      const event = r === null ? undefined : this.withdrawnEvents(r).find((e) => e.id === id)
      if (event !== undefined) return { txId: known, block: r!.blockNumber, paid: event }
    }
    if (!(await this.vault.paid(id))) return undefined
    const topics = [this.vault.interface.getEvent('Withdrawn')!.topicHash, zeroPadValue(toBeHex(id), 32)]
    const range = this.o.blockRange ?? LOG_BLOCK_RANGE
    for (let to = await this.o.provider.getBlockNumber(); to >= this.o.fromBlock; to -= range) {
      const logs = await this.o.provider.getLogs({ address: this.o.vault, topics, fromBlock: Math.max(this.o.fromBlock, to - range + 1), toBlock: to })
      const log = logs.at(-1)
      if (log !== undefined) return { txId: log.transactionHash, block: log.blockNumber, paid: this.withdrawn(log) }
    }
    throw new Error(`withdrawal ${id} is paid but its event was not found`)
  }

  /** The withdrawal ids the Vault paid in `receipt`'s transaction (its Withdrawn events). */
  private withdrawnIds(receipt: TransactionReceipt): number[] {
    return this.withdrawnEvents(receipt).map((e) => e.id)
  }

  /** The Vault's Withdrawn events in `receipt`'s transaction: which id, whom it paid what. */
  private withdrawnEvents(receipt: TransactionReceipt): ({ id: number } & NonNullable<Payment['paid']>)[] {
    const topic = this.vault.interface.getEvent('Withdrawn')!.topicHash
    return receipt.logs.filter((l) => l.address.toLowerCase() === this.o.vault.toLowerCase() && l.topics[0] === topic)
      .map((l) => ({ id: Number(BigInt(l.topics[1]!)), ...this.withdrawn(l) }))
  }

  /** A Withdrawn event's token, payee and amount. */
  private withdrawn(log: { topics: readonly string[]; data: string }): NonNullable<Payment['paid']> {
    const e = this.vault.interface.parseLog(log)!
    return { token: String(e.args.token), to: String(e.args.to), amount: BigInt(e.args.amount) }
  }
}
