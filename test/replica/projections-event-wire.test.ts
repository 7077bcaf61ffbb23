// The batch message to the projections' worker gives back exactly the events it was given:
// order and trade events written field by field, anything else (or with a field more) as is.

import t from 'tap'
import type { Event, OrderEvent, PerpTradeEvent } from '../../core/events.js'
import { readWire, WireWriter } from '../../replica/projections/event-wire.js'
import { scenario } from '../helpers/projections-answers.js'
import { Fixture } from '../helpers/projections-fixture.js'

t.test('every event of the scenario comes back the same, entry by entry', async (t) => {
  const f = await Fixture.open(t)
  await scenario(f)
  const entries = f.log.map((e) => e.events)
  const w = new WireWriter()
  for (const events of entries) w.entry(events)
  t.equal(w.entries, entries.length)
  const wire = w.take()
  t.ok(wire.cloned.length < entries.flat().length / 2, 'most events written field by field')
  t.same(readWire(wire), entries)
  t.equal(w.entries, 0, 'taken: the writer starts over')
  t.same(readWire(w.take()), [])
})

t.test('optional or unknown fields go as they are', async (t) => {
  const f = await Fixture.open(t)
  await scenario(f)
  const all = f.log.flatMap((e) => e.events)
  const order = all.find((e): e is OrderEvent => e.type === 'order')!
  const trade = all.find((e): e is PerpTradeEvent => e.type === 'trade')!
  const variants: Event[] = [
    order,
    { ...order, priceMatch: 'QUEUE' },
    { ...order, amendment: { priceBeforeTicks: 1, origQtyBeforeLots: 2, count: 1 } },
    { ...order, cond: { origType: 'STOP', stopPriceTicks: 5, activationPriceTicks: 0, callbackPermille: 0,
      workingType: 'CONTRACT_PRICE', priceProtect: false, closePosition: false, triggerTime: 0, reason: '' } },
    { ...order, later: 7 } as unknown as Event,
    trade,
    { ...trade, adl: true },
    { ...trade, maker: { ...trade.maker, isolatedWallet: 12 } },
    { ...trade, taker: { ...trade.taker, later: 1 } } as unknown as Event,
  ]
  const w = new WireWriter()
  for (const e of variants) w.entry([e])
  w.entry([])
  w.entry(variants)
  const wire = w.take()
  t.equal(wire.cloned.length, 2 * (variants.length - 2), 'only the plain order and trade written by field')
  t.same(readWire(wire), [...variants.map((e) => [e]), [], variants])
})
