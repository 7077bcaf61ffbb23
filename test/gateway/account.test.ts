// Account reads after a trade: account, positionRisk, commission rate, user trades, order
// history and income, with hand-computed figures; each account sees only its own.

import t from 'tap'
import { gatewayRig, signedInject, type GatewayRig, fundedTrader } from '../helpers/gateway.js'

const trader = (rig: GatewayRig) => fundedTrader(rig, 10_000)

t.test('after Alice sells 0.004 BTC at 50000.0 to Bob', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const alice = await trader(rig)
  const bob = await trader(rig)
  await signedInject(rig, alice.keys, 'POST', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', side: 'SELL', type: 'LIMIT',
    timeInForce: 'GTC', quantity: '0.010', price: '50000.0' })
  await signedInject(rig, bob.keys, 'POST', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', side: 'BUY', type: 'MARKET', quantity: '0.004' })

  // Alice: short 0.004 at 50000.0, maker fee 200 × 0.0002 = 0.04; wallet 10000 − 0.04 = 9999.96.
  // Initial margin at 20×: position 200/20 = 10; the rest of her ask (0.006 at 50000 = 300
  // notional) counts as the larger open side: 300/20 = 15 → 25 in all.
  const acct = (await signedInject(rig, alice.keys, 'GET', '/fapi/v2/account')).json()
  t.match(acct, { totalWalletBalance: '9999.96000000', totalUnrealizedProfit: '0.00000000', totalInitialMargin: '25.00000000',
    totalPositionInitialMargin: '10.00000000', totalOpenOrderInitialMargin: '15.00000000', availableBalance: '9974.96000000',
    assets: [{ asset: 'USDT', walletBalance: '9999.96000000' }] })
  const btc = acct.positions.find((p: { symbol: string }) => p.symbol === 'BTCUSDTPERP')
  // Maintenance: 200 × 0.4% = 0.8.
  t.match(btc, { positionAmt: '-0.004', entryPrice: '50000.0', marginAmt: '10.00000000', maintMargin: '0.80000000',
    notional: '-200.00000000', leverage: '20', positionSide: 'BOTH', isolated: false })

  const risk = (await signedInject(rig, bob.keys, 'GET', '/fapi/v2/positionRisk', { symbol: 'BTCUSDTPERP' })).json()
  t.equal(risk.length, 1)
  t.match(risk[0], { symbol: 'BTCUSDTPERP', positionAmt: '0.004', entryPrice: '50000.0', markPrice: '50000.0',
    unRealizedProfit: '0.00000000', leverage: '20', marginType: 'cross', notional: '200.00000000', liquidationPrice: '0' })

  const rate = (await signedInject(rig, bob.keys, 'GET', '/fapi/v1/commissionRate', { symbol: 'BTCUSDTPERP' })).json()
  t.same(rate, { symbol: 'BTCUSDTPERP', makerCommissionRate: '0.000200', takerCommissionRate: '0.000500' })

  for (const path of ['/fapi/v3/myTrades', '/fapi/v1/userTrades']) {
    const trades = (await signedInject(rig, bob.keys, 'GET', path, { symbol: 'BTCUSDTPERP' })).json()
    t.equal(trades.length, 1, path)
    // Bob's taker fee: 200 × 0.0005 = 0.1.
    t.match(trades[0], { symbol: 'BTCUSDTPERP', id: 1, orderId: 2, side: 'BUY', price: '50000.0', qty: '0.004',
      quoteQty: '200.0000', commission: '0.10000000', commissionAsset: 'USDT', realizedPnl: '0.00000000',
      buyer: true, maker: false, positionSide: 'BOTH' })
  }
  const wide = await signedInject(rig, bob.keys, 'GET', '/fapi/v3/myTrades', { symbol: 'BTCUSDTPERP', startTime: 0, endTime: 86_400_001 })
  t.same(wide.json(), { code: -1127, msg: 'More than 24 hours between startTime and endTime.' }, 'more than 24 hours between startTime and endTime')

  const orders = (await signedInject(rig, alice.keys, 'GET', '/fapi/v1/allOrders', { symbol: 'BTCUSDTPERP' })).json()
  t.same(orders.map((o: { orderId: number; status: string }) => [o.orderId, o.status]), [[1, 'PARTIALLY_FILLED']])
  t.same((await signedInject(rig, bob.keys, 'GET', '/fapi/v1/allOrders', { symbol: 'BTCUSDTPERP' })).json()
    .map((o: { orderId: number }) => o.orderId), [2], 'each account sees only its own orders')

  const income = (await signedInject(rig, alice.keys, 'GET', '/fapi/v1/income', { incomeType: 'COMMISSION' })).json()
  t.match(income, [{ symbol: 'BTCUSDTPERP', incomeType: 'COMMISSION', income: '-0.04000000', asset: 'USDT' }])
  const bad = await signedInject(rig, alice.keys, 'GET', '/fapi/v1/income', { incomeType: 'GIFT' })
  t.equal(bad.json().code, -1130)
  // A type Binance documents that nothing here makes: none, not a refusal (a bookkeeper loops over them all).
  for (const incomeType of ['WELCOME_BONUS', 'REFERRAL_KICKBACK', 'API_REBATE']) {
    const none = await signedInject(rig, alice.keys, 'GET', '/fapi/v1/income', { incomeType })
    t.same([none.statusCode, none.json()], [200, []], incomeType)
  }
  // fromId with a time bound is not a combination USD-M takes either.
  t.same((await signedInject(rig, bob.keys, 'GET', '/fapi/v1/userTrades', { symbol: 'BTCUSDTPERP', fromId: 1, startTime: 0 })).json(),
    { code: -1128, msg: 'Combination of optional parameters invalid.' })
})

