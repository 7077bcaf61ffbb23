// `exchange prove --account 0x… [--sub N] [--seq N]` and `exchange verify-proof --proof FILE
// [--rpc URL --vault 0x…]`: a user's balances proven against an anchored state root without the
// log. The operator (or anyone holding the log) replays it to an anchored checkpoint and writes
// the sub-account's money leaves (perp wallet, spot balances, holdings, isolated wallets, as the
// root hashes them) with their Merkle paths; the user recomputes the root from each leaf and
// compares it with the root the Vault holds for that seq.

import path from 'node:path'
import { apply } from '../core/apply.js'
import { verifyProof } from '../core/merkle.js'
import { ACCOUNT_LEAF_KINDS, leafHash, proofTree, saltedLeafHash } from '../core/root.js'
import { createState } from '../core/state.js'
import { anchorAt, newestAnchorAtOrBelow } from '../chain/anchor.js'
import { withReader } from '../chain/provider.js'
import { readLogFile } from '../chain/log-file.js'
import { balanceProofIn, PROOF_FORMAT, type BalanceProof } from '../replica/balance-proof.js'
import { hex, type LogEntry } from '../replica/entry.js'
import { vaultDeclaredIn } from './audit.js'
import { OperatorError, saidAs } from './operator-error.js'
import { RestClient, RestError, type Credentials } from './rest-client.js'
import { openLogFromGenesis } from './log-from-genesis.js'

export { PROOF_FORMAT, type BalanceProof } from '../replica/balance-proof.js'

export interface ProveCommand {
  dataDir?: string
  logFile?: string
  account: string
  sub: number
  /**
   * The entry to prove at (an anchored checkpoint); 0: with `rpc`, the newest seq the Vault
   * (`vault`, or the one the log declares) anchored within the log; without, the newest
   * checkpoint, or the last entry before the first.
   */
  seq: number
  checkpointInterval: number
  rpc?: string
  vault?: string
}

/** The newest seq the Vault anchored at or below `lastSeq`: what a proof is checked against. */
async function newestAnchorWithin(rpc: string, vault: string, lastSeq: number): Promise<number> {
  const seq = await withReader(rpc, (provider) => newestAnchorAtOrBelow(provider, vault, lastSeq))
  if (seq === undefined) throw new OperatorError(`the Vault ${vault} holds no anchor within the log (it ends at ${lastSeq})`)
  return seq
}

/** The newest checkpoint of a log ending at `lastSeq` (what gets anchored), or its last entry before the first. */
function newestCheckpoint(lastSeq: number, interval: number): number {
  return interval > 0 && lastSeq >= interval ? lastSeq - (lastSeq % interval) : lastSeq
}

/** The last seq of an exported file, which is known only once it is read. */
async function lastSeqOf(file: string): Promise<number> {
  let last = 0
  for await (const batch of (await readLogFile(file)).batches) last = batch[batch.length - 1]?.seq ?? last
  return last
}

