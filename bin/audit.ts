// `exchange audit --data <dir> | --log <file> [--rpc <url> --vault <addr>]`: replays the log
// from genesis (progress bar on stderr), verifies its hash chain and signatures, compares the
// recomputed root at every anchored seq with the Vault's anchors, prints a report and tells
// the caller whether everything matched. With the Vault, also its money: every credit, payment
// and refund against the Vault's events, and its holdings against the ledger's debt
// (chain/money-audit.ts).

import path from 'node:path'
import { formatUnits } from 'ethers'
import { readAnchors } from '../chain/anchor.js'
import { auditLog, firstDeclaredChain, type AnchorRecord, type AuditReport } from '../chain/audit.js'
import { MoneyCheck, type MoneySummary } from '../chain/money-audit.js'
import { readVaultRecords } from '../chain/vault-records.js'
import { withReader } from '../chain/provider.js'
import { readLogFile } from '../chain/log-file.js'
import { openLogFromGenesis } from './log-from-genesis.js'
import { validAddress } from '../core/accounts.js'
import { RULES_VERSION, UNDECLARED_RULES } from '../core/rules.js'
import type { Network } from '../replica/network.js'
import type { LogEntry } from '../replica/entry.js'
import { openLogDownload } from './export-log.js'
import { OperatorError } from './operator-error.js'

export interface AuditCommand {
  dataDir?: string
  logFile?: string
  rpc?: string
  vault?: string
  /** The block the Vault was deployed in: its events are read from there (0: from genesis). */
  vaultBlock?: number
  chainId: number
  /** The log is a prefix of a running exchange's (`export-log --follow`): anchors past its end are not findings. */
  prefix?: boolean
  /**
   * A running sequencer's log instead, read over its replication link (always a prefix); with
   * `logFile`, after it: an archive of what the node no longer holds (bin/log-archive.ts).
   */
  follow?: { network: Network; url: string }
  out: (line: string) => void
}

function progressBar(): { draw(frac: number): void; end(): void } {
  let last = 0
  const tty = process.stderr.isTTY
  return {
    draw(frac) {
      const now = performance.now()
      if (!tty || now - last < 100) return
      last = now
      const f = Math.min(1, frac)
      process.stderr.write(`\r[${'#'.repeat(Math.round(f * 30)).padEnd(30, '.')}] ${Math.round(f * 100)}%`)
    },
    end() { if (tty) process.stderr.write('\n') },
  }
}

/** The rules the log was applied under (core/rules.ts), as the report shows them. */
function rulesLine(declared: AuditReport['rules']): string {
  const first = declared[0]
  const parts = declared.map((d) => `${d.version} from seq ${d.seq}`)
  if (first === undefined) parts.push(`${UNDECLARED_RULES} (undeclared: written before rules were versioned)`)
  else if (first.seq > 1) parts.unshift(`${UNDECLARED_RULES} (undeclared) before seq ${first.seq}`)
  return `${parts.join(', ')}; this build applies up to ${RULES_VERSION}`
}

/** The money lines of the report. */
function moneyLines(m: MoneySummary): string[] {
  const after = m.depositsAfter > 0 ? `; ${m.depositsAfter} on chain after the last credit, not credited yet` : ''
  const skipped = m.depositsSkipped > 0 ? `; ${m.depositsSkipped} skipped as the watcher skips them (under one ledger unit, above the maximum, a token never credited, a sub-account no address has that the ledger refused)` : ''
  const reserves = m.reserves.map((r) => r.token === ''
    ? `${r.asset} ${formatUnits(r.owed, r.decimals)} owed, held unknown (no credit or payment pairs it with a token)`
    : `${r.asset} ${formatUnits(r.held, r.decimals)} held, ${formatUnits(r.owed, r.decimals)} owed`)
  return [
    `  deposits       ${m.depositsMatched} credited, each a deposit into the Vault${after}${skipped}`,
    m.paymentsMatched === m.paymentsMarked ? `  withdrawals    ${m.paymentsMarked} marked paid, each paid by the Vault`
      : `  withdrawals    ${m.paymentsMarked} marked paid, ${m.paymentsMatched} of them paid by the Vault as marked (the others below)`,
    `  reserves       ${reserves.join('; ') || 'nothing owed'}`,
  ]
}

/** The log an audit reads: its name, its batches from genesis, progress, and what to close after. */
interface LogSource {
  name: string
  batches: AsyncIterable<LogEntry[]>
  /** Progress as a fraction done, drawn after each batch. */
  progress?: (seq: number) => number
  close(): Promise<void>
}

async function openLog(c: AuditCommand): Promise<LogSource> {
  if (c.follow && c.logFile) {
    // An archive (the segments a node's archiver moved out, or an export), then the rest from the running node.
    const name = `${path.resolve(c.logFile)} then ${c.follow.url}`
    return { name, batches: archiveThenLive(c.logFile, c.follow), close: async () => {} }
  }
  if (c.follow) {
    // A link that cannot open is the operator's error; one lost midway a finding (the log could not be read past it).
    return { name: c.follow.url, batches: await openLogDownload(c.follow.network, c.follow.url, `audit of ${c.follow.url}`), close: async () => {} }
  }
  if (c.logFile) {
    const name = path.resolve(c.logFile)
    const file = await readLogFile(name)
    return { name, batches: file.batches, progress: () => file.bytesRead / Math.max(1, file.size), close: async () => {} }
  }
  const log = await openLogFromGenesis(c.dataDir ?? './data', 'the audit')
  const name = log.dir
  const total = log.lastSeq
  return { name, batches: log.readBatches(1), progress: (seq) => seq / Math.max(1, total), close: () => log.close() }
}

