// Activated trailing stops grouped by shared extreme (core/trailing.ts), checked against a
// naive model that keeps each stop's own extreme and looks at every stop on every price:
// first the structure alone (joins anywhere in the order, leaves, new extremes, retraces,
// priceProtect holds), then the exchange on random price paths with many trailing stops,
// cancels and snapshot restores in between, where every waiting stop's extreme, what fires
// and in which order must be the model's.

import t from 'tap'
import type { PlaceOrder, Side } from '../../core/commands.js'
import type { Result } from '../../core/events.js'
import { stateRoot } from '../../core/root.js'
import { decodeSnapshot, encodeSnapshot } from '../../core/snapshot.js'
import type { Order, PerpMarket, State } from '../../core/state.js'
import { ConditionalState, TrailSide, type Due } from '../../core/trailing.js'
import { cancel, limit, orderEvents } from '../helpers/commands.js'
import { BTCPERP, CAROL, DAVE, TestExchange, btcTicks as px } from '../helpers/exchange.js'

/** A small deterministic generator (the tests' own, no Math.random). */
function rng(seed: number): (n: number) => number {
  let x = seed * 7919 + 17
  return (n) => {
    x = (x * 1103515245 + 12345) % 2147483648
    return Math.floor((x / 2147483648) * n)
  }
}

interface ModelStop { id: number; sell: boolean; cb: number; ext: number; heldAt: number }

const trigger1000 = (s: ModelStop): number => s.sell ? s.ext * (1000 - s.cb) : s.ext * (1000 + s.cb)

/** The naive model: every stop on every price; fired as (orderId, distance, extreme) sorted by distance, then id. */
function modelPrice(stops: Map<number, ModelStop>, price: number, protect: (id: number) => boolean, held: number[]): [number, number, number][] {
  const fired: [number, number, number][] = []
  for (const s of stops.values()) {
    if (s.sell ? price > s.ext : price < s.ext) s.ext = price
    const t = trigger1000(s)
    if (s.sell ? price * 1000 > t : price * 1000 < t) continue
    if (s.heldAt === s.ext) continue
    if (protect(s.id)) {
      s.heldAt = s.ext
      held.push(s.id)
      continue
    }
    fired.push([s.id, Math.abs(price * 1000 - t), s.ext])
  }
  for (const [id] of fired) stops.delete(id)
  return fired.sort((a, b) => b[1] - a[1] || a[0] - b[0])
}

function trailingOrder(id: number, side: Side, cb: number, extreme: number): Order {
  const cond = new ConditionalState({
    origType: 'TRAILING_STOP_MARKET', stopPriceTicks: 0, activationPriceTicks: extreme, callbackPermille: cb,
    workingType: 'CONTRACT_PRICE', priceProtect: false, closePosition: false, activated: true, extremeTicks: extreme,
    trailingDeltaBips: 0, trailingTime: 0, triggerTime: 0, reason: '', entry: null,
  })
  return { orderId: id, side, cond } as unknown as Order
}

t.test('hand-computed: a new high merges the extremes below it, a retrace fires by callback', async (t) => {
  const side = new TrailSide(true)
  const a = trailingOrder(1, 'SELL', 10, 1_000)
  const b = trailingOrder(2, 'SELL', 10, 900)
  const c = trailingOrder(3, 'SELL', 20, 950)
  for (const o of [a, b, c]) side.join(o)
  const ext = (): number[] => [a, b, c].map((o) => o.cond!.extremeTicks)
  side.move(960)
  t.same(ext(), [1_000, 960, 960], '960 raises the two below it, not the one above')
  side.move(1_200)
  t.same(ext(), [1_200, 1_200, 1_200], 'a new high: all share it')
  const due: Due[] = []
  const fired = (): number[][] => due.map((d) => [d.order.orderId, d.distance]).sort((x, y) => y[1]! - x[1]! || x[0]! - y[0]!)
  // Triggers ×1000: a and b 1,200 × 990 = 1,188,000; c 1,200 × 980 = 1,176,000.
  side.fire(1_189, {} as PerpMarket, () => false, due, [])
  t.same(due, [], '1,189 is above every trigger')
  side.fire(1_188, {} as PerpMarket, () => false, due, [])
  t.same(fired(), [[1, 0], [2, 0]], 'a trigger reached exactly fires')
  side.move(1_250)
  t.same(c.cond!.extremeTicks, 1_250, 'the rest trails on')
  side.fire(1_225, {} as PerpMarket, () => false, due, [])
  t.same(fired(), [[1, 0], [2, 0], [3, 0]], '1,250 × 0.98')
  t.same([a, b, c].map((o) => o.cond!.extremeTicks), [1_200, 1_200, 1_250], 'fired stops keep their extremes')

  // BUY mirrors it: a new low lowers the extremes above it.
  const buy = new TrailSide(false)
  const d = trailingOrder(4, 'BUY', 50, 1_000)
  const e = trailingOrder(5, 'BUY', 50, 1_100)
  buy.join(d)
  buy.join(e)
  buy.move(1_050)
  t.same([d, e].map((o) => o.cond!.extremeTicks), [1_000, 1_050])
  buy.move(800)
  const bought: Due[] = []
  // Trigger 800 × 1,050 = 840,000.
  buy.fire(839, {} as PerpMarket, () => false, bought, [])
  buy.fire(845, {} as PerpMarket, () => false, bought, [])
  t.same(bought.map((x) => [x.order.orderId, x.distance]).sort((x, y) => x[0]! - y[0]!), [[4, 5_000], [5, 5_000]])
})

