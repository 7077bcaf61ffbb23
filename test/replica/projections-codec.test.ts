// The projections' row codecs (replica/projections/codec.ts): a row is the msgpack array of its
// record's fields in the layout's order, which is the stored format. These pin the bytes
// against msgpackr packing the values in that order by hand, and the round trip, optional
// tail fields absent and present.

import t from 'tap'
import { Packr } from 'msgpackr'
import { incomeCodec, orderCodec, storedUserTradeCodec, userTradeCodec } from '../../replica/projections/codec.js'
import type { IncomeRecord, OrderRecord, UserTradeRecord } from '../../replica/projections/records.js'

const packr = new Packr({ useRecords: false, mapsAsObjects: true })

const order: OrderRecord = {
  marketId: 1, orderId: 2 ** 40 + 7, account: '0x' + 'Ab'.repeat(20), sub: 3, clientOrderId: 'bench-1', side: 'SELL',
  orderType: 'LIMIT', timeInForce: 'GTC', priceTicks: 500_001, origQtyLots: 12, executedQtyLots: 5, cumQuoteTicksLots: 2_500_005,
  status: 'PARTIALLY_FILLED', positionSide: 'BOTH', reduceOnly: false, stp: 'EXPIRE_MAKER', goodTillDate: 0, time: 1_764_200_000_000,
  updateTime: 1_764_200_000_123,
}

t.test('an order row is its fields in layout order, optional tail fields absent or present', async (t) => {
  const plain = orderCodec.encode(order)
  t.same(plain, packr.pack([
    order.marketId, order.orderId, order.account, order.sub, order.clientOrderId, order.side, order.orderType, order.timeInForce,
    order.priceTicks, order.origQtyLots, order.executedQtyLots, order.cumQuoteTicksLots, order.status, order.positionSide,
    order.reduceOnly, order.stp, order.goodTillDate, order.time, order.updateTime, undefined, undefined, undefined, undefined, undefined,
    undefined, undefined, undefined, undefined, undefined, undefined,
  ]))
  t.same(orderCodec.decode(plain), order, 'absent optional fields stay absent')
  const matched: OrderRecord = { ...order, priceMatch: 'QUEUE_5' }
  t.same(orderCodec.decode(orderCodec.encode(matched)), matched)
  const byQuote: OrderRecord = { ...order, orderType: 'MARKET', quoteQty: 700_000_000 }
  t.same(orderCodec.decode(orderCodec.encode(byQuote)), byQuote, 'a quote-sized order keeps its amount')
  const leg: OrderRecord = { ...order, orderListId: 7 }
  t.same(orderCodec.decode(orderCodec.encode(leg)), leg, 'an OCO leg keeps its list')
  const iceberg: OrderRecord = { ...order, icebergLots: 25 }
  t.same(orderCodec.decode(orderCodec.encode(iceberg)), iceberg, 'an iceberg keeps its slice')
  const ranged: OrderRecord = { ...order, status: 'EXPIRED', expiryReason: 'EXECUTION_RULE_PRICE_RANGE_EXCEEDED' }
  t.same(orderCodec.decode(orderCodec.encode(ranged)), ranged, 'a taker the price range stopped keeps its reason')
  const pegged: OrderRecord = { ...order, peg: { type: 'MARKET_PEG', offsetLevels: 3, sentPriceTicks: 0 } }
  t.same(orderCodec.decode(orderCodec.encode(pegged)), pegged, 'a pegged order keeps its peg')
  const prevented: OrderRecord = { ...order, status: 'EXPIRED_IN_MATCH', preventedMatchId: 0 }
  t.same(orderCodec.decode(orderCodec.encode(prevented)), prevented, 'an order self-trade prevention expired keeps its match, 0 included')
  const cut: OrderRecord = { ...order, preventedMatchId: 4, preventedLots: 20 }
  t.same(orderCodec.decode(orderCodec.encode(cut)), cut, 'an order DECREMENT cut keeps its prevented lots')
  const tagged: OrderRecord = { ...order, strategyId: 0, strategyType: 1_000_000 }
  t.same(orderCodec.decode(orderCodec.encode(tagged)), tagged, 'a tagged spot order keeps its strategyId (0 included) and strategyType')
  const typeOnly: OrderRecord = { ...order, strategyType: 2_147_483_647 }
  t.same(orderCodec.decode(orderCodec.encode(typeOnly)), typeOnly, 'a strategyType alone: no strategyId read back')
  // Rows written before quoteQty and orderListId were appended (two optional fields) still decode.
  const before = packr.pack([...packr.unpack(plain).slice(0, 21)])
  t.same(orderCodec.decode(before), order, 'rows from before quoteQty')
  t.same(orderCodec.decode(packr.pack([...packr.unpack(plain).slice(0, 22)])), order, 'rows from before orderListId')
  t.same(orderCodec.decode(packr.pack([...packr.unpack(plain).slice(0, 23)])), order, 'rows from before icebergLots')
  t.same(orderCodec.decode(packr.pack([...packr.unpack(plain).slice(0, 24)])), order, 'rows from before expiryReason')
  t.same(orderCodec.decode(packr.pack([...packr.unpack(plain).slice(0, 25)])), order, 'rows from before peg')
  t.same(orderCodec.decode(packr.pack([...packr.unpack(plain).slice(0, 26)])), order, 'rows from before preventedMatchId')
  t.same(orderCodec.decode(packr.pack([...packr.unpack(plain).slice(0, 27)])), order, 'rows from before preventedLots')
  t.same(orderCodec.decode(packr.pack([...packr.unpack(plain).slice(0, 28)])), order, 'rows from before strategyId: no tags')
  t.same(orderCodec.decode(packr.pack([...packr.unpack(plain).slice(0, 29)])), order, 'rows from before strategyType')
})