async function* archiveThenLive(file: string, follow: NonNullable<AuditCommand['follow']>): AsyncGenerator<LogEntry[]> {
  const archive = await readLogFile(path.resolve(file))
  let last: LogEntry | undefined
  for await (const batch of archive.batches) {
    last = batch[batch.length - 1]
    yield batch
  }
  const from = last && { seq: last.seq, hash: last.hash }
  yield* await openLogDownload(follow.network, follow.url, `audit of ${follow.url} after ${file}`, from)
}

/** The Vault a log declares (core/chain-declaration.ts), read without replaying; an operator error when it declares none. */
export async function vaultDeclaredIn(batches: AsyncIterable<LogEntry[]>): Promise<string> {
  const declared = await firstDeclaredChain(batches)
  if (declared === undefined) throw new OperatorError('the log declares no chain (a log from before rules 2, or a node without one): give --vault')
  if (!validAddress(declared.vault)) {
    throw new OperatorError(`the log's chain declaration names no Vault address (${JSON.stringify(declared.vault)}): give --vault`)
  }
  return declared.vault
}

/** The Vault to audit against: the one given, else the one the log declares (a first pass reading it). */
async function vaultOf(c: AuditCommand): Promise<{ vault: string; declared: boolean }> {
  if (c.vault) return { vault: c.vault, declared: false }
  const log = await openLog(c)
  try {
    return { vault: await vaultDeclaredIn(log.batches), declared: true }
  } finally {
    await log.close()
  }
}

/** Runs the audit; true when nothing was found. */
export async function runAudit(c: AuditCommand): Promise<boolean> {
  let anchors: AnchorRecord[] = []
  let money: MoneyCheck | undefined
  let vault: { vault: string; declared: boolean } | undefined
  if (c.rpc || c.vault) {
    if (!c.rpc) throw new Error('audit needs --rpc to check anchors (with --vault, or the Vault the log declares)')
    vault = await vaultOf(c)
    anchors = await withReader(c.rpc, (provider) => readAnchors(provider, vault!.vault))
    money = new MoneyCheck()
  }
  const bar = progressBar()
  const log = await openLog(c)
  let report: AuditReport
  try {
    report = await auditLog(log.batches, { chainId: c.chainId, anchors, money, vault: vault?.vault,
      prefix: c.prefix === true || c.follow !== undefined, onProgress: (seq) => { if (log.progress) bar.draw(log.progress(seq)) } })
  } finally {
    await log.close()
  }
  const source = log.name
  bar.end()
  c.out(`audit of ${source}`)
  const stopped = report.stoppedAt === null ? '' : ` (stopped at entry ${report.stoppedAt}: its rules need a newer build)`
  c.out(`  entries        ${report.entries} replayed${stopped}, hash chain ${report.chainIntact ? 'intact' : 'BROKEN'}`)
  c.out(`  sessions       ${report.sessionsVerified} wallet signatures checked`)
  c.out(`  rules          ${rulesLine(report.rules)}`)
  const after = report.anchorsAfterEnd > 0 ? `; ${report.anchorsAfterEnd} after the log's end not checked (--prefix)` : ''
  const named = vault?.declared ? ' (the Vault the log declares)' : ''
  c.out(`  anchors        ${vault ? `${report.anchorsVerified} of ${anchors.length - report.anchorsAfterEnd} on ${vault.vault}${named} match${after}`
    : 'not checked (no --rpc)'}`)
  // The Vault's records are read after the log, so they cover every block the log's credits name.
  if (money && report.chainIntact && report.stoppedAt === null) {
    const r = await withReader(c.rpc!, async (provider) => {
      const records = await readVaultRecords(provider, vault!.vault, { tokens: money!.declaredTokens, fromBlock: c.vaultBlock })
      const blockTime = async (block: number): Promise<number> => (await provider.getBlock(block))!.timestamp
      return money!.reconcile(records, c.prefix === true || c.follow !== undefined ? { blockTime } : undefined)
    })
    report.findings.push(...r.findings)
    report.findings.sort((x, y) => x.seq - y.seq)
    for (const line of moneyLines(r.summary)) c.out(line)
  } else if (money) {
    c.out('  money          not checked (the replay did not reach the log\'s end)')
  } else {
    c.out('  money          not checked (no --rpc)')
  }
  c.out(`  final root     ${report.finalRoot} at seq ${report.lastSeq}`)
  c.out(`  last log hash  ${report.lastHash}`)
  if (report.findings.length === 0) {
    c.out('PASS')
    return true
  }
  for (const f of report.findings) c.out(`MISMATCH at seq ${f.seq}: ${f.what}`)
  c.out(`FAIL: ${report.findings.length} finding(s), first at seq ${report.findings[0]!.seq}`)
  return false
}
