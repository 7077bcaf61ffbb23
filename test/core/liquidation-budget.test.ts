// The fill budget (core/liquidation/budget.ts) lets a trade skip the maintenance check that
// follows it; it must never change an outcome. Two engines take the same commands, one with
// budgets and one checking after every trade as before, and must give the same result, events
// and state root after every command: over random streams with thinly and thickly funded
// traders (cross, isolated, hedge mode), with and without oracle prices (marks from the index,
// or the last trade), funding, transfers both ways, isolated margin moves, margin type and
// leverage changes, liquidations and ADL, and a restore from a snapshot (no budgets) midway;
// and over the benchmark's workloads with random seeds (there the roots every 25 entries).
// Then the boundary: a fill that uses the budget up exactly skips its check, one unit more does
// not, and a fill that crosses the warning level gets its margin call in the same command.

import t from 'tap'
import fc from 'fast-check'
import { apply } from '../../core/apply.js'
import type { Command } from '../../core/commands.js'
import type { Result } from '../../core/events.js'
import { budgets, hasBudget } from '../../core/liquidation/budget.js'
import { warningRate, warningRise } from '../../core/liquidation/maintenance.js'
import { subWatch } from '../../core/liquidation/watch.js'
import { maintenanceBracket } from '../../core/margin.js'
import { stateRoot } from '../../core/root.js'
import { decodeSnapshot, encodeSnapshot } from '../../core/snapshot.js'
import { createState, type PerpMarket, type State, type SubAccount } from '../../core/state.js'
import { DEFAULT_GENESIS, genesisCommands } from '../../core/genesis-spec.js'
import { DEFAULT_WORKLOAD, generateWorkload, PRICE_MOVES, toEntries } from '../../sim/workload.js'
import { BTCPERP, T0, USDT } from '../helpers/exchange.js'
import { runs } from '../helpers/property.js'
import { flowCommands, flowSteps, MAKER, ORACLE, PERPS, SIGNATURE, START_E8, type FlowStep } from '../helpers/random-flow.js'

const TRADERS = ['1', '2', '3', '4', '5'].map((d) => '0x' + d.repeat(40))
/** Trader 4 trades BTC isolated; trader 3 is in hedge mode. */
const ISOLATED = TRADERS[3]!
const HEDGE = TRADERS[2]!

/** One engine: a state, its clock, and whether it runs with budgets. */
class Engine {
  state: State = createState()
  time = T0
  constructor(readonly budgeted: boolean) {}

  run(command: Command, dtMs: number): Result {
    this.time += dtMs
    budgets.enabled = this.budgeted
    try {
      return apply(this.state, { seq: this.state.seq + 1, time: this.time, command })
    } finally {
      budgets.enabled = true
    }
  }
}

/** What the runs went through: the comparison would be empty without these. */
const seen = { skips: 0, fullChecks: 0, marginCalls: 0, liquidations: 0, adl: 0, funding: 0, transfersOut: 0 }

function subOf(state: State, account: string, sub: number): SubAccount | undefined {
  return state.accounts.get(account)?.subs[sub]
}

/** Two engines fed the same commands; throws at the first command where they differ. */
class Pair {
  on = new Engine(true)
  off = new Engine(false)

