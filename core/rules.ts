// Rules versions: which rules a log's entries are applied under. An auditor replays a log
// with the code of the day, so a change that makes a recorded command apply otherwise (a
// refusal now accepted, a fill now different) must not reach the entries written before it.
// Such a change raises RULES_VERSION to N and keeps the old behavior for states whose rules
// are below N (`rulesOf(state) >= N ? new : old`); the sequencer of the new build
// declares N (SetRules) as it starts on an older log, so the entries before the declaration
// apply as they did when written, and those after it under the new rules. A build meeting a
// declaration newer than its own rules stops: it cannot apply what follows.

import type { SetRules } from './commands.js'
import type { Result } from './events.js'
import { accept, reject } from './results.js'
import type { State } from './state.js'

/** The newest rules this build applies. Raise it only with the old behavior kept, gated. */
export const RULES_VERSION = 7

/**
 * Rules 2: the state root's leaves are salted (core/root.ts), so a balance proof's sibling
 * hashes do not give away a neighbour's balances. The declaration that takes a log to 2 or
 * later carries the salts' secret (SetRules.leafSeed), and no other declaration may.
 */
export const SALTED_LEAVES = 2

/**
 * Rules 3: money moves between two sub-accounts of one account (SubAccountTransfer, core/wallet.ts);
 * under older rules the command is unknown, as older builds answered.
 */
export const SUB_ACCOUNT_TRANSFERS = 3

/**
 * Rules 4: a master makes a sub-account (CreateSubAccount, core/sub-transfer.ts); under older
 * rules the command is unknown, as older builds answered.
 */
export const SUB_ACCOUNT_CREATION = 4

/**
 * Rules 5: a spot MARKET order sized by quote (quoteOrderQty) is Binance's: a buy needs the whole
 * quote it names free, and one the book ran short for (its budget not spent, no more to take)
 * ends EXPIRED, not FILLED (core/orders.ts withQuoteQty); under older rules it was accepted on
 * what the book gave and ended FILLED.
 */
export const QUOTE_ORDERS_AS_BINANCE = 5

/**
 * Rules 6: a second whose Tick finds a perpetual's book with one side empty samples a basis of
 * zero (no mid: no evidence the market is off the index), so the mark's 30-second average of
 * (mid − index) moves by at most a thirtieth of one sample's basis. Under older rules such a
 * second took no sample, and a window left empty by a one-sided book let the first two-sided
 * second set the average alone: one small pair of orders moved the mark by the whole basis.
 */
export const ONE_SIDED_BASIS_ZERO = 6

/**
 * Rules 7: an isolated position's liquidation prices its later steps (the fund-backed sweep, the
 * auto-deleveraging) on all of its margin: its wallet and what the book's partial closes of it
 * returned to the cross wallet meanwhile (core/isolated.ts returns a share at each), as the fee
 * and shortfall steps already counted it. Under older rules only the wallet was counted, so the
 * returned share stayed with the liquidated trader and the counterparty was deleveraged at a
 * price worse by that much.
 */
export const ISOLATED_LIQUIDATION_MARGIN = 7

/**
 * Rules 7 too: a perpetual's STOP_MARKET, TAKE_PROFIT_MARKET or TRAILING_STOP_MARKET with time
 * in force GTD waits until its goodTillDate (core/conditional.ts), as a STOP does; under older
 * rules it was GTC whatever it said. (The gateways of older builds never sent one such.)
 */
export const MARKET_STOPS_GTD = 7

/**
 * Rules 7 too: a spot order keeps the strategyId and strategyType it was sent with (Binance spot's
 * order tags, core/strategy.ts), its records carry them, and a strategyType under 1,000,000 is
 * refused. Under older rules the fields are ignored, as older builds ignored them.
 */
export const ORDER_STRATEGIES = 7

/**
 * A log that never declared its rules (written before versioning) applies under these: the
 * rules of the builds up to the one that introduced versioning, identical to version 1.
 */
export const UNDECLARED_RULES = 1

/** The rules `state` is applied under (its declared version, or those of an undeclared log). */
export function rulesOf(state: State): number {
  return state.rules === 0 ? UNDECLARED_RULES : state.rules
}

/** Thrown by apply on a declaration newer than this build: the log needs a newer build. */
export class RulesUnsupportedError extends Error {
  override name = 'RulesUnsupportedError'
  constructor(readonly version: number, readonly seq: number) {
    super(`entry ${seq} declares rules ${version}; this build applies rules up to ${RULES_VERSION}: ` +
      `replay it with a build of rules ${version} or later`)
  }
}

/** A leaf seed as a declaration carries it: 0x and 32 bytes in lowercase hex. */
export function validLeafSeed(seed: unknown): seed is string {
  return typeof seed === 'string' && /^0x[0-9a-f]{64}$/.test(seed)
}

/** Whether the sequencer may write `cmd`: a declaration only of this build's own rules, any seed well formed. */
export function declarable(cmd: SetRules): boolean {
  return cmd.version === RULES_VERSION && (cmd.leafSeed === undefined || validLeafSeed(cmd.leafSeed))
}

/** Whether a declaration of rules `version` on `state` must bring the leaf seed: the first to reach SALTED_LEAVES. */
export function seedDue(state: State, version: number): boolean {
  return version >= SALTED_LEAVES && state.leafSeed === ''
}

/**
 * Declares the rules the entries after this one apply under. Versions only rise. A version
 * above this build's is not a refusal (a refusal is a result every build must repeat): apply
 * throws, and the replica or the audit stops there.
 */
export function setRules(state: State, cmd: SetRules): Result {
  const v = cmd.version
  if (!Number.isSafeInteger(v) || v < 1 || v <= state.rules) return reject('RULES_INVALID')
  if (v > RULES_VERSION) throw new RulesUnsupportedError(v, state.seq)
  // The seed comes once, with the declaration reaching salted leaves: never changed after, so
  // every root from there on is salted by the secret that declaration wrote.
  const due = seedDue(state, v)
  if (due ? !validLeafSeed(cmd.leafSeed) : cmd.leafSeed !== undefined) return reject('RULES_INVALID')
  state.rules = v
  if (due) state.leafSeed = cmd.leafSeed!
  return accept([])
}
