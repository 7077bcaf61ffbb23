// The market-making bot as a newcomer's counterparty. Against a rate limit it shares: on
// loopback its requests count against the same IP's request weight as a local user's. Once a
// request of the bot's is refused (429, or 418), it sends nothing more until the answer's
// Retry-After has passed, says so once, and then quotes on: a bot that kept its pace would,
// request by refused request, push the user who spent the weight into a 418 ban, and log a
// warning every round. And its requotes: a book it quotes keeps bids and asks between any two
// of its requests, so a user's market order never finds it empty (unless the maker cannot hold
// a side's new quotes beside its old ones: then they are replaced the old way, and still move).

import t, { type Test } from 'tap'
import { buildGateway } from '../../gateway/app.js'
import { DEFAULT_RATE_LIMITS } from '../../gateway/rate-limits.js'
import { startMarketMaker } from '../../bin/market-maker.js'
import { fundedTrader, gatewayRig, signedInject } from '../helpers/gateway.js'
import { COIN, USDT } from '../helpers/exchange.js'
import { ORACLE, signedPrice } from '../helpers/oracle.js'

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

t.test('a bot refused by the rate limit waits out Retry-After, adding no refusals of its own', async (t) => {
  const rig = await gatewayRig()
  // Sessions and signed requests are checked against the gateway's clock: the wall clock until
  // the test stops it near a minute's end (the bot's signed requests then fail for their
  // timestamp, at debug, as the bot notes refusals; none is needed after its first round).
  rig.ex.time = Date.now()
  let stopped: number | undefined
  const app = await buildGateway({ ...rig.ctx, now: () => stopped ?? Date.now(), rateLimits: { ...DEFAULT_RATE_LIMITS, weight1m: 1_000 } })
  t.teardown(async () => { await app.close(); await rig.close() })
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  const maker = await fundedTrader(rig)
  const taker = await fundedTrader(rig)

  const warnings: { obj: { seconds?: number }; msg: string }[] = []
  const logger = { info: () => {}, error: () => {}, warn: (obj: object, msg = '') => { warnings.push({ obj, msg }) } }
  // Positions are read in the first round only.
  const bot = await startMarketMaker({ baseUrl: base, maker: maker.keys, taker: taker.keys, intervalMs: 100, refreshRounds: 1_000, logger })
  t.teardown(() => bot.stop())
  while (bot.rounds < 2) await sleep(20)

  // Five seconds left in the gateway's minute: a refusal's Retry-After is 5.
  const minuteEnd = Math.ceil((Date.now() + 1) / 60_000) * 60_000
  stopped = minuteEnd - 5_000
  const depth = () => fetch(`${base}/fapi/v1/depth?symbol=BTCUSDTPERP&limit=1000`)
  let first = await depth()
  for (let i = 0; first.status === 200 && i < 100; i++) first = await depth()
  t.equal(first.status, 429, 'the user spends the IP\'s weight')
  t.equal(first.headers.get('retry-after'), '5')

  while (warnings.length === 0) await sleep(20)
  t.match(warnings[0]!, { obj: { seconds: 5 }, msg: /rate limit reached .* pausing/ }, 'the bot says once that it pauses, and for how long')
  // Ten rounds' time: a bot at its pace would have been refused ten times more.
  await sleep(1_000)
  // The IP's refusals so far: the user's one and the bot's one. Ten are allowed in a minute.
  const statuses: number[] = []
  for (let i = 0; i < 9; i++) statuses.push((await depth()).status)
  t.same(statuses, [429, 429, 429, 429, 429, 429, 429, 429, 418], 'the user meets 418 only after their own tenth refusal but one')
  t.equal(warnings.length, 1, 'one warning for the pause')

  // A new minute: the bot, once its pause is over, requests again.
  stopped = minuteEnd + 55_000
  const rounds = bot.rounds
  const resumed = Date.now()
  while (bot.rounds === rounds && Date.now() - resumed < 30_000) await sleep(50)
  t.ok(bot.rounds > rounds, 'the bot runs rounds again after Retry-After')
  const used = Number((await fetch(`${base}/fapi/v1/ping`)).headers.get('x-mbx-used-weight-1m'))
  t.ok(used > 1, `the new minute's weight holds the bot's requests (${used})`)
  t.equal(warnings.length, 1, 'and no more warnings')
})

/**
 * A gateway over a rig whose books are checked after every command the bot sends: each book it
 * has quoted on both sides must still have both, so a market order arriving between two of the
 * bot's requests finds the quotes a newcomer saw. The maker holds `btc` on spot (20 BTC unless told).
 */
