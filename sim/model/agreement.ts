// Runs the real core and the reference model side by side on the same entries and reports the
// first step where they disagree: the accept/reject decision and code, the order updates and
// trades, every book's levels and FIFO queues, and every sub-account's money.

import { isDeepStrictEqual, inspect } from 'node:util'
import { apply } from '../../core/apply.js'
import type { Entry } from '../../core/commands.js'
import type { Result } from '../../core/events.js'
import { createState, type State } from '../../core/state.js'
import { coreBooks, coreLedger, observeResult } from './observe.js'
import { createReference, refApply, refBooks, refLedger, type RefState } from './reference-exchange.js'

export interface Disagreement {
  seq: number
  what: 'result' | 'books' | 'ledger'
  entry: Entry
  core: unknown
  reference: unknown
}

export function describeDisagreement(d: Disagreement): string {
  const show = (v: unknown): string => inspect(v, { depth: 8, breakLength: 140 })
  return `core and reference disagree on the ${d.what} at seq ${d.seq}\n` +
    `entry: ${show(d.entry)}\ncore: ${show(d.core)}\nreference: ${show(d.reference)}`
}

/**
 * Applies every entry to a fresh core state and a fresh reference; returns the first
 * disagreement, or null. `onStep` sees each step's core result (for statistics).
 */
export function findDisagreement(entries: readonly Entry[],
  onStep?: (entry: Entry, result: Result, state: State, ref: RefState) => void): Disagreement | null {
  const state = createState()
  const ref = createReference()
  for (const entry of entries) {
    const result = apply(state, entry)
    const expected = refApply(ref, entry.time, entry.command)
    onStep?.(entry, result, state, ref)
    const got = observeResult(result)
    if (!isDeepStrictEqual(got, expected)) return { seq: entry.seq, what: 'result', entry, core: got, reference: expected }
    const books = coreBooks(state)
    const refB = refBooks(ref)
    if (!isDeepStrictEqual(books, refB)) return { seq: entry.seq, what: 'books', entry, core: books, reference: refB }
    const ledger = coreLedger(state)
    const refL = refLedger(ref)
    if (!isDeepStrictEqual(ledger, refL)) return { seq: entry.seq, what: 'ledger', entry, core: ledger, reference: refL }
  }
  return null
}
