// The audit's money check: the log's deposits, payments and refunds held against the Vault's own
// history (chain/vault-records.ts), and the ledger's debt against what the Vault holds. The hash
// chain and the anchors prove the log was not rewritten; this proves what it says about money
// happened on chain:
// - every credited deposit is a Deposited event of the Vault, crediting that account and
//   sub-account that amount (token units rounded down to the ledger, chain/units.ts) of the
//   asset the token stands for;
// - every deposit into the Vault before the last one the log credited was credited, unless the
//   watcher's own rules skip it (under one ledger unit, above the ledger's maximum, a token the
//   log never paired with an asset), since the watcher credits in chain order; a deposit for a
//   sub-account no address has (chain/deposit-sub.ts) is credited to the master account, or, by
//   builds before that rule, refused by the ledger in the log;
// - every withdrawal marked paid was paid by the Vault in that transaction, to that address,
//   that amount of that token; none refunded was paid; none paid was never requested (in a
//   prefix of a log, one paid within PREFIX_GRACE_MS before its last entry or after it may be
//   of a withdrawal requested after it);
// - the Vault holds at least what the ledger owes per asset (all ever deposited less all paid
//   out), less what it already paid for withdrawals the log had not settled by its end.
// Which token an asset is comes from the log itself: the first credit or payment pairing them
// (a token paired with two assets, or an asset with two tokens, is a finding).
// Entries are collected during the replay and checked after it, against records read after
// the log, so every credit in it lies in blocks the records cover.

import type { Deposit, WithdrawalComplete } from '../core/commands.js'
import type { ChainDeclaration, State, Withdrawal } from '../core/state.js'
import type { Finding } from './audit.js'
import { getAddress } from 'ethers'
import { beyondSubAccounts, creditedSub } from './deposit-sub.js'
import { tokenUnitsCovering, toLedger } from './units.js'
import type { VaultRecords } from './vault-records.js'

/**
 * In a prefix, how long before the log's last entry a payment of a withdrawal it never requested
 * may have been made: the request comes before the payment, so a payment older than this (by the
 * block's timestamp against the sequencer's clock) had its request inside the log. The margin
 * covers the two clocks' difference and a block's time.
 */
export const PREFIX_GRACE_MS = 60_000

interface Credit { seq: number; cmd: Deposit }
interface Settlement { seq: number; w: Withdrawal; txId?: string }

/** What the check saw, for the report. */
export interface MoneySummary {
  depositsMatched: number
  /** Vault deposits after the log's last credit (not credited yet: the watcher waits for confirmations). */
  depositsAfter: number
  /**
   * Vault deposits before it the watcher's rules skip: dust, above the maximum, unpaired tokens, and
   * sub-accounts no address has that the log's ledger refused (builds before those were credited).
   */
  depositsSkipped: number
  /** Withdrawals the log marked paid, and of those, the ones the Vault paid as marked. */
  paymentsMarked: number
  paymentsMatched: number
  /**
   * Per asset: what the Vault holds and what the ledger owes it to hold, token units of a token
   * with `decimals`; token '' for an asset no credit or payment paired with a token (owed in ledger units, held unknown).
   */
  reserves: { asset: string; token: string; decimals: number; held: bigint; owed: bigint }[]
}

/** What the check keeps of the state after the log's last entry. */
interface LogEnd {
  seq: number
  time: number
  chain: ChainDeclaration | null
  scales: Map<string, number>
  /** Per asset, all ever deposited less all paid out, ledger units. */
  owed: Map<string, bigint>
  /** Withdrawals still pending. */
  pending: Set<number>
  nextWithdrawalId: number
}

/** A prefix of a log still growing: a block's timestamp (seconds), to tell how recent a payment is. */
export interface Prefix {
  blockTime: (block: number) => Promise<number>
}

export class MoneyCheck {
  private readonly credits: Credit[] = []
  private readonly paid: Settlement[] = []
  private readonly refunded: Settlement[] = []
  private end: LogEnd | undefined
  /** Refs of deposits for a sub-account no address has that the ledger refused as such. */
  private readonly refusedBeyond = new Set<string>()