  run(command: Command, dtMs = 1): Result {
    // Which trading sub-accounts had a budget, and how often it had been set, before the command.
    const before = new Map<SubAccount, number>()
    for (const account of this.on.state.accounts.values()) {
      for (const s of account.subs) if (s !== undefined && hasBudget(s)) before.set(s, subWatch(s).budgetSets)
    }
    const a = this.on.run(command, dtMs)
    const b = this.off.run(command, dtMs)
    const ja = JSON.stringify(a)
    const jb = JSON.stringify(b)
    if (ja !== jb) throw new Error(`results differ after ${JSON.stringify(command)}:\n  with budgets ${ja}\n  without     ${jb}`)
    if (stateRoot(this.on.state) !== stateRoot(this.off.state)) throw new Error(`state roots differ after ${JSON.stringify(command)}`)
    for (const e of a.ok ? a.events : []) {
      if (e.type === 'marginCall') seen.marginCalls += 1
      if (e.type === 'forceOrder') seen[e.autoCloseType === 'ADL' ? 'adl' : 'liquidations'] += 1
      if (e.type === 'funding') seen.funding += 1
      if (e.type === 'transfer' && e.direction === 'PERP_TO_SPOT') seen.transfersOut += 1
      if (e.type !== 'trade') continue
      for (const side of [e.maker, e.taker]) {
        const s = subOf(this.on.state, side.account, side.sub)!
        const sets = before.get(s)
        if (sets === undefined) continue
        // Still budgeted and not set again: its check was skipped.
        if (hasBudget(s) && subWatch(s).budgetSets === sets) seen.skips += 1
        else seen.fullChecks += 1
      }
    }
    return a
  }

  ok(command: Command, dtMs = 1): Result {
    const r = this.run(command, dtMs)
    if (!r.ok) throw new Error(`${command.type} rejected: ${r.code}`)
    return r
  }

  /** The budgeted engine as a replica restored from a snapshot: it starts with no budgets. */
  restore(): void {
    this.on.state = decodeSnapshot(encodeSnapshot(this.on.state))
  }
}

type Step =
  | FlowStep
  | { kind: 'transfer'; who: number; out: boolean; permille: number }
  | { kind: 'margin'; add: boolean; permille: number }
  | { kind: 'marginType'; who: number; m: number; isolated: boolean }
  | { kind: 'leverage'; who: number; m: number; leverage: number }

const perp = fc.integer({ min: 0, max: 1 })
const who = fc.integer({ min: 0, max: TRADERS.length - 1 })