async function checkedBotRig(t: Test, btc = 20 * COIN) {
  const rig = await gatewayRig()
  rig.ex.time = Date.now()
  for (const pair of ['BTCUSDT', 'ETHUSDT']) await rig.run({ type: 'SetOracle', pair, oracle: ORACLE.address })
  for (const [pair, price] of [['BTCUSDT', '30000'], ['ETHUSDT', '2000']] as const) await rig.run(await signedPrice(rig.ex, price, 1, pair))
  const symbols = [...rig.ex.state.marketsBySymbol.keys()]
  const quoted = new Set<string>()
  const gaps: string[] = []
  const check = (type: string) => {
    for (const s of symbols) {
      const book = rig.ex.state.marketsBySymbol.get(s)!.book
      const twoSided = book.bids.best() !== undefined && book.asks.best() !== undefined
      if (twoSided) quoted.add(s)
      else if (quoted.has(s)) gaps.push(`${s} after ${type}`)
    }
  }
  const submit = rig.ctx.submit
  const app = await buildGateway({ ...rig.ctx, now: () => Date.now(), submit: async (c) => {
    const ack = await submit(c)
    check(c.type)
    return ack
  } })
  t.teardown(async () => { await app.close(); await rig.close() })
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  const maker = await fundedTrader(rig, 1_000_000)
  for (const [asset, amount] of [['USDT', 1_000_000 * USDT], ['BTC', btc], ['ETH', 300 * COIN]] as const) {
    await rig.run({ type: 'Deposit', account: maker.address, sub: 0, asset, amount, wallet: 'SPOT', ref: `${maker.address}-${asset}` })
  }
  const taker = await fundedTrader(rig)
  /** Runs the bot for `rounds` rounds, requoting each (the taker out), the index swinging 30 to 90 bps a round. */
  const runBot = async (rounds: number) => {
    const logger = { info: () => {}, error: () => {}, warn: (obj: object, msg = '') => { t.fail(`warned: ${msg} ${JSON.stringify(obj)}`) } }
    const bot = await startMarketMaker({ baseUrl: base, maker: maker.keys, taker: taker.keys, intervalMs: 20, refreshRounds: 1, takeEveryRounds: 0, logger })
    t.teardown(() => bot.stop())
    const published = [30000]
    while (bot.rounds < rounds) {
      // New quotes reach prices where old ones of the other side rested (the quotes are 10 bps
      // from the index), so the order of the sides tells.
      if (bot.rounds >= published.length) {
        const up = published.length % 4 < 2 ? 1 : -1
        published.push(30000 + up * 90 * published.length)
        await rig.run(await signedPrice(rig.ex, String(published.at(-1)), 1, 'BTCUSDT'))
      }
      await sleep(10)
    }
    await bot.stop()
    return published
  }
  const openOrders = () => [...rig.ex.state.marketsBySymbol].map(([s, m]) => [s, m.book.orders.size])
  return { rig, symbols, quoted, gaps, maker, runBot, openOrders }
}

t.test('a requote never leaves a book it quotes without bids or asks, nor leaves its old quotes behind', async (t) => {
  const { rig, symbols, quoted, gaps, maker, runBot, openOrders } = await checkedBotRig(t)
  // Left from an earlier run of the bot (a restart): far from the index, it must go.
  const stale = signedInject(rig, maker.keys, 'POST', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', price: '29500', quantity: '0.01' })
  t.equal((await stale).statusCode, 200)
  await runBot(8)
  t.same([...quoted].sort(), symbols.slice().sort(), 'every book was quoted on both sides')
  t.same(gaps, [], 'and none lost its bids or asks again')
  t.same(openOrders(), symbols.map((s) => [s, 6]), 'three levels a side in each book: no old quote left behind')
  t.notOk(rig.ex.state.marketsBySymbol.get('BTCUSDTPERP')!.book.bids.levels.some((l) => l.priceTicks === 295_000), 'the stale bid is gone')
})

t.test('a side whose new quotes are all refused is requoted the old way: its quotes follow the index', async (t) => {
  // BTC for one set of asks only (1 + 2 + 3 clips of 0.0003 BTC, the smallest worth 1.5 × the
  // 5 USDT minimum at these prices): while they rest, the balance they hold refuses new ones, so
  // the old asks are cancelled first and the new ones placed after (a moment without asks).
  const { rig, gaps, runBot, openOrders, symbols } = await checkedBotRig(t, 0.0018 * COIN)
  const published = await runBot(6)
  t.ok(gaps.length > 0 && gaps.every((g) => g.startsWith('BTCUSDT ')), 'only BTCUSDT is without a side, for moments')
  // The best ask 10 bps above an index of the last rounds, not the first asks' (30,030).
  const asks = rig.ex.state.marketsBySymbol.get('BTCUSDT')!.book.asks
  const best = asks.best()!.priceTicks / 100
  t.ok(published.slice(-3).some((p) => Math.abs(best - p * 1.001) < 0.02), `the best ask ${best} follows the index (${published})`)
  t.equal(asks.levels.length, 3, 'BTCUSDT has its three asks')
  t.same(openOrders(), symbols.map((s) => [s, 6]), 'and every book three levels a side')
})