  /** Called before `cmd` is applied: the withdrawal it settles, as it stands then. */
  before(state: State, cmd: { type: string; withdrawalId?: unknown }): Withdrawal | undefined {
    if (cmd.type !== 'WithdrawalComplete' && cmd.type !== 'WithdrawalFail') return undefined
    const w = state.withdrawals.get(cmd.withdrawalId as number)
    return w === undefined ? undefined : { ...w }
  }

  /** Called once `cmd` was accepted at `seq`, with what before() gave. */
  accepted(seq: number, cmd: { type: string }, w: Withdrawal | undefined): void {
    if (cmd.type === 'Deposit') this.credits.push({ seq, cmd: cmd as Deposit })
    else if (cmd.type === 'WithdrawalComplete' && w) this.paid.push({ seq, w, txId: (cmd as WithdrawalComplete).txId })
    else if (cmd.type === 'WithdrawalFail' && w) this.refunded.push({ seq, w })
  }

  /** Called once `cmd` was refused with `code`. */
  refused(cmd: { type: string; sub?: unknown; ref?: unknown }, code: string | undefined): void {
    if (cmd.type === 'Deposit' && code === 'ACCOUNT_INVALID' && typeof cmd.sub === 'number' && beyondSubAccounts(cmd.sub)) {
      this.refusedBeyond.add(String(cmd.ref).toLowerCase())
    }
  }

  /** The tokens the log declared (after finish()): the Vault's holdings of each are read too. */
  get declaredTokens(): string[] {
    return (this.end?.chain?.tokens ?? []).map((t) => t.address)
  }

  /** Called with the state after the last entry. */
  finish(state: State): void {
    const owed = new Map<string, bigint>()
    for (const [asset, n] of state.deposited) owed.set(asset, n - (state.withdrawn.get(asset) ?? 0n))
    this.end = { seq: state.seq, time: state.time, chain: state.chain, scales: new Map([...state.assets.values()].map((a) => [a.name, a.scale])),
      owed, pending: new Set(state.withdrawals.keys()), nextWithdrawalId: state.nextWithdrawalId }
  }

  /**
   * The findings against the Vault's records (read after the log). `prefix`: the log is a prefix
   * of one still growing, so a payment of a withdrawal it never requested may be of a later one
   * if made late enough.
   */
  async reconcile(r: VaultRecords, prefix: Prefix | undefined): Promise<{ findings: Finding[]; summary: MoneySummary }> {
    const c = new Reconciliation(this.end!, r, this.refusedBeyond)
    const credited = c.credits(this.credits)
    const passed = c.passedOver(credited.at)
    const payments = await c.payments(this.paid, this.refunded, prefix)
    const reserves = c.reserves(payments.unsettled)
    return { findings: c.findings, summary: { depositsMatched: credited.matched, depositsAfter: r.deposits.length - passed.last - 1,
      depositsSkipped: passed.skipped, paymentsMarked: this.paid.length, paymentsMatched: payments.matched, reserves } }
  }
}

const sameAddress = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase()

/** One reconciliation of a log's money with the Vault's records, its findings collected in order. */
class Reconciliation {
  readonly findings: Finding[] = []
  /** Asset ⇄ token as the log declared them, else as its first credits and payments pair them. */
  private readonly tokenOf = new Map<string, string>()
  private readonly assetOf = new Map<string, string>()
  private readonly declaredDecimals = new Map<string, number>()
  private readonly since: string

