// The audit: replays a log from genesis and checks everything an outsider can check — the
// hash chain (every entry's hash covers its bytes and the entry before), every signature the
// log carries (the wallet's EIP-712 signature on each session; oracle signatures once prices
// carry them), and every anchored (seq, stateRoot, logHash) against the state root recomputed
// at that seq and the entry's hash. A chain break stops the replay (nothing after it can be
// trusted), as does a rules declaration newer than this build's (core/rules.ts: what follows
// needs a newer build); every other finding is collected. Each names the seq.

import { apply } from '../core/apply.js'
import type { CreateSession, DeclareChain } from '../core/commands.js'
import { stateRoot } from '../core/root.js'
import { RulesUnsupportedError } from '../core/rules.js'
import { createState } from '../core/state.js'
import { sessionSigner } from '../gateway/session-signature.js'
import { verifyOraclePrice } from '../replica/oracle-signature.js'
import { bodyOf, chainHash, GENESIS_HASH, hex, sameHash, type LogEntry } from '../replica/entry.js'
import type { MoneyCheck } from './money-audit.js'

export interface AnchorRecord {
  seq: number
  /** 0x-hex, as the Vault stores them. */
  root: string
  logHash: string
}

export interface Finding {
  seq: number
  what: string
}

export interface AuditReport {
  entries: number
  lastSeq: number
  finalRoot: string
  lastHash: string
  /** False when the replay stopped at a break in the hash chain (or an unreadable entry). */
  chainIntact: boolean
  sessionsVerified: number
  anchorsVerified: number
  /** The entry whose rules declaration this build cannot apply (core/rules.ts), where the replay stopped; null: none. */
  stoppedAt: number | null
  /** The rules declarations applied (core/rules.ts), in log order; none: an undeclared log. */
  rules: { version: number; seq: number }[]
  /** With `prefix`: anchors past the log's end, not checked. */
  anchorsAfterEnd: number
  findings: Finding[]
}

export interface AuditOptions {
  /** Chain id of the sessions' EIP-712 domain. */
  chainId: number
  anchors: AnchorRecord[]
  /** Called after each batch with the seq reached (progress). */
  onProgress?: (seq: number) => void
  /**
   * The log is a prefix of one still growing (exported from a running exchange): anchors past
   * its end are counted, not findings. Without it such an anchor is one, as a log cut short
   * before an anchored seq must be caught.
   */
  prefix?: boolean
  /** Collects the deposits, payments and refunds the log accepts, for the check against the Vault after the replay. */
  money?: MoneyCheck
  /** The Vault the anchors were read from, when the auditor named it: a log declaring another is a finding. */
  vault?: string
}

/**
 * The first chain declaration in a log (core/chain-declaration.ts), read without replaying: where
 * the audit finds the Vault when the auditor names none. The replay then checks the log did
 * declare it (a declaration the core refused would not count).
 */
export async function firstDeclaredChain(batches: AsyncIterable<LogEntry[]>): Promise<DeclareChain | undefined> {
  for await (const batch of batches) {
    for (const e of batch) if (e.command?.type === 'DeclareChain') return e.command
  }
  return undefined
}

/**
 * An oracle price's signature, checked as the ingress checked it before sequencing: returns a
 * finding's text when the entry is an OraclePrice whose signature does not verify.
 */
export function verifyOracleSignature(entry: LogEntry): string | undefined {
  const c = entry.command
  if (c?.type !== 'OraclePrice') return undefined
  return verifyOraclePrice(c) ? undefined : `oracle price for ${String(c.pair)} is not signed by ${String(c.oracle)}`
}

/** The session's wallet signature, checked as the gateway checked it before sequencing. */
export function verifySessionSignature(chainId: number, c: CreateSession): string | undefined {
  const permissions = Array.isArray(c.permissions) ? c.permissions.join(',') : ''
  const request = { address: c.account, subAccount: c.sub, permissions, expiresAt: c.expiresAt, nonce: c.nonce }
  // An RSA-keyed session's signature also covers its public key (RsaSession).
  const signer = sessionSigner(chainId, c.rsaPublicKey === undefined ? request : { ...request, publicKey: c.rsaPublicKey }, c.signature)
  return signer !== null && signer.toLowerCase() === String(c.account).toLowerCase()
    ? undefined
    : `session ${c.apiKey} is not signed by ${c.account}`
}