const flow: fc.WeightedArbitrary<Step>[] = flowSteps(TRADERS.length, 6)
const step: fc.Arbitrary<Step> = fc.oneof(
  ...flow,
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('transfer' as const), who, out: fc.boolean(), permille: fc.integer({ min: 1, max: 900 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('margin' as const), add: fc.boolean(), permille: fc.integer({ min: 1, max: 900 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('marginType' as const), who, m: perp, isolated: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('leverage' as const), who, m: perp, leverage: fc.constantFrom(5, 20, 50, 100) }) },
)

const scenario = fc.record({
  /** With oracle prices the mark follows the index; without, the last trade. */
  oracle: fc.boolean(),
  deposits: fc.array(fc.integer({ min: 150, max: 60_000 }), { minLength: TRADERS.length, maxLength: TRADERS.length }),
  leverages: fc.array(fc.constantFrom(10, 20, 50, 100, 125), { minLength: TRADERS.length, maxLength: TRADERS.length }),
  steps: fc.array(step, { minLength: 30, maxLength: 150 }),
  restoreAt: fc.nat(),
})
type Scenario = { oracle: boolean; deposits: number[]; leverages: number[]; steps: Step[]; restoreAt: number }

function commandsOf(pair: Pair, sc: Scenario, mids: number[], s: Step): { command: Command; dtMs: number }[] {
  switch (s.kind) {
    case 'transfer': {
      const sub = subOf(pair.on.state, TRADERS[s.who]!, 0)
      const from = s.out ? (sub?.perpWallet ?? 0) : (sub?.spot.get('USDT')?.free ?? 0)
      const amount = Math.max(1, Math.floor(from * s.permille / 1000))
      return [{ command: { type: 'Transfer', account: TRADERS[s.who]!, sub: 0, direction: s.out ? 'PERP_TO_SPOT' : 'SPOT_TO_PERP', amount }, dtMs: 1 }]
    }
    case 'margin': {
      const sub = subOf(pair.on.state, ISOLATED, 0)
      const p = sub?.perp.get(BTCPERP)?.both
      const from = s.add ? (sub?.perpWallet ?? 0) : (p?.isolatedWallet ?? 0)
      const amount = Math.max(1, Math.floor(from * s.permille / 1000))
      return [{ command: { type: 'AdjustPositionMargin', account: ISOLATED, sub: 0, marketId: BTCPERP, positionSide: 'BOTH', amount,
        direction: s.add ? 'ADD' : 'REDUCE' }, dtMs: 1 }]
    }
    case 'marginType':
      return [{ command: { type: 'ChangeMarginType', account: TRADERS[s.who]!, sub: 0, marketId: PERPS[s.m]!.marketId,
        marginType: s.isolated ? 'ISOLATED' : 'CROSSED' }, dtMs: 1 }]
    case 'leverage':
      return [{ command: { type: 'ChangeLeverage', account: TRADERS[s.who]!, sub: 0, marketId: PERPS[s.m]!.marketId, leverage: s.leverage },
        dtMs: 1 }]
    default:
      return flowCommands({ state: pair.on.state, time: pair.on.time, traders: TRADERS, hedge: HEDGE, pricesE8: mids, oracle: sc.oracle }, s)
  }
}

function runScenario(sc: Scenario): void {
  const pair = new Pair()
  for (const c of genesisCommands(DEFAULT_GENESIS)) pair.ok(c)
  const mids = [...START_E8]
  const setup: Command[] = [
    { type: 'Deposit', account: MAKER, sub: 0, asset: 'USDT', amount: 5_000_000 * USDT, wallet: 'PERP', ref: 'maker' },
    { type: 'ChangeMarginType', account: ISOLATED, sub: 0, marketId: BTCPERP, marginType: 'ISOLATED' },
    { type: 'ChangePositionMode', account: HEDGE, sub: 0, dualSide: true },
  ]
  if (sc.oracle) for (const { pair: name } of PERPS) setup.push({ type: 'SetOracle', pair: name, oracle: ORACLE })
  TRADERS.forEach((account, i) => {
    setup.push({ type: 'Deposit', account, sub: 0, asset: 'USDT', amount: sc.deposits[i]! * USDT, wallet: 'PERP', ref: `t${i}` })
    setup.push({ type: 'Deposit', account, sub: 0, asset: 'USDT', amount: 500 * USDT, wallet: 'SPOT', ref: `s${i}` })
    for (const { marketId } of PERPS) setup.push({ type: 'ChangeLeverage', account, sub: 0, marketId, leverage: Math.min(sc.leverages[i]!, 100) })
  })
  for (const command of setup) pair.ok(command)
  if (sc.oracle) PERPS.forEach(({ pair: name }, i) => {
    pair.ok({ type: 'OraclePrice', pair: name, priceE8: mids[i]!, time: pair.on.time + 1, oracle: ORACLE, signature: SIGNATURE })
  })
  // Without an oracle, a first trade in each market gives it a mark.
  if (!sc.oracle) PERPS.forEach(({ marketId, e8PerTick }, i) => {
    const priceTicks = Math.round(mids[i]! / e8PerTick)
    pair.ok({ type: 'PlaceOrder', account: MAKER, sub: 0, marketId, side: 'SELL', orderType: 'LIMIT', priceTicks, qtyLots: 10 })
    pair.ok({ type: 'PlaceOrder', account: MAKER, sub: 0, marketId, side: 'BUY', orderType: 'LIMIT', priceTicks, qtyLots: 10 })
  })
  const cut = sc.restoreAt % sc.steps.length
  sc.steps.forEach((s, i) => {
    if (i === cut) pair.restore()
    for (const { command, dtMs } of commandsOf(pair, sc, mids, s)) pair.run(command, dtMs)
  })
}

t.test('random streams give the same results, events and roots with budgets as without', async (t) => {
  fc.assert(fc.property(scenario, (sc) => {
    runScenario(sc)
  }), runs(150))
  t.comment(JSON.stringify(seen))
  t.ok(seen.skips > 0 && seen.fullChecks > 0, 'trades skipped their checks, and others had full ones')
  t.ok(seen.marginCalls > 0 && seen.liquidations > 0 && seen.adl > 0, 'margin calls, liquidations and ADL happened')
  t.ok(seen.funding > 0 && seen.transfersOut > 0, 'funding was paid and margin transferred out')
})

t.test('the benchmark workloads give the same results and roots with budgets as without', async (t) => {
  const skipsBefore = seen.skips
  fc.assert(fc.property(fc.integer({ min: 1, max: 2 ** 31 - 1 }), fc.boolean(), (seed, moving) => {
    const w = generateWorkload({ ...DEFAULT_WORKLOAD, seed, commands: 1_500, accounts: 20,
      ...(moving ? { priceMoves: { ...PRICE_MOVES, tickEvery: 100, nearLiquidationPercent: 10 } } : {}) })
    const on = createState()
    const off = createState()
    const entries = toEntries([...w.setup, ...w.stream], 1)
    entries.forEach((e, i) => {
      budgets.enabled = true
      const a = JSON.stringify(apply(on, e))
      budgets.enabled = false
      const b = JSON.stringify(apply(off, e))
      budgets.enabled = true
      if (a !== b) throw new Error(`seed ${seed}: results differ at entry ${i} (${JSON.stringify(e.command)}):\n  ${a}\n  ${b}`)
      if (e.command.type === 'PlaceOrder') {
        for (const account of on.accounts.values()) for (const s of account.subs) if (s !== undefined && hasBudget(s)) seen.skips += 1
      }
      // The results are compared at every command; the roots (four fifths of the test's time when
      // taken at every order) every 25 entries and at the end: a state that parted stays parted.
      if (i % 25 === 0 || i === entries.length - 1) {
        if (stateRoot(on) !== stateRoot(off)) throw new Error(`seed ${seed}: state roots differ at entry ${i}`)
      }
    })
  }), runs(4))
  t.ok(seen.skips > skipsBefore, 'the workloads ran with budgets')
})

/**
 * A trader long 1 BTC bought at 30,000 (the index) with 100× leverage, and the maker's last
 * 0.2 BTC offered 2 % above, at 30,600.
 */
function longTrader(deposit: number): { pair: Pair; trader: SubAccount } {
  const pair = new Pair()
  for (const c of genesisCommands(DEFAULT_GENESIS)) pair.ok(c)
  const trader = TRADERS[0]!
  const sell = (priceTicks: number, qtyLots: number): Command =>
    ({ type: 'PlaceOrder', account: MAKER, sub: 0, marketId: BTCPERP, side: 'SELL', orderType: 'LIMIT', priceTicks, qtyLots })
  pair.ok({ type: 'SetOracle', pair: 'BTCUSDT', oracle: ORACLE })
  pair.ok({ type: 'OraclePrice', pair: 'BTCUSDT', priceE8: 30_000e8, time: pair.on.time + 1, oracle: ORACLE, signature: SIGNATURE })
  pair.ok({ type: 'Deposit', account: MAKER, sub: 0, asset: 'USDT', amount: 5_000_000 * USDT, wallet: 'PERP', ref: 'maker' })
  pair.ok({ type: 'Deposit', account: trader, sub: 0, asset: 'USDT', amount: deposit, wallet: 'PERP', ref: 'trader' })
  pair.ok({ type: 'ChangeLeverage', account: trader, sub: 0, marketId: BTCPERP, leverage: 100 })
  pair.ok(sell(300_000, 1_000))
  pair.ok(sell(306_000, 200))
  pair.ok({ type: 'PlaceOrder', account: trader, sub: 0, marketId: BTCPERP, side: 'BUY', orderType: 'MARKET', qtyLots: 1_000 })
  return { pair, trader: subOf(pair.on.state, trader, 0)! }
}

/** The trader takes the 0.2 BTC offered at 30,600. */
function buyAbove(pair: Pair): Result {
  return pair.ok({ type: 'PlaceOrder', account: TRADERS[0]!, sub: 0, marketId: BTCPERP, side: 'BUY', orderType: 'LIMIT',
    priceTicks: 306_000, qtyLots: 200 })
}

t.test('a fill that uses the budget up exactly skips its check; one unit more does not', async (t) => {
  const probe = longTrader(1_000 * USDT)
  const w = subWatch(probe.trader)
  t.ok(hasBudget(probe.trader), 'the check after the first trade set a budget')
  // 1.25 × 0.5 %: the highest rate of the brackets up to the notional the budget allows there
  // (0.4 % up to 50,000, 0.5 % to 600,000).
  t.equal(w.budgetRate[BTCPERP], 6_250)
  t.equal(w.budgetMark[BTCPERP], 300_000, 'set at the mark, the index')
  // Buying 200 lots at 306,000 ticks (0.0001 USDT per tick·lot): the taker fee (0.05 % of 6,120
  // USDT), what it pays above the check's mark (120 USDT), and the warning level's rise for
  // 200 lots more at that mark (1.25 × 0.5 % of 6,000 USDT).
  const charge = 3_060_000 + 120_000_000 + 37_500_000
  // The budget is ceil(headroom / 2): two units of deposit are one of budget.
  const deposit = 1_000 * USDT - 2 * (w.budgetLeft - charge)

  const exact = longTrader(deposit)
  t.equal(subWatch(exact.trader).budgetLeft, charge, 'the budget is the charge')
  const sets = subWatch(exact.trader).budgetSets
  const r = buyAbove(exact.pair)
  t.equal(r.ok && r.events.filter((e) => e.type === 'trade').length, 1, 'it traded')
  t.ok(hasBudget(exact.trader), 'still budgeted')
  t.equal(subWatch(exact.trader).budgetSets, sets, 'no full check: the budget was not set again')
  t.equal(subWatch(exact.trader).budgetLeft, 0, 'nothing left')

  const over = longTrader(deposit - 2)
  t.equal(subWatch(over.trader).budgetLeft, charge - 1)
  const setsOver = subWatch(over.trader).budgetSets
  buyAbove(over.pair)
  t.equal(subWatch(over.trader).budgetSets, setsOver + 1, 'a full check ran and set the budget afresh')
})

t.test('a resting buy filled above a fallen mark takes a budgeted account past the warning level: the call comes in that command', async (t) => {
  const pair = new Pair()
  for (const c of genesisCommands(DEFAULT_GENESIS)) pair.ok(c)
  const trader = TRADERS[0]!
  const oracle = (usdt: number): Command => ({ type: 'OraclePrice', pair: 'BTCUSDT', priceE8: usdt * 1e8, time: pair.on.time + 1,
    oracle: ORACLE, signature: SIGNATURE })
  const order = (account: string, side: 'BUY' | 'SELL', priceTicks: number, qtyLots: number): Command =>
    ({ type: 'PlaceOrder', account, sub: 0, marketId: BTCPERP, side, orderType: 'LIMIT', priceTicks, qtyLots })
  pair.ok({ type: 'SetOracle', pair: 'BTCUSDT', oracle: ORACLE })
  pair.ok(oracle(30_000))
  pair.ok({ type: 'Deposit', account: MAKER, sub: 0, asset: 'USDT', amount: 5_000_000 * USDT, wallet: 'PERP', ref: 'maker' })
  pair.ok({ type: 'Deposit', account: trader, sub: 0, asset: 'USDT', amount: 2_190 * USDT, wallet: 'PERP', ref: 'trader' })
  pair.ok({ type: 'ChangeLeverage', account: trader, sub: 0, marketId: BTCPERP, leverage: 100 })
  pair.ok(order(MAKER, 'SELL', 300_000, 1_000))
  pair.ok(order(trader, 'BUY', 300_000, 1_000))
  // A second BTC bid at 29,900, then the index falls to 29,000: the trader's trigger fires, and
  // its check finds it clear (about 1,000 USDT down on 2,175) and budgets it at the new mark.
  pair.ok(order(trader, 'BUY', 299_000, 1_000))
  const moved = pair.ok(oracle(29_000))
  const sub = subOf(pair.on.state, trader, 0)!
  const mark = (pair.on.state.markets[BTCPERP] as PerpMarket).markPriceTicks
  t.ok(mark < 299_000, `the mark (${mark} ticks) fell below the bid`)
  t.notOk(moved.ok && moved.events.some((e) => e.type === 'marginCall'), 'no call at the move')
  t.ok(hasBudget(sub), 'clear of the warning level, with a budget')
  // The maker sells into the bid: 1 BTC bought 900 USDT above the mark, far more than the budget.
  const r = pair.ok(order(MAKER, 'SELL', 299_000, 1_000))
  const calls = r.ok ? r.events.filter((e) => e.type === 'marginCall') : []
  t.equal(calls.length, 1, 'the margin call comes in the command of the fill, as without budgets')
  t.equal(calls[0]?.type === 'marginCall' ? calls[0].account : '', trader)
  t.equal(sub.perp.get(BTCPERP)!.both.qtyLots, 2_000)
  t.notOk(hasBudget(sub), 'flagged: no budget')
})

t.test('funding paid by a budgeted account brings its check back', async (t) => {
  const { pair, trader } = longTrader(100_000 * USDT)
  t.ok(hasBudget(trader))
  const sets = subWatch(trader).budgetSets
  // A Tick past the next funding time: the long pays, and the check after it is a full one.
  const r = pair.ok({ type: 'Tick' }, 8 * 3_600_000)
  const paid = r.ok ? r.events.filter((e) => e.type === 'funding' && e.account === TRADERS[0]) : []
  t.equal(paid.length, 1, 'the trader paid funding')
  t.ok(paid[0]?.type === 'funding' && paid[0].amount < 0)
  t.equal(subWatch(trader).budgetSets, sets + 1, 'its budget was dropped, and set again by a full check')
})

t.test('the warning level rises no faster than warningRise bounds it, across the brackets', async (t) => {
  const m = createStateWithGenesis().markets[BTCPERP] as PerpMarket
  fc.assert(fc.property(fc.integer({ min: 0, max: 2 ** 40 }), fc.integer({ min: 0, max: 2 ** 40 }), (n, d) => {
    // 1.25 × (g(n + d) − g(n)), g the unrounded maintenance, in units of 1e-6.
    const g = (x: number): bigint => {
      const { mmrPpm, cumPpm } = maintenanceBracket(m, x)
      const v = BigInt(x) * mmrPpm - cumPpm
      return v > 0n ? v : 0n
    }
    return 5n * (g(n + d) - g(n)) <= 4_000_000n * BigInt(warningRise(warningRate(m, n + d), d))
  }), runs(3_000))
  t.equal(warningRate(m, 40_000 * USDT), 5_000, '1.25 × 0.4 % within the first bracket')
  t.equal(warningRate(m, 50_000 * USDT + 1), 6_250, '1.25 × 0.5 % past it')
  t.equal(warningRate(m, Infinity), 625_000, '1.25 × 50 %, the top bracket')
  t.equal(warningRise(6_250, 300 * USDT), 1_875_000)
  t.equal(warningRise(6_250, 1), 1, 'rounded up')
})

function createStateWithGenesis(): State {
  const s = createState()
  genesisCommands(DEFAULT_GENESIS).forEach((command, i) => apply(s, { seq: i + 1, time: T0 + i, command }))
  return s
}
