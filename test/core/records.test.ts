// recordOf (core/records.ts) copies an order event's record field by field as one literal; the
// gateway answers and streams orders from it. It must keep every record field an event
// carries, conditional and priceMatch fields included, and nothing else.

import t from 'tap'
import { apply } from '../../core/apply.js'
import type { OrderEvent, OrderRecordFields } from '../../core/events.js'
import { recordOf } from '../../core/records.js'
import { createState } from '../../core/state.js'
import { DEFAULT_WORKLOAD, generateWorkload, PRICE_MOVES, toEntries } from '../../sim/workload.js'

/** What a rest destructuring leaves of the event: everything but its type, execType and amendment. */
function restOf(e: OrderEvent): OrderRecordFields {
  const { type: _t, execType: _x, amendment: _a, ...fields } = e
  return fields
}

t.test('recordOf keeps every record field of the order events a price-moving stream makes', async (t) => {
  const w = generateWorkload({ ...DEFAULT_WORKLOAD, commands: 4_000, priceMoves: { ...PRICE_MOVES, tickEvery: 100 } })
  const state = createState()
  let seen = 0
  let conditional = 0
  const differing: string[] = []
  for (const e of toEntries([...w.setup, ...w.stream], 1)) {
    for (const ev of apply(state, e).events) {
      if (ev.type !== 'order') continue
      const rec = recordOf(ev)
      const expected = restOf(ev)
      // JSON with sorted keys: the same fields with the same values, nested cond included.
      const sorted = (o: object): string => JSON.stringify(o, Object.keys(o).sort().concat(Object.keys(ev.cond ?? {})))
      if (sorted(rec) !== sorted(expected)) differing.push(`order ${ev.orderId} ${ev.execType}: ${sorted(rec)} against ${sorted(expected)}`)
      seen++
      if (ev.cond !== undefined) conditional++
    }
  }
  t.same(differing.slice(0, 3), [], `every record as the event carries it (${differing.length} differ)`)
  t.ok(seen > 1_000, `${seen} order events checked`)
  t.ok(conditional > 0, `${conditional} of them conditional`)
})

t.test('recordOf carries priceMatch and leaves an amendment out', async (t) => {
  const base = recordOf({
    type: 'order', execType: 'AMENDMENT', marketId: 1, orderId: 7, account: '0x' + 'ab'.repeat(20), sub: 0, clientOrderId: 'c7',
    side: 'BUY', orderType: 'LIMIT', timeInForce: 'GTC', priceTicks: 500_000, origQtyLots: 5, executedQtyLots: 0, cumQuoteTicksLots: 0,
    status: 'NEW', positionSide: 'BOTH', reduceOnly: false, stp: 'EXPIRE_MAKER', goodTillDate: 0, time: 1, updateTime: 2,
    priceMatch: 'QUEUE', amendment: { priceBeforeTicks: 499_999, origQtyBeforeLots: 5, count: 1 },
  } as OrderEvent)
  t.equal(base.priceMatch, 'QUEUE')
  t.notOk('amendment' in base)
  t.notOk('cond' in base)
  t.notOk('type' in base)
})
