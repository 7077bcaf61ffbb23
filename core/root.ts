// The state root: a Merkle root over canonical leaves, one per asset, market, balance,
// position, open order, withdrawal and ledger total, sorted, so that any two replicas that
// applied the same log agree byte for byte and an auditor can prove one balance alone.
// From rules 2 (core/rules.ts) each leaf is hashed with a salt: a balance proof hands its owner
// the hashes of neighbouring leaves, and unsalted, a neighbour's balance could be found by
// hashing every candidate amount with the rest of its (guessable) text. A salt is keccak-256 of
// the log's leaf seed and the leaf's text: the log's holders (replicas, auditors) derive every
// salt, a proof's owner learns their own leaves' salts and no way to the others'.

import { DEFAULT_LIQUIDATION_FEE_PPM, DEFAULT_PRICE_BAND_PPM, DEFAULT_TRIGGER_PROTECT_PPM } from './genesis.js'
import { keccak256 } from './keccak.js'
import { fromHex, hashLeaf, merkleLevels, merkleRoot, merkleRootReusing, pathIn, toHex, type ProofStep } from './merkle.js'
import { pricesLeaf } from './prices.js'
import type { Market, Order, Position, State } from './state.js'

const encoder = new TextEncoder()

function pos(p: Position): string {
  // Accumulated realized PnL, then the part since the position opened, only when there is
  // some, so positions without them hash as before.
  const head = `${p.qtyLots}|${p.costTicksLots}|${p.updateTime}`
  if (p.realizedSinceOpen !== 0) return `${head}|${p.realizedPnl}|${p.realizedSinceOpen}`
  return p.realizedPnl === 0 ? head : `${head}|${p.realizedPnl}`
}

function orderLeaf(o: Order): string {
  return ['order', o.market.marketId, o.orderId, o.owner.address, o.owner.sub, o.clientOrderId, o.side,
    o.orderType, o.timeInForce, o.priceTicks, o.origQtyLots, o.executedQtyLots, o.cumQuoteTicksLots,
    o.status, o.positionSide, o.reduceOnly, o.stp, o.goodTillDate, o.time, o.updateTime, o.marginCounted,
    o.lockedRemaining].join('|')
}

function conditionalLeaf(o: Order): string {
  const c = o.cond!
  const leaf = ['conditional', o.market.marketId, o.orderId, c.origType, c.stopPriceTicks, c.activationPriceTicks,
    c.callbackPermille, c.workingType, c.priceProtect, c.closePosition, c.activated, c.extremeTicks, c.triggerTime,
    c.reason].join('|')
  // A spot trailing stop's delta and trailing time, only on those, so other orders hash as before.
  return c.trailingDeltaBips === 0 ? leaf : `${leaf}|${c.trailingDeltaBips}|${c.trailingTime}`
}

/** An OCO leg's list (core/order-lists.ts). */
function orderListLeaf(o: Order): string {
  const l = o.list!
  // An OPO list's flag only on those, so other lists hash as before.
  return `orderList|${o.market.marketId}|${o.orderId}|${l.orderListId}|${l.listClientOrderId}|${l.done}|${l.time}|${l.contingency}|` +
    `${l.working?.orderId ?? 0}|${l.orders.map((x) => `${x.orderId}:${x.clientOrderId}`).join(',')}${l.opo ? '|opo' : ''}`
}

/** A spot iceberg's slice and what it shows now; only on icebergs, so other orders hash as before. */
function icebergLeaf(o: Order): string {
  return `iceberg|${o.market.marketId}|${o.orderId}|${o.icebergLots}|${o.visibleLots}`
}

/**
 * The queue of a level an iceberg rests in: a used-up slice moves its order to the back, which
 * no order field records. Only such levels have the leaf, so books without icebergs hash as before.
 */