t.test('income pages: page walks back from the newest rows, or on from startTime', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const alice = await trader(rig)
  // Her deposit and seven transfers out of the perp wallet, 1..7 USDT: eight TRANSFER rows.
  for (let i = 1; i <= 7; i++) await rig.run({ type: 'Transfer', account: alice.address, sub: 0, amount: i * 1_000_000, direction: 'PERP_TO_SPOT' })
  const amounts = async (p: Record<string, string | number>): Promise<string[]> =>
    (await signedInject(rig, alice.keys, 'GET', '/fapi/v1/income', { incomeType: 'TRANSFER', limit: 3, ...p })).json()
      .map((r: { income: string }) => r.income)
  const out = (...n: number[]) => n.map((i) => `-${i}.00000000`)
  t.same(await amounts({}), out(5, 6, 7), 'the newest three')
  t.same(await amounts({ page: 1 }), out(5, 6, 7))
  t.same(await amounts({ page: 2 }), out(2, 3, 4), 'the three before them')
  t.same(await amounts({ page: 3 }), ['10000.00000000', ...out(1)])
  t.same(await amounts({ page: 4 }), [])
  t.same(await amounts({ startTime: 0, page: 1 }), ['10000.00000000', ...out(1, 2)], 'from startTime: the oldest first')
  t.same(await amounts({ startTime: 0, page: 3 }), out(6, 7))
  for (const page of ['0', 'abc', '3334']) {
    t.same((await signedInject(rig, alice.keys, 'GET', '/fapi/v1/income', { limit: 3, page })).json(),
      { code: -1130, msg: "Data sent for parameter 'page' is not valid." }, `page ${page} (pages reach 10,000 rows)`)
  }
})