/** Replays the log to the seq asked for and proves the sub-account's money leaves there. */
export async function prove(c: ProveCommand): Promise<BalanceProof> {
  const state = createState()
  let lastHash = ''
  const replayTo = async (target: number, batches: AsyncIterable<LogEntry[]>): Promise<void> => {
    outer: for await (const batch of batches) {
      for (const e of batch) {
        if (e.seq > target) break outer
        apply(state, e)
        lastHash = hex(e.hash)
      }
    }
    if (state.seq !== target) throw new OperatorError(`the log ends at ${state.seq}, before --seq ${target}`)
  }
  let anchored: { rpc: string; vault: string } | undefined
  /** With --rpc: the Vault given, else the one the log declares (core/chain-declaration.ts). */
  const anchoredIn = async (batches: () => Promise<AsyncIterable<LogEntry[]>>): Promise<typeof anchored> => {
    if (c.rpc === undefined) return undefined
    return { rpc: c.rpc, vault: c.vault ?? await vaultDeclaredIn(await batches()) }
  }
  const targetIn = async (lastSeq: number): Promise<number> => c.seq > 0 ? c.seq
    : anchored ? newestAnchorWithin(anchored.rpc, anchored.vault, lastSeq) : newestCheckpoint(lastSeq, c.checkpointInterval)
  if (c.logFile) {
    const file = path.resolve(c.logFile)
    try {
      anchored = await anchoredIn(async () => (await readLogFile(file)).batches)
      await replayTo(await targetIn(await lastSeqOf(file)), (await readLogFile(file)).batches)
    } catch (err) {
      // A file that is no exported log, or is cut short: said in a line, as restore says it.
      throw saidAs(err, `a proof from ${file}`)
    }
  } else {
    const log = await openLogFromGenesis(c.dataDir ?? './data', 'a proof')
    try {
      anchored = await anchoredIn(async () => log.readBatches(1))
      await replayTo(await targetIn(log.lastSeq), log.readBatches(1))
    } finally {
      await log.close()
    }
  }
  const stored = [...state.accounts.keys()].find((a) => a.toLowerCase() === c.account.toLowerCase())
  if (stored === undefined || state.accounts.get(stored)!.subs[c.sub] === undefined) {
    throw new OperatorError(`${c.account} sub-account ${c.sub} holds nothing at seq ${state.seq}`)
  }
  const proof = balanceProofIn(proofTree(state), { seq: state.seq, logHash: lastHash }, stored, c.sub)
  return anchored ? { ...proof, vault: anchored.vault } : proof
}

/**
 * The caller's own proof from a running exchange's API (GET /sapi/v1/account/balanceProof),
 * signed with the keys `exchange account` prints; at `seq`, or the anchored checkpoint.
 */
export async function fetchBalanceProof(api: string, keys: Credentials, seq = 0): Promise<BalanceProof> {
  try {
    return await new RestClient(api.replace(/\/$/, ''), keys).signed<BalanceProof>('GET', '/sapi/v1/account/balanceProof',
      seq > 0 ? { seq: String(seq) } : {})
  } catch (err) {
    // The exchange's refusal (no checkpoint yet, a seq not held, a key it does not know) is the operator's to read.
    if (err instanceof RestError) throw new OperatorError(`${api} answered ${err.message}`)
    // fetch's own failure (nothing listening, a name that does not resolve) names its cause.
    const cause = (err as { cause?: { code?: string; message?: string } }).cause
    if (cause !== undefined) throw new OperatorError(`nothing answers at ${api} (${cause.code ?? cause.message})`)
    throw err
  }
}

const bytesOf = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h.replace(/^0x/, ''), 'hex'))

export interface VerifyProofCommand {
  proof: BalanceProof
  rpc?: string
  vault?: string
  /** Whose proof it must be (the keys' wallet and sub-account, when fetched with them). */
  expect?: { account: string; sub: number }
  out: (line: string) => void
}

const HASH_HEX = /^0x[0-9a-fA-F]{64}$/

/** Refuses, in one line, what is not shaped as a balance proof (a field missing or of the wrong kind). */
function checkShape(p: BalanceProof): void {
  const not = (what: string): never => { throw new OperatorError(`not a balance proof (${PROOF_FORMAT}, version 1 or 2): ${what}`) }
  if (p?.format !== PROOF_FORMAT || (p.version !== 1 && p.version !== 2)) not('format or version')
  if (!Number.isSafeInteger(p.seq) || !HASH_HEX.test(String(p.root)) || !HASH_HEX.test(String(p.logHash))) not('seq, root or logHash')
  if (typeof p.account !== 'string' || !Number.isSafeInteger(p.sub) || !Array.isArray(p.leaves)) not('account, sub or leaves')
  for (const l of p.leaves) {
    const steps = (l as { proof?: unknown } | null)?.proof
    if (typeof l?.leaf !== 'string' || !Array.isArray(steps) ||
      !steps.every((s: { sibling?: unknown; left?: unknown } | null) => HASH_HEX.test(String(s?.sibling)) && typeof s?.left === 'boolean')) {
      not('a leaf without its text or path')
    }
  }
}