  constructor(private readonly end: LogEnd, private readonly r: VaultRecords, private readonly refusedBeyond: Set<string>) {
    if (end.chain !== null && end.chain.chainId !== r.chainId) {
      this.findings.push({ seq: end.seq, what: `the log declares its money on chain ${end.chain.chainId}, but the Vault was read on chain ${r.chainId}` })
    }
    for (const t of end.chain?.tokens ?? []) {
      const token = getAddress(t.address)
      this.tokenOf.set(t.asset, token)
      this.assetOf.set(token, t.asset)
      this.declaredDecimals.set(token, t.decimals)
      const onChain = r.tokens.get(token)?.decimals
      if (onChain === undefined) this.findings.push({ seq: end.seq, what: `the log declares ${t.asset}'s token ${token}, which is no ERC-20 on this chain` })
      else if (onChain !== t.decimals) this.findings.push({ seq: end.seq, what: `the log declares ${t.asset}'s token ${token} with ${t.decimals} decimals, but it has ${onChain}` })
    }
    this.since = end.chain === null ? 'before' : 'in the log\'s chain declaration'
  }

  /** Pairs an asset with a token; false (with a finding) when either was paired otherwise. */
  private pair(seq: number, asset: string, token: string): boolean {
    const t = this.tokenOf.get(asset)
    const a = this.assetOf.get(token)
    if ((t !== undefined && t !== token) || (a !== undefined && a !== asset)) {
      const was = t !== undefined && t !== token ? `${asset} was ${t}` : `${token} was ${a}`
      this.findings.push({ seq, what: `${asset} is paired with token ${token} here, but ${was} ${this.since}` })
      return false
    }
    this.tokenOf.set(asset, token)
    this.assetOf.set(token, asset)
    return true
  }

  /** A token's decimals: its own, else as declared (a token answering none is a finding already). */
  private decimals(token: string): number {
    return this.r.tokens.get(token)?.decimals ?? this.declaredDecimals.get(token) ?? 0
  }

  private scale(asset: string): number {
    return this.end.scales.get(asset) ?? 0
  }

  /** Each credit against its deposit: how many matched, and the seq crediting each deposit (by its place in chain order). */
  credits(credits: Credit[]): { matched: number; at: Map<number, number> } {
    const position = new Map(this.r.deposits.map((d, i) => [d.ref.toLowerCase(), i]))
    const at = new Map<number, number>()
    let matched = 0
    for (const { seq, cmd } of credits) {
      const i = position.get(String(cmd.ref).toLowerCase())
      const what = `${cmd.amount} units of ${cmd.asset} credited to ${cmd.account} sub-account ${cmd.sub} (ref ${cmd.ref})`
      if (i === undefined) {
        this.findings.push({ seq, what: `${what}: no such deposit into the Vault` })
        continue
      }
      at.set(i, seq)
      const d = this.r.deposits[i]!
      if (!this.pair(seq, cmd.asset, d.token)) continue
      const amount = toLedger(d.amount, this.decimals(d.token), this.scale(cmd.asset))
      const wrong = [
        ...(sameAddress(d.account, cmd.account) ? [] : [`account ${d.account}`]),
        ...(creditedSub(d.sub) === cmd.sub ? [] : [`sub-account ${d.sub}`]),
        ...(amount === cmd.amount ? [] : [`${amount ?? 'nothing'} units`]),
      ]
      if (wrong.length > 0) this.findings.push({ seq, what: `${what}, but the Vault's deposit is for ${wrong.join(', ')}` })
      else matched++
    }
    return { matched, at }
  }

  /**
   * Deposits not credited up to the last one credited (the watcher credits in chain order, so it
   * passed them): findings unless the watcher's rules skip them. The last credited one's place.
   */
  passedOver(creditedAt: Map<number, number>): { skipped: number; last: number } {
    let last = -1
    for (const i of creditedAt.keys()) last = Math.max(last, i)
    let skipped = 0
    let nextCredit: number | undefined
    for (let i = last; i >= 0; i--) {
      if (creditedAt.has(i)) {
        nextCredit = creditedAt.get(i)
        continue
      }
      const d = this.r.deposits[i]!
      const asset = this.assetOf.get(d.token)
      if (asset === undefined || !this.end.scales.has(asset) || toLedger(d.amount, this.decimals(d.token), this.scale(asset)) === undefined ||
        this.refusedBeyond.has(d.ref.toLowerCase())) {
        skipped++
        continue
      }
      this.findings.push({ seq: nextCredit!, what: `the Vault's deposit ${d.ref} (block ${d.block}) of ${d.amount} token units of ${asset} ` +
        `by ${d.account} sub-account ${d.sub} was never credited, though later deposits were` })
    }
    return { skipped, last }
  }