function queueLeaves(m: Market, out: string[]): void {
  for (const side of [m.book.bids, m.book.asks]) {
    for (const level of side.levels) {
      let iceberg = false
      for (let o = level.head; o !== null && !iceberg; o = o.next) iceberg = o.icebergLots !== 0
      if (!iceberg) continue
      const ids: number[] = []
      for (let o = level.head; o !== null; o = o.next) ids.push(o.orderId)
      out.push(`queue|${m.marketId}|${side.isBid ? 'BUY' : 'SELL'}|${level.priceTicks}|${ids.join(',')}`)
    }
  }
}

/** A pegged order's peg (core/peg.ts); only on pegged orders, so other orders hash as before. */
function pegLeaf(o: Order): string {
  return `peg|${o.market.marketId}|${o.orderId}|${o.peg!.type}|${o.peg!.offsetLevels}|${o.peg!.sentPriceTicks}`
}

/** What DECREMENT self-trade prevention took off an open order (core/prevention.ts); only on such orders. */
function preventedLeaf(o: Order): string {
  return `prevented|${o.market.marketId}|${o.orderId}|${o.preventedLots}|${o.preventedMatchId}`
}

/** A spot order's strategy tags (rules 7, core/strategy.ts; -1 and 0 for one not sent); only on tagged orders. */
function strategyLeaf(o: Order): string {
  return `strategy|${o.market.marketId}|${o.orderId}|${o.strategyId}|${o.strategyType}`
}

function orderExtraLeaf(o: Order): string {
  return `orderExtra|${o.market.marketId}|${o.orderId}|${o.amendCount}|${o.priceMatch ?? ''}`
}

/**
 * An open order's leaves (resting, waiting for its trigger, or pending): its record, and each
 * part it has beyond a plain order's in a leaf of its own, so orders without it hash as before.
 * The leaves are sorted in the end, so their order here is free.
 */
function orderLeaves(o: Order, out: string[]): void {
  out.push(orderLeaf(o))
  if (o.cond) out.push(conditionalLeaf(o))
  if (o.amendCount || o.priceMatch !== undefined) out.push(orderExtraLeaf(o))
  if (o.list !== null) out.push(orderListLeaf(o))
  if (o.icebergLots !== 0) out.push(icebergLeaf(o))
  if (o.peg !== null) out.push(pegLeaf(o))
  if (o.preventedLots !== 0) out.push(preventedLeaf(o))
  if (o.strategyId >= 0 || o.strategyType !== 0) out.push(strategyLeaf(o))
}