/**
 * Checks that the leaves are the named account's (and `expect`'s, when given), every leaf's path
 * against the proof's root, and that root against the Vault's anchor; true when all hold.
 */
export async function verifyBalanceProof(c: VerifyProofCommand): Promise<boolean> {
  const p = c.proof
  checkShape(p)
  let ok = true
  c.out(`balance proof of ${p.account} sub-account ${p.sub} at seq ${p.seq}, root ${p.root}`)
  if (c.expect !== undefined && (c.expect.account.toLowerCase() !== p.account.toLowerCase() || c.expect.sub !== p.sub)) {
    c.out(`  NOT YOURS: the keys are ${c.expect.account} sub-account ${c.expect.sub}`)
    ok = false
  }
  // A path proves a leaf is in the tree; only the leaf's own account and sub-account make it this account's balance.
  if (p.leaves.length === 0) {
    c.out('  NO LEAVES: the proof proves no balance')
    ok = false
  }
  for (const { leaf, salt, proof } of p.leaves) {
    const [kind, account, sub] = leaf.split('|')
    const owned = ACCOUNT_LEAF_KINDS.includes(kind!) && account?.toLowerCase() === p.account.toLowerCase() && sub === String(p.sub)
    // Version 2's leaves are hashed with their salts (core/root.ts); one without a well-formed salt proves nothing.
    const hash = p.version === 1 ? leafHash(leaf) : HASH_HEX.test(salt ?? '') ? saltedLeafHash(bytesOf(salt!), leaf) : undefined
    const included = hash !== undefined && verifyProof(hash, proof.map((step) => ({ sibling: bytesOf(step.sibling), left: step.left })), bytesOf(p.root))
    ok &&= included && owned
    const said = !owned ? 'NOT THIS ACCOUNT\'S' : included ? 'included' : 'NOT INCLUDED'
    c.out(`  ${said}  ${leaf}${hash === undefined ? ' (no salt of 32 bytes: version 2 leaves carry one)' : ''}`)
  }
  // The Vault given, or the one a node's proof names (the contract the user deposits into).
  const vault = c.vault ?? (c.rpc !== undefined ? p.vault : undefined)
  if (c.rpc || c.vault) {
    if (!c.rpc || !vault) throw new OperatorError('verify-proof needs both --rpc and --vault to check the anchor (the proof names no Vault)')
    if (c.vault === undefined) c.out(`  the Vault the proof names: ${vault} (give --vault to check against another)`)
    else if (p.vault !== undefined && p.vault.toLowerCase() !== c.vault.toLowerCase()) c.out(`  the proof names the Vault ${p.vault}; checked against --vault`)
    const found = await withReader(c.rpc, async (provider) =>
      (await provider.getCode(vault)) === '0x' ? 'no vault' : anchorAt(provider, vault, p.seq))
    if (found === 'no vault') {
      c.out(`  NO VAULT at ${vault}: no contract there on this chain`)
      c.out('FAIL')
      return false
    }
    const anchored = found !== undefined && found.root.toLowerCase() === p.root.toLowerCase() &&
      found.logHash.toLowerCase() === p.logHash.toLowerCase()
    ok &&= anchored
    c.out(found === undefined ? `  NO ANCHOR at seq ${p.seq} on ${vault}`
      : anchored ? `  anchored on ${vault} at seq ${p.seq}` : `  ANCHORED ROOT DIFFERS at seq ${p.seq}: ${found.root}`)
  } else {
    c.out('  anchor not checked (no --rpc/--vault)')
  }
  c.out(ok ? 'PASS' : 'FAIL')
  return ok
}