t.test('user trade and income rows, as the fills write them', async (t) => {
  const trade: UserTradeRecord = {
    marketId: 2, tradeId: 99, orderId: 1234, side: 'BUY', priceTicks: 30_000, qtyLots: 4, quoteQtyTicksLots: 120_000,
    realizedPnl: -1_500, commission: 24, commissionAsset: null, time: 1_764_200_000_000, buyer: true, maker: false, positionSide: 'LONG',
  }
  t.same(userTradeCodec.encode(trade), packr.pack([2, 99, 1234, 'BUY', 30_000, 4, 120_000, -1_500, 24, null, 1_764_200_000_000, true, false, 'LONG']))
  t.same(userTradeCodec.decode(userTradeCodec.encode(trade)), trade)
  // As stored, the fill's first income tranId follows; myTrades reads past it, income reads it.
  const stored = storedUserTradeCodec.encode({ ...trade, incomeId: 5_000_000 })
  t.same(stored, packr.pack([2, 99, 1234, 'BUY', 30_000, 4, 120_000, -1_500, 24, null, 1_764_200_000_000, true, false, 'LONG', 5_000_000]))
  t.same(userTradeCodec.decode(stored), trade, 'myTrades leaves incomeId out')
  t.same(storedUserTradeCodec.decode(stored), { ...trade, incomeId: 5_000_000 })
  t.same(storedUserTradeCodec.decode(userTradeCodec.encode(trade)), trade, 'a row from before incomeId has none')
  const income: IncomeRecord = {
    tranId: 5_000_001, incomeType: 'COMMISSION', marketId: 2, income: -24, asset: null, info: '99', time: 1_764_200_000_000, tradeId: 99,
  }
  t.same(incomeCodec.encode(income), packr.pack([5_000_001, 'COMMISSION', 2, -24, null, '99', 1_764_200_000_000, 99]))
  t.same(incomeCodec.decode(incomeCodec.encode(income)), income)
})