t.test('the grouped structure against the naive model: joins anywhere, leaves, new extremes, retraces, holds', async (t) => {
  let fired = 0
  let held = 0
  let mostWaiting = 0
  let quietRuns = 0
  for (let seed = 1; seed <= 30; seed++) {
    const r = rng(seed)
    const sides = { SELL: new TrailSide(true), BUY: new TrailSide(false) }
    const orders = new Map<number, Order>()
    const model = new Map<number, ModelStop>()
    let price = 100_000
    let nextId = 1
    let mismatches = 0
    for (let step = 0; step < 600; step++) {
      const op = r(10)
      if (op < 4) {
        // A stop joins at the price, or (as after a snapshot restore) at any extreme near it.
        const side: Side = r(2) === 0 ? 'SELL' : 'BUY'
        const cb = 1 + r(r(2) === 0 ? 5 : 100)
        const ext = r(2) === 0 ? price : Math.max(1, price + r(81) - 40)
        const o = trailingOrder(nextId, side, cb, ext)
        sides[side].join(o)
        orders.set(nextId, o)
        model.set(nextId, { id: nextId, sell: side === 'SELL', cb, ext, heldAt: 0 })
        nextId += 1
      } else if (op < 5 && orders.size > 0) {
        const ids = [...orders.keys()]
        const id = ids[r(ids.length)]!
        const o = orders.get(id)!
        sides[o.side as Side].leave(o)
        orders.delete(id)
        if (o.cond!.extremeTicks !== model.get(id)!.ext) mismatches++
        model.delete(id)
      } else {
        // A trigger run: a few prices, the held stops released at its end (as runTriggers does).
        price = Math.max(1, price + (r(20) === 0 ? r(4001) - 2000 : r(61) - 30))
        const protectIds = new Set([...orders.keys()].filter(() => r(8) === 0))
        const heldCore: Order[] = []
        const heldModel: number[] = []
        for (let round = 0; round < 1 + r(3); round++) {
          const due: Due[] = []
          for (const side of [sides.SELL, sides.BUY]) {
            // A side that says a price is quiet must be left as it was by it (runTriggers skips it then).
            const quiet = side.quiet(price)
            const extremes = (): string => JSON.stringify([...orders.values()].map((o) => o.cond!.extremeTicks))
            const before = quiet ? extremes() : ''
            const counts = due.length + heldCore.length
            side.move(price)
            side.fire(price, {} as PerpMarket, (_m, o) => protectIds.has(o.orderId), due, heldCore)
            if (quiet && (extremes() !== before || due.length + heldCore.length !== counts)) mismatches++
            if (quiet) quietRuns++
          }
          // A fired stop left its group with the extreme it fired at.
          const got = due.map((d) => [d.order.orderId, d.distance, d.order.cond!.extremeTicks] as [number, number, number])
            .sort((a, b) => b[1] - a[1] || a[0] - b[0])
          const want = modelPrice(model, price, (id) => protectIds.has(id), heldModel)
          if (JSON.stringify(got) !== JSON.stringify(want)) mismatches++
          for (const [id] of got) orders.delete(id)
          fired += got.length
          price = Math.max(1, price + r(41) - 20)
        }
        for (const o of heldCore) (o.cond as ConditionalState).heldAt = 0
        for (const s of model.values()) s.heldAt = 0
        const heldIds = (ids: number[]): string => JSON.stringify([...new Set(ids)].sort((a, b) => a - b))
        if (heldIds(heldCore.map((o) => o.orderId)) !== heldIds(heldModel)) mismatches++
        held += heldModel.length
      }
      for (const [id, o] of orders) {
        if (o.cond!.extremeTicks !== model.get(id)!.ext) mismatches++
      }
      mostWaiting = Math.max(mostWaiting, orders.size)
    }
    t.equal(mismatches, 0, `seed ${seed}: same extremes, same firing`)
  }
  t.ok(fired > 1000 && held > 100 && mostWaiting > 50 && quietRuns > 1000,
    `the paths fire (${fired}) and hold (${held}), up to ${mostWaiting} stops waiting, ${quietRuns} quiet looks`)
})

// ---- the exchange ----

const ACCOUNTS = Array.from({ length: 12 }, (_, i) => '0x' + (i + 1).toString(16).padStart(2, '0').repeat(20))