export async function auditLog(batches: AsyncIterable<LogEntry[]>, o: AuditOptions): Promise<AuditReport> {
  const anchors = new Map(o.anchors.map((a) => [a.seq, a]))
  const findings: Finding[] = []
  const state = createState()
  let prev = GENESIS_HASH
  let expected = 1
  let lastTime = -Infinity
  let sessions = 0
  let anchorsVerified = 0
  let broken = false
  let stoppedAt: number | null = null
  const rules: AuditReport['rules'] = []
  try {
    outer: for await (const batch of batches) {
      for (const e of batch) {
        const seq = expected
        if (e.seq !== seq) {
          findings.push({ seq, what: e.seq > seq ? `entry ${seq} is missing (the next one is ${e.seq})` : `entry ${e.seq} repeats or is out of order` })
          broken = true
          break outer
        }
        if (!sameHash(e.prevHash, prev)) {
          findings.push({ seq, what: `previous hash ${hex(e.prevHash)} is not entry ${seq - 1}'s hash ${hex(prev)}` })
          broken = true
          break outer
        }
        if (!sameHash(chainHash(prev, bodyOf(e)), e.hash)) {
          findings.push({ seq, what: `the entry's bytes do not hash to its hash ${hex(e.hash)}: the entry was altered` })
          broken = true
          break outer
        }
        if (e.time < lastTime) findings.push({ seq, what: `time ${e.time} goes back from ${lastTime}` })
        lastTime = e.time
        if (e.command?.type === 'CreateSession') {
          sessions++
          const bad = verifySessionSignature(o.chainId, e.command)
          if (bad) findings.push({ seq, what: bad })
        }
        const oracle = verifyOracleSignature(e)
        if (oracle) findings.push({ seq, what: oracle })
        const rulesBefore = state.rules
        const settling = o.money && typeof e.command === 'object' ? o.money.before(state, e.command) : undefined
        const result = apply(state, e)
        if (o.money && result.ok) o.money.accepted(seq, e.command, settling)
        else if (o.money && !result.ok && typeof e.command === 'object') o.money.refused(e.command, result.code)
        if (state.rules !== rulesBefore) rules.push({ version: state.rules, seq })
        if (o.vault !== undefined && e.command?.type === 'DeclareChain' && result.ok && state.chain!.vault.toLowerCase() !== o.vault.toLowerCase()) {
          findings.push({ seq, what: `the log declares its money on the Vault ${state.chain!.vault} (chain ${state.chain!.chainId}), not on ${o.vault}` })
        }
        const a = anchors.get(seq)
        if (a) {
          const root = stateRoot(state)
          const logHash = `0x${hex(e.hash)}`
          if (root.toLowerCase() !== a.root.toLowerCase()) findings.push({ seq, what: `anchored root ${a.root} but the log gives ${root}` })
          else if (logHash !== a.logHash.toLowerCase()) findings.push({ seq, what: `anchored log hash ${a.logHash} but the entry's hash is ${logHash}` })
          else anchorsVerified++
        }
        prev = e.hash
        expected++
      }
      o.onProgress?.(expected - 1)
    }
  } catch (err) {
    // A log declaring rules newer than this build's cannot be replayed past the declaration.
    if (err instanceof RulesUnsupportedError) {
      findings.push({ seq: expected, what: err.message })
      stoppedAt = expected
    } else {
      findings.push({ seq: expected, what: `the log cannot be read at entry ${expected}: ${(err as Error).message}` })
      broken = true
    }
  }
  const lastSeq = expected - 1
  o.money?.finish(state)
  const afterEnd = o.anchors.filter((a) => a.seq > lastSeq)
  if (!broken && stoppedAt === null && !o.prefix) {
    for (const a of afterEnd) findings.push({ seq: a.seq, what: `anchored, but the log ends at ${lastSeq}` })
  }
  findings.sort((x, y) => x.seq - y.seq)
  return { entries: lastSeq, lastSeq, finalRoot: stateRoot(state), lastHash: hex(prev), chainIntact: !broken, sessionsVerified: sessions,
    anchorsVerified, stoppedAt, rules, anchorsAfterEnd: o.prefix ? afterEnd.length : 0, findings }
}