// A short the wallet backs many times over is liquidated only past what a number holds in E8
// exactly: positionRisk and the account answered 500 (-1000) for the market maker's account.
t.test('a short far from liquidation shows its liquidation price, however far', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const rich = await fundedTrader(rig, 1_000_000)
  const bob = await trader(rig)
  await signedInject(rig, bob.keys, 'POST', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', side: 'BUY', type: 'LIMIT',
    timeInForce: 'GTC', quantity: '0.009', price: '30000.0' })
  await signedInject(rig, rich.keys, 'POST', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', side: 'SELL', type: 'MARKET', quantity: '0.009' })
  // (1000000 − taker fee 0.135 + cum 950 + 0.009 × 30000) / (0.009 × 0.0065 + 0.009): the third bracket's at that price.
  const risk = await signedInject(rig, rich.keys, 'GET', '/fapi/v2/positionRisk', { symbol: 'BTCUSDTPERP' })
  t.equal(risk.statusCode, 200)
  t.match(risk.json(), [{ positionAmt: '-0.009', entryPrice: '30000.0', liquidationPrice: '110528218.24805431' }])
  t.equal((await signedInject(rig, rich.keys, 'GET', '/fapi/v3/positionRisk')).statusCode, 200)
  t.equal((await signedInject(rig, rich.keys, 'GET', '/fapi/v2/account')).statusCode, 200)
})

t.test('breakEvenPrice: (entry cost − PnL realized since the position opened) / size', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const alice = await trader(rig)
  const bob = await trader(rig)
  /** Alice rests `qty` at `price` on `side`; Bob takes it at the market. */
  const bobTakes = async (side: 'BUY' | 'SELL', qty: string, price: string): Promise<void> => {
    await signedInject(rig, alice.keys, 'POST', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', side: side === 'BUY' ? 'SELL' : 'BUY',
      type: 'LIMIT', timeInForce: 'GTC', quantity: qty, price })
    const r = await signedInject(rig, bob.keys, 'POST', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', side, type: 'MARKET', quantity: qty,
      newOrderRespType: 'RESULT' })
    t.equal(r.json().status, 'FILLED', `Bob ${side} ${qty} at ${price}`)
  }
  /** [entryPrice, breakEvenPrice] of BTCUSDTPERP in positionRisk v2 and v3 and account v2 and v3. */
  const rows = async (who: typeof alice): Promise<string[][]> => Promise.all(
    ['/fapi/v2/positionRisk', '/fapi/v3/positionRisk', '/fapi/v2/account', '/fapi/v3/account'].map(async (path) => {
      const body = (await signedInject(rig, who.keys, 'GET', path)).json()
      const r = (path.includes('account') ? body.positions : body).find((p: { symbol: string }) => p.symbol === 'BTCUSDTPERP')
      return r === undefined ? ['not listed'] : [r.entryPrice, r.breakEvenPrice]
    }))
  const everywhere = (pair: string[]): string[][] => [pair, pair, pair, pair]

  // Bob buys 0.004 at 50000.0: nothing realized, break-even at the entry.
  await bobTakes('BUY', '0.004', '50000.0')
  t.same(await rows(bob), everywhere(['50000.0', '50000.0']), 'opened: break-even is the entry price')
  // He sells 0.002 at 50100.0 and realizes +0.20: the rest, 0.002 at a cost of 100, breaks even at
  // (100 − 0.20) / 0.002 = 49900.0. Alice's short, having lost 0.20, at (−100 + 0.20) / −0.002 = 49900.0.
  await bobTakes('SELL', '0.002', '50100.0')
  t.same(await rows(bob), everywhere(['50000.0', '49900.0']), 'a profitable partial close lowers a long\'s break-even')
  t.same(await rows(alice), everywhere(['50000.0', '49900.0']), 'a losing partial close lowers a short\'s')
  // Flat, then a new long at 50200.0: what the old position realized is not carried over.
  await bobTakes('SELL', '0.002', '50100.0')
  t.same(await rows(bob), [['0.0', '0.0'], ['not listed'], ['0.0', '0.0'], ['not listed']], 'flat (v3 lists held symbols only)')
  await bobTakes('BUY', '0.002', '50200.0')
  t.same(await rows(bob), everywhere(['50200.0', '50200.0']), 'a new position starts afresh')
})

