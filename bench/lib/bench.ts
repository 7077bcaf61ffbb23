// What every benchmark shares: its shape (a named run returning the one-line JSON summary),
// percentiles, a plain-text table, and a way to collect garbage between measured passes.

import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

/** The last line a benchmark prints: `bench` names it, the rest are its headline figures. */
export interface BenchSummary {
  bench: string
  [figure: string]: number | string
}

/** A benchmark module (`bench/<name>.ts`) exports one of these as `benchmark`. */
export interface Benchmark {
  name: string
  /** Prints its table to `out` and returns the summary; `run.ts` prints the summary last. */
  run(out: (line: string) => void): Promise<BenchSummary> | BenchSummary
}

/** Percentile `p` (0..100) of ascending-sorted samples, nearest-rank. */
export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN
  const rank = Math.ceil((p / 100) * sorted.length)
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!
}

export interface Latency {
  p50Us: number
  p99Us: number
  p999Us: number
  maxUs: number
}

/** Latency percentiles in µs from per-command samples in ns (sorts the samples in place). */
export function latencyOf(samplesNs: Float64Array): Latency {
  samplesNs.sort()
  return {
    p50Us: percentile(samplesNs, 50) / 1000,
    p99Us: percentile(samplesNs, 99) / 1000,
    p999Us: percentile(samplesNs, 99.9) / 1000,
    maxUs: samplesNs[samplesNs.length - 1]! / 1000,
  }
}

/** Right-aligned columns under a header; the first column is left-aligned. */
export function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)))
  const line = (cells: string[]): string =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)]
}

/** Integer with thousands separators. */
export function int(n: number): string {
  return Math.round(n).toLocaleString('en-US')
}

export function fixed(n: number, digits: number): string {
  return n.toFixed(digits)
}

// A full collection between passes keeps one pass's garbage out of the next one's figures.
// `node dist/bench/run.js` takes no flags, so the hook is switched on from inside.
let collector: (() => void) | null | undefined

export function collectGarbage(): void {
  if (collector === undefined) {
    try {
      setFlagsFromString('--expose-gc')
      collector = runInNewContext('gc') as () => void
    } catch {
      collector = null
    }
  }
  collector?.()
}