function trailing(account: string, side: Side, cb: number, activation?: number): PlaceOrder {
  return { type: 'PlaceOrder', account, sub: 0, marketId: BTCPERP, side, orderType: 'TRAILING_STOP_MARKET', qtyLots: 10,
    callbackPermille: cb, ...(activation !== undefined ? { activationPriceTicks: activation } : {}) }
}

/** A trade between CAROL and DAVE at `ticks`: the new last price. */
function print(ex: TestExchange, ticks: number): Result {
  ex.ok(limit(CAROL, 'SELL', ticks, 10))
  return ex.ok(limit(DAVE, 'BUY', ticks, 10))
}

interface ExchangeStop { id: number; sell: boolean; cb: number; active: boolean; activation: number; ext: number }

/** The model on a print: activations, then extremes, then what fires, in crossing order. */
function modelPrint(stops: Map<number, ExchangeStop>, price: number): number[] {
  const fired: [number, number][] = []
  for (const s of stops.values()) {
    if (!s.active) {
      if (s.sell ? price >= s.activation : price <= s.activation) {
        s.active = true
        s.ext = price
      }
      continue
    }
    if (s.sell ? price > s.ext : price < s.ext) s.ext = price
    const t = s.sell ? s.ext * (1000 - s.cb) : s.ext * (1000 + s.cb)
    if (s.sell ? price * 1000 <= t : price * 1000 >= t) fired.push([s.id, Math.abs(price * 1000 - t)])
  }
  fired.sort((a, b) => b[1] - a[1] || a[0] - b[0])
  for (const [id] of fired) stops.delete(id)
  return fired.map((f) => f[0])
}

t.test('random price paths: trailing stops fire as the model says, extremes agree, snapshots restore them', async (t) => {
  let firedTotal = 0
  let restores = 0
  for (let seed = 1; seed <= 6; seed++) {
    const r = rng(seed)
    const grid = seed % 2 === 0
    let ex = new TestExchange()
    for (const a of [...ACCOUNTS, CAROL, DAVE]) ex.fund(a, 10_000_000)
    let last = 50_000
    print(ex, px(last))
    const model = new Map<number, ExchangeStop>()
    let mismatches = 0
    for (let step = 0; step < 400; step++) {
      const op = r(10)
      if (op < 4) {
        const side: Side = r(2) === 0 ? 'BUY' : 'SELL'
        // On even seeds prices move by whole 10 USDT and callbacks are whole percents: many stops share extremes.
        const cb = grid ? 10 * (1 + r(10)) : 1 + r(r(2) === 0 ? 10 : 100)
        const away = grid ? 10 * (1 + r(50)) : 1 + r(500)
        const activation = r(3) === 0 ? px(last + (side === 'SELL' ? away : -away)) : undefined
        const res = ex.run(trailing(ACCOUNTS[r(ACCOUNTS.length)]!, side, cb, activation))
        if (!res.ok) continue // the 10-per-market cap
        model.set(res.orderId!, { id: res.orderId!, sell: side === 'SELL', cb, active: activation === undefined,
          activation: activation ?? 0, ext: activation === undefined ? px(last) : 0 })
      } else if (op < 5 && model.size > 0) {
        const ids = [...model.keys()]
        const id = ids[r(ids.length)]!
        const o = (ex.state.markets[BTCPERP] as PerpMarket).triggers.live.get(id)!
        ex.ok(cancel(o.owner.address, { marketId: BTCPERP, orderId: id }))
        model.delete(id)
      } else if (op < 6 && r(4) === 0) {
        // A replica restored from a snapshot carries on where this one is.
        const copy = new TestExchange()
        ;(copy as { state: State }).state = decodeSnapshot(encodeSnapshot(ex.state))
        copy.time = ex.time
        t.equal(stateRoot(copy.state), stateRoot(ex.state))
        ex = copy
        restores++
      } else {
        const step = r(15) === 0 ? r(3001) - 1500 : r(201) - 100
        last = Math.max(40_000, Math.min(60_000, last + (grid ? 10 * Math.round(step / 10) : step)))
        const res = print(ex, px(last))
        const fired = orderEvents(res).filter((e) => e.cond !== undefined && e.cond.triggerTime > 0 && e.execType === 'NEW')
          .map((e) => e.orderId)
        if (JSON.stringify(fired) !== JSON.stringify(modelPrint(model, px(last)))) mismatches++
        firedTotal += fired.length
      }
      const live = (ex.state.markets[BTCPERP] as PerpMarket).triggers.live
      for (const [id, s] of model) if (live.get(id)?.cond?.extremeTicks !== s.ext) mismatches++
      if (live.size !== model.size) mismatches++
    }
    t.equal(mismatches, 0, `seed ${seed}`)
  }
  t.ok(firedTotal > 200 && restores > 10, `the paths fire (${firedTotal} trailing stops) across ${restores} restores`)
})