// Hedge mode: each row carried the other side's position margin, and the LONG row all the
// symbol's open-order margin, so the rows added up to more than the account's total.
t.test('hedge mode: each row its own side\'s position and order margin, adding up to the total; v3 lists held symbols only', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const bob = await trader(rig)
  const carol = await trader(rig)
  const dave = await trader(rig)
  const order = (keys: typeof bob.keys, o: Record<string, string>) =>
    signedInject(rig, keys, 'POST', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', ...o })
  t.equal((await signedInject(rig, carol.keys, 'POST', '/fapi/v1/positionSide/dual', { dualSidePosition: 'true' })).statusCode, 200)
  await order(bob.keys, { side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.010', price: '50000.0' })
  t.equal((await order(carol.keys, { side: 'SELL', positionSide: 'SHORT', type: 'MARKET', quantity: '0.004' })).statusCode, 200)
  // Carol: SHORT 0.004 at 50000 (200 notional, 10 at 20×); a LONG bid of 0.003 at 49000 (147: 7.35)
  // and a SHORT ask of 0.003 at 51000 (153: 7.65). Hedge mode counts both sides: 500, 25 in all.
  for (const [side, positionSide, price] of [['BUY', 'LONG', '49000.0'], ['SELL', 'SHORT', '51000.0']]) {
    const r = await order(carol.keys, { side: side!, positionSide: positionSide!, type: 'LIMIT', timeInForce: 'GTC', quantity: '0.003',
      price: price!, newOrderRespType: 'RESULT' })
    t.equal(r.json().status, 'NEW', `${positionSide} ${side} rests`)
  }
  const margins = (rows: Record<string, string>[]) => rows.filter((r) => r.symbol === 'BTCUSDTPERP')
    .map((r) => [r.positionSide, r.positionInitialMargin, r.openOrderInitialMargin, r.initialMargin])
  const want = [['LONG', '0.00000000', '7.35000000', '7.35000000'], ['SHORT', '10.00000000', '7.65000000', '17.65000000']]
  const risk = (await signedInject(rig, carol.keys, 'GET', '/fapi/v2/positionRisk')).json()
  t.same(margins(risk), want, 'positionRisk')
  const acct = (await signedInject(rig, carol.keys, 'GET', '/fapi/v2/account')).json()
  t.same(margins(acct.positions), want, 'the account\'s rows')
  t.match(acct, { totalInitialMargin: '25.00000000', totalPositionInitialMargin: '10.00000000', totalOpenOrderInitialMargin: '15.00000000' })

  // v1 and v2 list every perpetual; v3 only symbols with a position or open orders.
  const symbols = (rows: { symbol: string; positionSide: string }[]) => rows.map((r) => `${r.symbol} ${r.positionSide}`)
  t.same(symbols(risk), ['BTCUSDTPERP LONG', 'BTCUSDTPERP SHORT', 'ETHUSDTPERP LONG', 'ETHUSDTPERP SHORT'])
  t.same(symbols((await signedInject(rig, carol.keys, 'GET', '/fapi/v3/positionRisk')).json()), ['BTCUSDTPERP LONG', 'BTCUSDTPERP SHORT'])
  t.same(symbols((await signedInject(rig, carol.keys, 'GET', '/fapi/v3/account')).json().positions), ['BTCUSDTPERP LONG', 'BTCUSDTPERP SHORT'])
  await signedInject(rig, dave.keys, 'POST', '/fapi/v1/order', { symbol: 'ETHUSDTPERP', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC',
    quantity: '0.100', price: '2000.00' })
  t.same(symbols((await signedInject(rig, dave.keys, 'GET', '/fapi/v3/positionRisk')).json()), ['ETHUSDTPERP BOTH'], 'open orders alone count')
  t.same((await signedInject(rig, bob.keys, 'GET', '/fapi/v3/account')).json().positions.map((p: { positionAmt: string }) => p.positionAmt),
    ['0.004'])
})
