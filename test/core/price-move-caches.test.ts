// The shortcuts that keep a price-moving market cheap between real moves, each against an
// engine without it on random streams (trades, oracle prices, Ticks across funding
// boundaries, conditional and trailing orders, cancels, snapshot restores):
// - refreshMark's memo of its inputs (core/prices.ts) and runTriggers' record of the prices at
//   which nothing crossed (core/conditional.ts): the same stream through an exchange whose
//   memo never matches and whose record never holds gives the same results and state roots;
// - the per-sub-account count of waiting conditional orders (the -4045 cap) equals a count
//   over the sub-account's orders, after every command and every restore.

import t from 'tap'
import type { Command, PlaceOrder, Side } from '../../core/commands.js'
import { newMarkMemo } from '../../core/prices.js'
import { stateRoot } from '../../core/root.js'
import { decodeSnapshot, encodeSnapshot } from '../../core/snapshot.js'
import type { PerpMarket, State } from '../../core/state.js'
import { isConditionalType } from '../../core/trigger-index.js'
import { cancel, limit, market } from '../helpers/commands.js'
import { BTCPERP, ETHPERP, TestExchange, btcTicks as px } from '../helpers/exchange.js'
import { registerOracle, signedPrice } from '../helpers/oracle.js'

/** A small deterministic generator (the tests' own, no Math.random). */
function rng(seed: number): (n: number) => number {
  let x = seed * 7919 + 17
  return (n) => {
    x = (x * 1103515245 + 12345) % 2147483648
    return Math.floor((x / 2147483648) * n)
  }
}

const ACCOUNTS = Array.from({ length: 8 }, (_, i) => '0x' + (i + 1).toString(16).padStart(2, '0').repeat(20))

function perps(state: State): PerpMarket[] {
  return [BTCPERP, ETHPERP].map((id) => state.markets[id] as PerpMarket)
}

/** Makes a market's shortcuts never apply: a memo whose inputs never match, no quiet record. */
function uncached(m: PerpMarket): void {
  const memo = newMarkMemo()
  Object.defineProperty(memo, 'pruneFrom', { get: () => Number.NEGATIVE_INFINITY, set: () => {} })
  m.triggers.markMemo = memo
  Object.defineProperty(m.triggers, 'quietMark', { get: () => Number.NaN, set: () => {} })
}

/** Mismatches between each perp's count of waiting conditional orders per sub-account and a recount. */
function countMismatches(state: State): number {
  let bad = 0
  for (const m of perps(state)) {
    const naive = new Map<unknown, number>()
    for (const acc of state.accounts.values()) {
      for (const sub of acc.subs) {
        for (const o of sub?.orders.values() ?? []) {
          if (o.market === m && isConditionalType(o.orderType)) naive.set(sub, (naive.get(sub) ?? 0) + 1)
        }
      }
    }
    if (naive.size !== m.triggers.bySub.size) bad++
    for (const [sub, n] of naive) if (m.triggers.bySub.get(sub as never) !== n) bad++
  }
  return bad
}

function conditional(r: (n: number) => number, account: string, mid: number): PlaceOrder {
  const side: Side = r(2) === 0 ? 'BUY' : 'SELL'
  const away = px(2 + r(80))
  const base = {
    type: 'PlaceOrder', account, sub: 0, marketId: BTCPERP, side, qtyLots: 5 + r(20),
    workingType: r(2) === 0 ? 'MARK_PRICE' : 'CONTRACT_PRICE', priceProtect: r(4) === 0,
  } as const
  switch (r(4)) {
    case 0: return { ...base, orderType: 'STOP_MARKET', stopPriceTicks: mid + (side === 'BUY' ? away : -away) }
    case 1: return { ...base, orderType: 'TAKE_PROFIT_MARKET', stopPriceTicks: mid + (side === 'BUY' ? -away : away) }
    case 2: return { ...base, orderType: 'TRAILING_STOP_MARKET', callbackPermille: 1 + r(10) }
    default: return { ...base, orderType: 'TRAILING_STOP_MARKET', callbackPermille: 1 + r(10),
      activationPriceTicks: mid + (side === 'SELL' ? away : -away) }
  }
}

t.test('memoized mark and quiet record against an engine without them; conditional counts against a recount', async (t) => {
  let triggered = 0
  let restores = 0
  let fundings = 0
  for (let seed = 1; seed <= 5; seed++) {
    const r = rng(seed)
    let cached = new TestExchange()
    const plain = new TestExchange()
    const both = (c: Command, dt: number): [string, string] => [JSON.stringify(cached.run(c, dt)), JSON.stringify(plain.run(c, dt))]
    for (const ex of [cached, plain]) {
      registerOracle(ex)
      // Two thinly funded accounts get liquidated as the price walks.
      ACCOUNTS.forEach((a, i) => ex.fund(a, i < 2 ? 3_000 : 5_000_000))
    }
    for (const m of perps(plain.state)) uncached(m)
    let mid = px(50_000)
    let mismatches = 0
    for (let step = 0; step < 600; step++) {
      const op = r(20)
      const who = ACCOUNTS[r(ACCOUNTS.length)]!
      // Mostly a few ms apart; now and then a pause in which basis samples leave the mark's window.
      let dt = r(5) === 0 ? 200 + r(2_000) : 1 + r(3)
      let c: Command
      if (r(3) === 0) mid += px(r(41) - 20)
      if (op < 7) {
        const side: Side = r(2) === 0 ? 'BUY' : 'SELL'
        const offset = px(r(30) - 5)
        c = limit(who, side, side === 'BUY' ? mid - offset : mid + offset, 5 + r(60))
      } else if (op < 9) {
        c = market(who, r(2) === 0 ? 'BUY' : 'SELL', 5 + r(40))
      } else if (op < 11) {
        // A waiting order of the account, resting or conditional (or a miss).
        const sub = cached.state.accounts.get(who)?.subs[0]
        const ids = sub === undefined ? [] : [...sub.orders.values()].map((o) => o.orderId)
        c = cancel(who, { orderId: ids.length > 0 ? ids[r(ids.length)]! : 1 })
      } else if (op < 15) {
        c = conditional(r, who, mid)
      } else if (op < 18) {
        c = await signedPrice(cached, String((mid + px(r(201) - 100)) / 10), dt)
      } else if (op < 19) {
        // Ticks: basis samples a second apart, now and then hours ahead across a funding boundary.
        dt = r(6) === 0 ? 3_600_000 * (1 + r(4)) : 1_000 * (1 + r(40))
        c = { type: 'Tick' }
      } else {
        if (r(2) === 0) {
          const copy = new TestExchange()
          ;(copy as { state: State }).state = decodeSnapshot(encodeSnapshot(cached.state))
          copy.time = cached.time
          cached = copy
          restores++
        }
        c = { type: 'Tick' }
      }
      const [a, b] = both(c, dt)
      if (a !== b) mismatches++
      triggered += (a.match(/"triggerTime":[1-9]/g) ?? []).length
      if (c.type === 'Tick' && a.includes('"funding"')) fundings++
      mismatches += countMismatches(cached.state)
      if (step % 20 === 19 && stateRoot(cached.state) !== stateRoot(plain.state)) mismatches++
    }
    t.equal(stateRoot(cached.state), stateRoot(plain.state), `seed ${seed}: same state`)
    t.equal(mismatches, 0, `seed ${seed}: same results, counts as recounted`)
  }
  t.ok(triggered > 100 && restores > 20 && fundings > 3, `${triggered} trigger records, ${restores} restores, ${fundings} funding Ticks`)
})
