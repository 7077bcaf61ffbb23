// X-MBX-TIME-UNIT: MICROSECOND turns every time field of every family's responses into
// microseconds (kline open and close times included) and nothing else; MILLISECOND or no header
// keeps milliseconds; any other value is -1194 and changes nothing.

import t from 'tap'
import { Wallet } from 'ethers'
import { stateRoot } from '../../core/root.js'
import { gatewayRig, hmac, openSession, type GatewayRig, type Keys } from '../helpers/gateway.js'
import { ORACLE, signedPrice } from '../helpers/oracle.js'

const MICRO = { 'x-mbx-time-unit': 'MICROSECOND' }

type Method = 'GET' | 'POST' | 'DELETE'

/** A signed request; in microseconds the timestamp is sent in µs too. */
function signed(rig: GatewayRig, keys: Keys, method: Method, path: string, params: Record<string, string> = {},
  headers: Record<string, string> = {}) {
  const micro = Object.values(headers).some((v) => v.toUpperCase() === 'MICROSECOND')
  const q = new URLSearchParams({ ...params, timestamp: String(micro ? rig.ex.time * 1000 + 999 : rig.ex.time) }).toString()
  return rig.app.inject({ method, url: `${path}?${q}&signature=${hmac(keys.secretKey, q)}`,
    headers: { 'x-mbx-apikey': keys.apiKey, ...headers } })
}

/**
 * `body` with the values at `paths` multiplied by 1000. A path is keys joined by dots; `[]`
 * is every element of an array, `[n]` its n-th: '[].time', 'assets[].updateTime', '[][6]'.
 */