  /**
   * Withdrawals marked paid against the Vault's payments, refunds against them, and payments the
   * log does not settle: per token, what those it had not recorded by its end took off the Vault.
   */
  async payments(paid: Settlement[], refunded: Settlement[], prefix: Prefix | undefined): Promise<{ matched: number; unsettled: Map<string, bigint> }> {
    let matched = 0
    const settled = new Set<number>()
    for (const { seq, w, txId } of paid) {
      settled.add(w.withdrawalId)
      const p = this.r.payments.get(w.withdrawalId)
      const what = `withdrawal ${w.withdrawalId} of ${w.amount} units of ${w.asset} to ${w.address} marked paid by ${txId}`
      if (p === undefined) {
        this.findings.push({ seq, what: `${what}, but the Vault never paid it` })
        continue
      }
      if (!this.pair(seq, w.asset, p.token)) continue
      const units = tokenUnitsCovering(BigInt(w.amount), this.decimals(p.token), this.scale(w.asset))
      const wrong = [
        ...(sameAddress(p.txHash, txId ?? '') ? [] : [`transaction ${p.txHash}`]),
        ...(sameAddress(p.to, w.address) ? [] : [`address ${p.to}`]),
        ...(p.amount === units ? [] : [`${p.amount} token units`]),
      ]
      if (wrong.length > 0) this.findings.push({ seq, what: `${what}, but the Vault's payment is ${wrong.join(', ')}` })
      else matched++
    }
    for (const { seq, w } of refunded) {
      settled.add(w.withdrawalId)
      const p = this.r.payments.get(w.withdrawalId)
      if (p) this.findings.push({ seq, what: `withdrawal ${w.withdrawalId} refunded, but the Vault paid it (${p.amount} token units to ${p.to} in ${p.txHash})` })
    }
    const unsettled = new Map<string, bigint>()
    for (const p of this.r.payments.values()) {
      if (settled.has(p.id)) continue
      // Paid, and the log had not recorded it by its end: its debt is already off the Vault.
      const later = prefix !== undefined && p.id >= this.end.nextWithdrawalId && await prefix.blockTime(p.block) * 1000 >= this.end.time - PREFIX_GRACE_MS
      if (this.end.pending.has(p.id) || later) {
        unsettled.set(p.token, (unsettled.get(p.token) ?? 0n) + p.amount)
      } else {
        this.findings.push({ seq: this.end.seq, what: `the Vault paid withdrawal ${p.id} (${p.amount} token units to ${p.to} in ${p.txHash}), ` +
          'which the log never requested' })
      }
    }
    return { matched, unsettled }
  }

  /** Per asset paired with a token, what the Vault holds against what the ledger owes (less what it already paid for unsettled withdrawals). */
  reserves(unsettled: Map<string, bigint>): MoneySummary['reserves'] {
    const out: MoneySummary['reserves'] = []
    for (const [asset, token] of this.tokenOf) {
      const held = this.r.tokens.get(token)!.held
      const owed = tokenUnitsCovering(this.end.owed.get(asset) ?? 0n, this.decimals(token), this.scale(asset)) - (unsettled.get(token) ?? 0n)
      out.push({ asset, token, decimals: this.decimals(token), held, owed })
      if (held < owed) this.findings.push({ seq: this.end.seq, what: `the Vault holds ${held} token units of ${asset} (${token}), but the ledger owes ${owed}` })
    }
    // An asset owed but paired with no token (no credit or payment of it matched): its reserve is unknown.
    for (const [asset, owed] of this.end.owed) {
      if (!this.tokenOf.has(asset) && owed > 0n) out.push({ asset, token: '', decimals: this.scale(asset), held: 0n, owed })
    }
    return out
  }
}