/** Every leaf of the state, as canonical text, sorted. */
export function stateLeaves(state: State): string[] {
  const out: string[] = [`meta|${state.nextWithdrawalId}`]
  // Present once a list was placed, so states without any hash as before.
  if (state.nextOrderListId > 1) out.push(`orderLists|${state.nextOrderListId}`)
  // Present once a log declared its rules (core/rules.ts): the roots of undeclared logs stay theirs.
  if (state.rules !== 0) out.push(`rules|${state.rules}`)
  // Present once the log declared its chain (rules 2 on).
  if (state.chain !== null) {
    const c = state.chain
    out.push(`chain|${c.chainId}|${c.vault}|${c.tokens.map((t) => `${t.asset}:${t.address}:${t.decimals}`).join(',')}`)
  }
  for (const a of state.assets.values()) out.push(`asset|${a.name}|${a.scale}`)
  for (const m of state.markets) {
    if (m === undefined) continue
    const perp = m.kind === 'PERP' ? `${m.pair}|${m.maxLeverage}|${m.defaultLeverage}|${m.markPriceTicks}|${m.openInterestLots}|` +
      m.brackets.map((b) => `${b.notionalCap}:${b.maxLeverage}:${b.mmrPpm}`).join(',') : ''
    out.push(['market', m.marketId, m.kind, m.symbol, m.base, m.quote, m.status, m.pricePrecision, m.quantityPrecision,
      m.tickSize, m.stepSize, m.minPriceTicks, m.maxPriceTicks, m.minQtyLots, m.maxQtyLots, m.marketMaxQtyLots,
      m.minNotional, m.makerFeePpm, m.takerFeePpm, m.nextOrderId, m.nextTradeId, m.lastPriceTicks, m.onboardDate, perp].join('|'))
    if (m.kind === 'PERP') out.push(pricesLeaf(m))
    // Its own leaf once a match was prevented, so markets without any hash as before.
    if (m.nextPreventedMatchId !== 0) out.push(`preventedMatches|${m.marketId}|${m.nextPreventedMatchId}`)
    // The Price Range rule and the prices its reference is the mean of, only on markets with one.
    if (m.kind === 'SPOT' && m.priceRange !== null) {
      const r = m.priceRange
      out.push(`priceRange|${m.marketId}|${r.bidUpE4}|${r.bidDownE4}|${r.askUpE4}|${r.askDownE4}|` +
        m.referenceBuckets.map((b) => `${b.openTime}:${b.count}:${b.sumTicks}`).join(','))
    }
    // Its own leaf, present only off the default, so markets at the default hash as before.
    if (m.kind === 'PERP' && m.liquidationFeePpm !== DEFAULT_LIQUIDATION_FEE_PPM) out.push(`liquidationFee|${m.marketId}|${m.liquidationFeePpm}`)
    if (m.kind === 'PERP' && (m.percentPricePpm !== DEFAULT_PRICE_BAND_PPM || m.marketTakeBoundPpm !== DEFAULT_PRICE_BAND_PPM)) {
      out.push(`priceBand|${m.marketId}|${m.percentPricePpm}|${m.marketTakeBoundPpm}`)
    }
    for (const o of m.book.orders.values()) orderLeaves(o, out)
    if (m.kind === 'SPOT') queueLeaves(m, out)
    if (m.kind === 'PERP' && m.triggerProtectPpm !== DEFAULT_TRIGGER_PROTECT_PPM) out.push(`triggerProtect|${m.marketId}|${m.triggerProtectPpm}`)
    // Waiting conditional orders (a spot market's stops): the order and its trigger state (trailing extreme included).
    for (const o of m.kind === 'PERP' ? m.triggers.live.values() : m.stops.live.values()) orderLeaves(o, out)
    // OTO lists' pending orders (core/oto-lists.ts).
    if (m.kind === 'SPOT') for (const o of m.stops.pending.values()) orderLeaves(o, out)
  }
  for (const account of state.accounts.values()) {
    for (const sub of account.subs) {
      if (sub === undefined) continue
      const id = `${sub.address}|${sub.sub}`
      out.push(`perpWallet|${id}|${sub.perpWallet}|${sub.dualSide}|${sub.pendingWithdrawals}|${sub.sessionKey}|${sub.lastNonce}`)
      for (const [asset, b] of sub.spot) out.push(`spot|${id}|${asset}|${b.free}|${b.locked}`)
      for (const [key, flags] of sub.riskFlags) out.push(`riskFlags|${id}|${key}|${flags}`)
      for (const [marketId, deadline] of sub.countdowns) out.push(`countdown|${id}|${marketId}|${deadline}`)
      for (const h of sub.perp.values()) {
        out.push(`holding|${id}|${h.marketId}|${h.leverage}|${pos(h.both)}|${pos(h.long)}|${pos(h.short)}|` +
          `${h.buyLots}|${h.buyNotional}|${h.sellLots}|${h.sellNotional}`)
        // A leaf of its own, present only off the defaults, so cross-only states hash as before.
        if (h.marginType !== 'CROSSED' || h.both.isolatedWallet !== 0 || h.long.isolatedWallet !== 0 || h.short.isolatedWallet !== 0) {
          out.push(`isolated|${id}|${h.marketId}|${h.marginType}|${h.both.isolatedWallet}|${h.long.isolatedWallet}|${h.short.isolatedWallet}`)
        }
      }
    }
  }
  for (const w of state.withdrawals.values()) {
    out.push(['withdrawal', w.withdrawalId, w.account, w.sub, w.asset, w.amount, w.address, w.withdrawOrderId,
      w.status, w.applyTime].join('|'))
  }
  for (const s of state.sessions.values()) {
    out.push(['session', s.apiKey, s.account, s.sub, s.permissions.join(','), s.expiresAt, s.createdAt, s.signature].join('|'))
    // A leaf of its own, so sessions without a key hash as they always did.
    if (s.rsaPublicKey !== undefined) out.push(`sessionRsaKey|${s.apiKey}|${s.rsaPublicKey}`)
    if (s.listenKeyUntil) out.push(`sessionListenKey|${s.apiKey}|${s.listenKeyUntil}`)
    if (s.spotListenKeyUntil) out.push(`sessionSpotListenKey|${s.apiKey}|${s.spotListenKeyUntil}`)
  }
  for (const [asset, n] of state.fees) out.push(`fees|${asset}|${n}`)
  for (const [asset, n] of state.insurance) out.push(`insurance|${asset}|${n}`)
  for (const [asset, n] of state.deposited) out.push(`deposited|${asset}|${n}`)
  for (const [asset, n] of state.withdrawn) out.push(`withdrawn|${asset}|${n}`)
  for (const ref of state.depositRefs) out.push(`depositRef|${ref}`)
  return out.sort()
}

