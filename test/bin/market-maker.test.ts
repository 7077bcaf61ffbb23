// The market-making bot against a rate limit it shares: on loopback its requests count against
// the same IP's request weight as a local user's. Once a request of the bot's is refused (429,
// or 418), it sends nothing more until the answer's Retry-After has passed, says so once, and
// then quotes on: a bot that kept its pace would, request by refused request, push the user
// who spent the weight into a 418 ban, and log a warning every round.

import t from 'tap'
import { buildGateway } from '../../gateway/app.js'
import { DEFAULT_RATE_LIMITS } from '../../gateway/rate-limits.js'
import { startMarketMaker } from '../../bin/market-maker.js'
import { fundedTrader, gatewayRig } from '../helpers/gateway.js'

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
