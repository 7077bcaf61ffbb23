// Finding and creating accounts, sub-accounts, balances and perp holdings.

import { LIMITS } from './limits.js'
import type { Issuer } from './commands.js'
import {
  newHolding, newSubAccount,
  type PerpHolding, type PerpMarket, type SpotBalance, type State, type SubAccount,
} from './state.js'

const ADDRESS = /^0x[0-9a-fA-F]{40}$/

/** A 0x-prefixed 20-byte address in hex, any case: accounts, withdrawal targets, oracle keys, contracts. */
export function validAddress(a: unknown): a is string {
  return typeof a === 'string' && ADDRESS.test(a)
}

/** A sub-account number: 0 … subAccountsMax − 1. */
export function validSub(n: unknown): n is number {
  return Number.isInteger(n) && (n as number) >= 0 && (n as number) < LIMITS.subAccountsMax
}

export function validIssuer(issuer: Issuer): boolean {
  return validAddress(issuer.account) && validSub(issuer.sub)
}

/**
 * The issuer's sub-account if it exists. Accounts are created only from valid issuers, so a
 * hit needs no further validation; the typeof check keeps a string sub from indexing.
 */
export function findSub(state: State, issuer: Issuer): SubAccount | undefined {
  return typeof issuer.sub === 'number' ? state.accounts.get(issuer.account)?.subs[issuer.sub] : undefined
}

/** Creates the sub-account on first use; the issuer must already be valid. */
export function ensureSub(state: State, issuer: Issuer): SubAccount {
  let account = state.accounts.get(issuer.account)
  if (!account) {
    account = { address: issuer.account, subs: [] }
    state.accounts.set(issuer.account, account)
  }
  let sub = account.subs[issuer.sub]
  if (!sub) {
    sub = newSubAccount(issuer.account, issuer.sub)
    account.subs[issuer.sub] = sub
  }
  return sub
}

export function holdingOf(sub: SubAccount, market: PerpMarket): PerpHolding | undefined {
  return sub.perp.get(market.marketId)
}

export function ensureHolding(sub: SubAccount, market: PerpMarket): PerpHolding {
  let h = sub.perp.get(market.marketId)
  if (!h) {
    h = newHolding(market.marketId, market.defaultLeverage)
    sub.perp.set(market.marketId, h)
  }
  return h
}

const EMPTY: SpotBalance = Object.freeze({ free: 0, locked: 0 }) as SpotBalance

/** A read-only view of a spot balance; absent ones read as zero. */
export function spotBalance(sub: SubAccount | undefined, asset: string): SpotBalance {
  return sub?.spot.get(asset) ?? EMPTY
}

export function ensureSpotBalance(sub: SubAccount, asset: string): SpotBalance {
  let b = sub.spot.get(asset)
  if (!b) {
    b = { free: 0, locked: 0 }
    sub.spot.set(asset, b)
  }
  return b
}