/** An unsalted leaf's hash (rules below 2): keccak-256(0x00 ‖ text). */
export function leafHash(leaf: string): Uint8Array {
  return hashLeaf(encoder.encode(leaf))
}

const SALT_BYTES = 32

/** `head` (32 bytes: a seed or a salt) ‖ the leaf's text. */
function headed(head: Uint8Array, leaf: string): Uint8Array {
  const text = encoder.encode(leaf)
  const buf = new Uint8Array(SALT_BYTES + text.length)
  buf.set(head)
  buf.set(text, SALT_BYTES)
  return buf
}

/** A leaf's salt: keccak-256(seed ‖ text), `seed` the log's leaf seed as 0x hex. */
export function leafSalt(seed: string, leaf: string): Uint8Array {
  return keccak256(headed(fromHex(seed), leaf))
}

/** A salted leaf's hash: keccak-256(0x00 ‖ salt ‖ text), what a proof's owner checks their leaf by. */
export function saltedLeafHash(salt: Uint8Array, leaf: string): Uint8Array {
  return hashLeaf(headed(salt, leaf))
}

// The salted hasher's buffer: seed (then salt) ‖ text, grown as needed; keccak256() has read
// it by the time it returns, so one serves every leaf.
let scratch = new Uint8Array(1024)

/** How a state's leaves are hashed: salted once its log brought a seed. */
function leafHasher(seed: string): (leaf: string) => Uint8Array {
  if (seed === '') return leafHash
  const key = fromHex(seed)
  return (leaf) => {
    // Canonical text is ASCII, but size for any UTF-16 (3 bytes a code unit at most).
    if (scratch.length < SALT_BYTES + 3 * leaf.length) scratch = new Uint8Array(2 * (SALT_BYTES + 3 * leaf.length))
    const n = SALT_BYTES + encoder.encodeInto(leaf, scratch.subarray(SALT_BYTES)).written
    const buf = scratch.subarray(0, n)
    buf.set(key)
    buf.set(keccak256(buf))
    return hashLeaf(buf)
  }
}

// The leaf hashes of the last root computed, by leaf text. Between two checkpoints most
// leaves (resting orders, idle accounts, assets) are unchanged, and a hash is a function of
// the text alone (and the seed: the cache is dropped for another one), so each is looked up
// instead of hashed again: only new or changed leaves are hashed, and pairs of unchanged
// neighbours are not hashed again either (merkle.ts). It changes no root; it is dropped for
// states too large to keep twice.
let lastLeafHashes = new Map<string, Uint8Array>()
let lastSeed = ''
const CACHED_LEAVES_MAX = 250_000