function scaled(body: unknown, paths: string[]): unknown {
  const copy = structuredClone(body)
  for (const path of paths) {
    const steps = path.split(/\.|(?=\[)/).filter((s) => s !== '')
    const walk = (node: unknown, i: number): void => {
      const step = steps[i]!
      const last = i === steps.length - 1
      const keys = step === '[]' ? Object.keys(node as unknown[]) : [step.startsWith('[') ? step.slice(1, -1) : step]
      for (const k of keys) {
        const holder = node as Record<string, unknown>
        if (!(k in holder)) throw new Error(`${path}: no ${k}`)
        if (last) {
          if (typeof holder[k] !== 'number') throw new Error(`${path}: not a number`)
          holder[k] = (holder[k] as number) * 1000
        } else walk(holder[k], i + 1)
      }
    }
    walk(copy, 0)
  }
  return copy
}

async function setup(t: { teardown(fn: () => unknown): void }) {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const aliceWallet = Wallet.createRandom()
  const bobWallet = Wallet.createRandom()
  const alice = (await openSession(rig, aliceWallet, { permissions: 'TRADE,USER_DATA,WITHDRAW' })).json() as Keys
  const bob = (await openSession(rig, bobWallet)).json() as Keys
  for (const [w, ref] of [[aliceWallet, 'a'], [bobWallet, 'b']] as const) {
    await rig.run({ type: 'Deposit', account: w.address, sub: 0, asset: 'USDT', amount: 100_000_000_000, wallet: 'PERP', ref })
    await rig.run({ type: 'Deposit', account: w.address, sub: 0, asset: 'USDT', amount: 100_000_000_000, wallet: 'SPOT', ref: `${ref}-spot` })
  }
  await rig.run({ type: 'Deposit', account: aliceWallet.address, sub: 0, asset: 'BTC', amount: 100_000_000, wallet: 'SPOT', ref: 'a-btc' })
  // A perp trade, a resting GTD order, a spot trade and a withdrawal, so every list has rows.
  const order = { symbol: 'BTCUSDTPERP', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.010', price: '50000.0' }
  await signed(rig, alice, 'POST', '/fapi/v1/order', { ...order, side: 'SELL' })
  await signed(rig, bob, 'POST', '/fapi/v1/order', { ...order, side: 'BUY' })
  await signed(rig, alice, 'POST', '/fapi/v1/order', { ...order, side: 'SELL', price: '60000.0', timeInForce: 'GTD',
    goodTillDate: String(rig.ex.time + 3_600_000) })
  const spot = { symbol: 'BTCUSDT', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.1000', price: '50000.00' }
  await signed(rig, alice, 'POST', '/api/v3/order', { ...spot, side: 'SELL' })
  await signed(rig, bob, 'POST', '/api/v3/order', { ...spot, side: 'BUY' })
  await signed(rig, alice, 'POST', '/sapi/v1/capital/withdraw/apply', { coin: 'USDT', amount: '10' })
  // An index and a Tick: sampled mark, index and premium klines.
  await rig.run({ type: 'SetOracle', pair: 'BTCUSDT', oracle: ORACLE.address })
  await rig.run(await signedPrice(rig.ex, '50000'))
  await rig.run({ type: 'Tick' }, 5_000)
  // Past a 5-minute boundary: the /futures/data rows.
  await rig.run({ type: 'Tick' }, 300_000)
  return { rig, alice, bob }
}

t.test('every family: the same body, with its time fields in µs', async (t) => {
  const { rig, alice } = await setup(t)
  const now = rig.ex.time
  const perpOrder = ['[].time', '[].updateTime', '[].goodTillDate']
  const rows: [string, Method | 'SIGNED', string, Record<string, string>, string[]][] = [
    // general
    ['time', 'GET', '/fapi/v1/time', {}, ['serverTime']],
    ['spot time', 'GET', '/api/v3/time', {}, ['serverTime']],
    ['exchangeInfo', 'GET', '/fapi/v1/exchangeInfo', {}, ['serverTime', 'symbols[].deliveryDate', 'symbols[].onboardDate']],
    ['spot exchangeInfo', 'GET', '/api/v3/exchangeInfo', {}, ['serverTime']],
    // futures market data
    ['depth', 'GET', '/fapi/v1/depth', { symbol: 'BTCUSDTPERP' }, ['E', 'T']],
    ['trades', 'GET', '/fapi/v1/trades', { symbol: 'BTCUSDTPERP' }, ['[].time']],
    ['aggTrades', 'GET', '/fapi/v1/aggTrades', { symbol: 'BTCUSDTPERP' }, ['[].T']],
    ['klines', 'GET', '/fapi/v1/klines', { symbol: 'BTCUSDTPERP', interval: '1m' }, ['[][0]', '[][6]']],
    ['markPriceKlines', 'GET', '/fapi/v1/markPriceKlines', { symbol: 'BTCUSDTPERP', interval: '1h' }, ['[][0]', '[][6]']],
    ['indexPriceKlines', 'GET', '/fapi/v1/indexPriceKlines', { pair: 'BTCUSDT', interval: '1d' }, ['[][0]', '[][6]']],
    ['premiumIndexKlines', 'GET', '/fapi/v1/premiumIndexKlines', { symbol: 'BTCUSDTPERP', interval: '1m' }, ['[][0]', '[][6]']],
    ['continuousKlines', 'GET', '/fapi/v1/continuousKlines', { pair: 'BTCUSDT', contractType: 'PERPETUAL', interval: '1m' }, ['[][0]', '[][6]']],
    ['ticker/24hr', 'GET', '/fapi/v1/ticker/24hr', {}, ['[].openTime', '[].closeTime']],
    ['ticker/price', 'GET', '/fapi/v2/ticker/price', { symbol: 'BTCUSDTPERP' }, ['time']],
    ['bookTicker', 'GET', '/fapi/v1/ticker/bookTicker', {}, ['[].time']],
    ['openInterest', 'GET', '/fapi/v1/openInterest', { symbol: 'BTCUSDTPERP' }, ['time']],
    ['premiumIndex', 'GET', '/fapi/v1/premiumIndex', {}, ['[].nextFundingTime', '[].time']],
    ['openInterestHist', 'GET', '/futures/data/openInterestHist', { symbol: 'BTCUSDTPERP', period: '5m' }, ['[].timestamp']],
    ['globalLongShortAccountRatio', 'GET', '/futures/data/globalLongShortAccountRatio', { symbol: 'BTCUSDTPERP', period: '5m' }, ['[].timestamp']],
    ['basis', 'GET', '/futures/data/basis', { pair: 'BTCUSDT', contractType: 'PERPETUAL', period: '5m' }, ['[].timestamp']],
    ['fundingInfo', 'GET', '/fapi/v1/fundingInfo', {}, []],
    ['insuranceBalance', 'GET', '/fapi/v1/insuranceBalance', {}, ['[].assets[].updateTime']],
    // spot market data
    ['spot trades', 'GET', '/api/v3/trades', { symbol: 'BTCUSDT' }, ['[].time']],
    ['spot aggTrades', 'GET', '/api/v3/aggTrades', { symbol: 'BTCUSDT' }, ['[].T']],
    ['spot klines', 'GET', '/api/v3/klines', { symbol: 'BTCUSDT', interval: '1m' }, ['[][0]', '[][6]']],
    ['spot ticker', 'GET', '/api/v3/ticker/24hr', { symbol: 'BTCUSDT' }, ['openTime', 'closeTime']],
    // session
    ['session', 'SIGNED', '/fapi/v1/session', {}, ['expiresAt']],
    // account and positions
    ['balance', 'SIGNED', '/fapi/v2/balance', {}, ['[].updateTime']],
    ['account', 'SIGNED', '/fapi/v2/account', {}, ['assets[].updateTime', 'positions[].updateTime']],
    ['positionRisk', 'SIGNED', '/fapi/v2/positionRisk', { symbol: 'BTCUSDTPERP' }, ['[].updateTime']],
    ['userTrades', 'SIGNED', '/fapi/v1/userTrades', { symbol: 'BTCUSDTPERP' }, ['[].time']],
    ['income', 'SIGNED', '/fapi/v1/income', {}, ['[].time']],
    ['leverageBracket', 'SIGNED', '/fapi/v1/leverageBracket', { symbol: 'BTCUSDTPERP' }, []],
    // trade
    ['order', 'SIGNED', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', orderId: '1' }, ['time', 'updateTime', 'goodTillDate']],
    ['openOrders', 'SIGNED', '/fapi/v1/openOrders', { symbol: 'BTCUSDTPERP' }, perpOrder],
    ['allOrders', 'SIGNED', '/fapi/v1/allOrders', { symbol: 'BTCUSDTPERP' }, perpOrder],
    // spot trade
    ['spot order', 'SIGNED', '/api/v3/order', { symbol: 'BTCUSDT', orderId: '1' }, ['time', 'updateTime', 'workingTime']],
    ['spot account', 'SIGNED', '/api/v3/account', {}, ['updateTime']],
    // wallet
    ['deposits', 'SIGNED', '/sapi/v1/capital/deposit/hisrec', {}, ['[].insertTime', '[].completeTime', '[].timestamp']],
    ['withdrawals', 'SIGNED', '/sapi/v1/capital/withdraw/history', {}, ['[].applyTime', '[].timestamp']],
  ]
  for (const [name, method, path, params, paths] of rows) {
    const send = (headers: Record<string, string>) => method === 'SIGNED'
      ? signed(rig, alice, 'GET', path, params, headers)
      : rig.app.inject({ method, url: `${path}?${new URLSearchParams(params)}`, headers })
    const ms = await send({})
    const us = await send(MICRO)
    t.equal(ms.statusCode, 200, `${name} ms`)
    t.equal(us.statusCode, 200, `${name} µs`)
    const body = ms.json()
    t.ok(paths.length === 0 || JSON.stringify(body) !== '[]', `${name} has rows`)
    t.same(us.json(), scaled(body, paths), name)
    t.same((await send({ 'x-mbx-time-unit': 'millisecond' })).json(), body, `${name}: MILLISECOND is the default`)
  }
  // Spot-check absolute values.
  t.same((await rig.app.inject({ url: '/fapi/v1/time', headers: MICRO })).json(), { serverTime: now * 1000 })
  const depth = (await rig.app.inject({ url: '/fapi/v1/depth?symbol=BTCUSDTPERP', headers: { 'x-mbx-time-unit': 'microsecond' } })).json()
  t.same([depth.E, depth.T], [now * 1000, now * 1000], 'the header is not case sensitive')
})

t.test('writes answer in µs too', async (t) => {
  const { rig, alice, bob } = await setup(t)
  const order = { symbol: 'BTCUSDTPERP', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.010', price: '40000.0' }
  const ack = await signed(rig, alice, 'POST', '/fapi/v1/order', { ...order, side: 'BUY' }, MICRO)
  t.equal(ack.statusCode, 200)
  t.equal(ack.json().transactTime, rig.ex.time * 1000, 'ACK transactTime')
  const result = await signed(rig, bob, 'POST', '/fapi/v1/order', { ...order, side: 'BUY', newOrderRespType: 'RESULT' }, MICRO)
  t.match(result.json(), { updateTime: rig.ex.time * 1000, goodTillDate: 0, status: 'NEW' }, 'RESULT updateTime; 0 stays 0')
  const canceled = await signed(rig, bob, 'DELETE', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', orderId: String(result.json().orderId) }, MICRO)
  t.match(canceled.json(), { status: 'CANCELED', updateTime: rig.ex.time * 1000 })
  const spot = await signed(rig, alice, 'POST', '/api/v3/order', { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC',
    quantity: '0.0010', price: '40000.00', newOrderRespType: 'RESULT' }, MICRO)
  t.match(spot.json(), { transactTime: rig.ex.time * 1000, workingTime: rig.ex.time * 1000 })
})

// As Binance spot reads them (found by exploratory testing: under MICROSECOND a recvWindow was taken
// in µs, so no window above 60 ms could be asked for): the header sets only the answer's unit.
t.test('timestamp in ms or µs by its size, recvWindow in ms, whatever the header', async (t) => {
  const { rig, alice } = await setup(t)
  const call = (params: Record<string, string>, headers: Record<string, string> = {}) => {
    const q = new URLSearchParams(params).toString()
    return rig.app.inject({ url: `/fapi/v2/balance?${q}&signature=${hmac(alice.secretKey, q)}`, headers: { 'x-mbx-apikey': alice.apiKey, ...headers } })
  }
  const now = rig.ex.time
  for (const headers of [{}, MICRO]) {
    t.equal((await call({ timestamp: String(now) }, headers)).statusCode, 200, 'ms')
    t.equal((await call({ timestamp: String(now * 1000 + 999) }, headers)).statusCode, 200, 'µs')
    // 3 s old, in µs, with a 5 s window (ms) and a 2.5 s one.
    t.equal((await call({ timestamp: String((now - 3000) * 1000), recvWindow: '5000' }, headers)).statusCode, 200)
    t.same((await call({ timestamp: String((now - 3000) * 1000), recvWindow: '2500.125' }, headers)).json(),
      { code: -1021, msg: 'Timestamp for this request is outside of the recvWindow.' })
  }
  t.same((await call({ timestamp: String(now), recvWindow: '5000.1234' })).json(),
    { code: -1130, msg: "Data sent for parameter 'recvWindow' is not valid." }, 'at most three decimals (µs), as Binance spot')
})

t.test('any other unit is -1194, before anything else, and changes nothing', async (t) => {
  const { rig, alice } = await setup(t)
  const root = stateRoot(rig.ex.state)
  const seq = rig.ex.state.seq
  const invalid = { code: -1194, msg: 'Invalid value for time unit; expected either MICROSECOND or MILLISECOND.' }
  for (const unit of ['NANOSECOND', 'SECOND', 'MICROSECONDS', '', 'us']) {
    const headers = { 'x-mbx-time-unit': unit }
    const pub = await rig.app.inject({ url: '/fapi/v1/time', headers })
    t.equal(pub.statusCode, 400, unit)
    t.same(pub.json(), invalid, unit)
    const order = await signed(rig, alice, 'POST', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', side: 'BUY', type: 'LIMIT',
      timeInForce: 'GTC', quantity: '0.010', price: '40000.0' }, headers)
    t.same(order.json(), invalid, `${unit}: an order`)
  }
  t.equal(rig.ex.state.seq, seq, 'nothing was sequenced')
  t.equal(stateRoot(rig.ex.state), root)
})

// Binance spot: "Timestamp parameters (e.g. startTime, endTime, timestamp) can be passed in
// milliseconds or microseconds." Found by review: startTime and endTime were read as ms only, so
// a µs startTime was a date 1000 times later and matched nothing.
t.test('spot startTime and endTime in ms or µs by their size; futures\' in ms', async (t) => {
  const { rig, alice } = await setup(t)
  const get = async (path: string, params: Record<string, string | number>, sign = false) => {
    const p = Object.fromEntries(Object.entries(params).map(([k, v]) => [k, String(v)]))
    const r = sign ? await signed(rig, alice, 'GET', path, p) : await rig.app.inject({ url: `${path}?${new URLSearchParams(p)}` })
    return r.json()
  }
  const [trade] = await get('/api/v3/myTrades', { symbol: 'BTCUSDT' }, true)
  const us = trade.time * 1000
  const invalid = { code: -1130, msg: "Data sent for parameter 'startTime' is not valid." }
  for (const [path, sign, field] of [['/api/v3/myTrades', true, 'time'], ['/api/v3/allOrders', true, 'time'], ['/api/v3/aggTrades', false, 'T']] as const) {
    const rows = (p: Record<string, number> = {}) => get(path, { symbol: 'BTCUSDT', ...p }, sign)
    const all = await rows()
    t.equal(all.length, 1, `${path}: one row`)
    const ms = all[0][field] as number
    const us = ms * 1000
    t.same(await rows({ startTime: ms }), all, `${path}: from its ms`)
    t.same(await rows({ startTime: us }), all, `${path}: from its µs`)
    t.same(await rows({ startTime: us + 1 }), [], `${path}: from a µs later (rounded up to the next ms): none`)
    t.same(await rows({ startTime: us, endTime: us + 999 }), all, `${path}: to the ms's last µs (rounded down)`)
    t.same(await rows({ startTime: ms, endTime: us + 999 }), all, `${path}: units mixed`)
    t.same(await rows({ endTime: us - 1 }), [], `${path}: to a µs before it: none`)
    t.same(await rows({ startTime: us + 1, endTime: us + 999 }), [], `${path}: a range inside one ms: none, not a refusal`)
  }
  // The day-long window of myTrades, and startTime after endTime, measured in µs.
  const day = 86_400_000_000
  t.same(await get('/api/v3/myTrades', { symbol: 'BTCUSDT', startTime: us, endTime: us + day }, true), [trade], 'a day in µs')
  t.same(await get('/api/v3/myTrades', { symbol: 'BTCUSDT', startTime: us, endTime: us + day + 1 }, true),
    { code: -1127, msg: 'More than 24 hours between startTime and endTime.' }, 'a day and a µs')
  t.same(await get('/api/v3/myTrades', { symbol: 'BTCUSDT', startTime: us + 1, endTime: us }, true), invalid, 'after endTime by a µs')
  for (const path of ['/api/v3/allOrderList', '/api/v3/myAllocations']) {
    const p: Record<string, string> = path === '/api/v3/myAllocations' ? { symbol: 'BTCUSDT' } : {}
    t.same(await get(path, { ...p, startTime: us, endTime: trade.time }, true), [], `${path}: startTime in µs, endTime in ms`)
    t.same(await get(path, { ...p, startTime: us + 1000, endTime: trade.time }, true), invalid, `${path}: startTime after endTime`)
  }
  const klines = await get('/api/v3/klines', { symbol: 'BTCUSDT', interval: '1m' })
  const open = klines[0][0] as number
  t.same(await get('/api/v3/klines', { symbol: 'BTCUSDT', interval: '1m', startTime: open * 1000 }), klines, 'klines from the open µs')
  t.notOk((await get('/api/v3/klines', { symbol: 'BTCUSDT', interval: '1m', startTime: open * 1000 + 1 })).some((k: number[]) => k[0] === open),
    'klines from a µs after the open: not that kline')
  // USDⓈ-M documents ms only: a µs value is a time far ahead.
  const [perpTrade] = await get('/fapi/v1/userTrades', { symbol: 'BTCUSDTPERP' }, true)
  t.same(await get('/fapi/v1/userTrades', { symbol: 'BTCUSDTPERP', startTime: perpTrade.time * 1000 }, true), [], 'futures userTrades: ms')
  t.same(await get('/fapi/v1/aggTrades', { symbol: 'BTCUSDTPERP', startTime: perpTrade.time * 1000 }), [], 'futures aggTrades: ms')
  t.same(await get('/fapi/v1/klines', { symbol: 'BTCUSDTPERP', interval: '1m', startTime: perpTrade.time * 1000 }), [], 'futures klines: ms')
})