/** The state root as 0x-prefixed hex. */
export function stateRoot(state: State): string {
  const leaves = stateLeaves(state)
  const hash = leafHasher(state.leafSeed)
  if (leaves.length > CACHED_LEAVES_MAX) {
    lastLeafHashes = new Map()
    return toHex(merkleRoot(leaves.map(hash)))
  }
  const previous = state.leafSeed === lastSeed ? lastLeafHashes : new Map<string, Uint8Array>()
  lastSeed = state.leafSeed
  const now = new Map<string, Uint8Array>()
  const hashes = leaves.map((leaf) => {
    const h = previous.get(leaf) ?? hash(leaf)
    now.set(leaf, h)
    return h
  })
  lastLeafHashes = now
  return toHex(merkleRootReusing(hashes))
}

/** The leaves that hold a sub-account's money and positions: its wallets, balances, holdings. */
/** The kinds of leaf that hold a sub-account's money: a balance proof is made of these. */
export const ACCOUNT_LEAF_KINDS: readonly string[] = ['perpWallet', 'spot', 'holding', 'isolated']

export interface AccountProofs {
  /** The state root, 0x hex, the proofs lead to. */
  root: string
  /** Each leaf's text, its salt once leaves are salted (rules 2 on), its path. */
  leaves: { leaf: string; salt?: Uint8Array; proof: ProofStep[] }[]
}

/** A state's leaves with every level of its tree: proofs for any sub-account, each hash computed once. */
export interface ProofTree {
  /** The state root, 0x hex. */
  root: string
  /** The leaves as canonical text, sorted (stateLeaves). */
  leaves: string[]
  /** Each level's node hashes packed (merkleLevels), the leaves' first. */
  levels: Uint8Array[]
  /** The leaf seed the leaves were salted with, '' for none (State.leafSeed). */
  seed: string
}

export function proofTree(state: State): ProofTree {
  const leaves = stateLeaves(state)
  const levels = merkleLevels(leaves.map(leafHasher(state.leafSeed)))
  // (A state always has leaves; an empty tree's root is merkleRoot's.)
  return { root: leaves.length === 0 ? toHex(merkleRoot([])) : toHex(levels[levels.length - 1]!), leaves, levels, seed: state.leafSeed }
}

/** The first index in sorted `leaves` whose text is not below `text`. */
function lowerBound(leaves: string[], text: string): number {
  let lo = 0
  let hi = leaves.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (leaves[mid]! < text) lo = mid + 1
    else hi = mid
  }
  return lo
}

/**
 * Inclusion proofs of a sub-account's money leaves (perp wallet, spot balances, holdings and
 * isolated wallets, as canonical text) in the state root: what a user checks their balances
 * against an anchored root with, holding no log. `address` as the state spells it.
 */
export function accountProofs(state: State, address: string, sub: number): AccountProofs {
  return accountProofsIn(proofTree(state), address, sub)
}

/** accountProofs() from a tree built once for many sub-accounts. */
export function accountProofsIn(tree: ProofTree, address: string, sub: number): AccountProofs {
  const indexes: number[] = []
  // The leaves are sorted, so each kind's leaves of one sub-account lie together.
  for (const kind of ACCOUNT_LEAF_KINDS) {
    const prefix = `${kind}|${address}|${sub}|`
    for (let i = lowerBound(tree.leaves, prefix); i < tree.leaves.length && tree.leaves[i]!.startsWith(prefix); i++) indexes.push(i)
  }
  indexes.sort((a, b) => a - b)
  return {
    root: tree.root,
    leaves: indexes.map((i) => {
      const leaf = tree.leaves[i]!
      const proof = pathIn(tree.levels, i)
      return tree.seed === '' ? { leaf, proof } : { leaf, salt: leafSalt(tree.seed, leaf), proof }
    }),
  }
}
