// Found by the cluster simulator (seeds 24, 30 and 35 of the first run with liquidations): a
// sub-account that opened a position while it was already due for a check (hot: here with a
// position stuck in liquidation in a halted market, so no clean check re-armed it) was never
// noted as a holder of that market, so ADL, which ranks the holders, did not see it.
// The sequencer re-liquidated a position nobody could take 1 000 times in one command, while a
// replica restored from a snapshot (whose holder index is rebuilt from positions) deleveraged it
// against that sub-account: different state roots. The warm replica and a restored copy must
// now agree, and the ADL must reach the hot short.

import t from 'tap'
import type { Event } from '../../core/events.js'
import { apply } from '../../core/apply.js'
import type { Command } from '../../core/commands.js'
import { IN_LIQUIDATION } from '../../core/liquidation/check.js'
import { stateRoot } from '../../core/root.js'
import { decodeSnapshot, encodeSnapshot } from '../../core/snapshot.js'
import { limit } from '../helpers/commands.js'
import { ALICE, BOB, BTCPERP, CAROL, DAVE, ETHPERP, NO_BAND_GENESIS, TestExchange } from '../helpers/exchange.js'

const FRANK = '0x' + 'f'.repeat(40)

const eth = (account: string, side: 'BUY' | 'SELL', priceTicks: number, qtyLots: number): Command =>
  ({ ...limit(account, side, priceTicks, qtyLots), marketId: ETHPERP })

const ORACLE = '0x' + '9'.repeat(40)

t.test('a short opened while stuck in liquidation is an ADL counterparty, on a warm replica and a restored one alike', async (t) => {
  // ETH falls 10 % in one trade (2,000.00 to 1,800.00): without the price band.
  const ex = new TestExchange(NO_BAND_GENESIS)
  ex.fund(BOB, 100_000)
  ex.fund(CAROL, 10_000)
  ex.fund(DAVE, 10_000)
  ex.fund(FRANK, 2_000)
  ex.fund(ALICE, 20)
  // FRANK: long 0.5 BTC isolated. The BTC index falls to 27,000 while BTC is halted: the
  // position is below maintenance and waits, flagged in liquidation (FRANK stays hot).
  ex.ok({ type: 'SetOracle', pair: 'BTCUSDT', oracle: ORACLE })
  ex.ok({ type: 'ChangeMarginType', account: FRANK, sub: 0, marketId: BTCPERP, marginType: 'ISOLATED' })
  ex.ok(limit(FRANK, 'BUY', 300_000, 500))
  ex.ok(limit(BOB, 'SELL', 300_000, 500))
  const oracle = (priceE8: number): Command => ({ type: 'OraclePrice', pair: 'BTCUSDT', priceE8, time: ex.time, oracle: ORACLE,
    signature: '0x' + '1'.repeat(130) })
  ex.ok(oracle(30_000 * 1e8))
  ex.ok({ type: 'SetMarketStatus', marketId: BTCPERP, status: 'HALT' })
  ex.ok(oracle(27_000 * 1e8))
  t.equal(ex.sub(FRANK).riskFlags.get(`${BTCPERP}:BOTH`)! & IN_LIQUIDATION, IN_LIQUIDATION, 'FRANK\'s BTC position waits in liquidation')
  // FRANK (cross in ETH) sells 0.1 ETH at 2,000.00 to ALICE (wallet 20): FRANK opens an ETH short while hot.
  ex.ok(eth(FRANK, 'SELL', 200_000, 100))
  ex.ok(eth(ALICE, 'BUY', 200_000, 100))
  t.equal(ex.position(FRANK, ETHPERP).qtyLots, -100)

  // ETH trades at 1,800.00 with no bid left: ALICE is liquidated, the fund is empty, and her
  // 100 lots are deleveraged against the ETH shorts: CAROL's 60 and FRANK's.
  const restored = decodeSnapshot(encodeSnapshot(ex.state))
  const commands: Command[] = [eth(CAROL, 'SELL', 180_000, 60), eth(DAVE, 'BUY', 180_000, 60)]
  const warm: Event[] = []
  const cold: Event[] = []
  for (const command of commands) {
    warm.push(...ex.ok(command).events)
    const r = apply(restored, { seq: restored.seq + 1, time: ex.time, command })
    if (r.ok) cold.push(...r.events)
  }
  const name = (a: string): string => a === FRANK ? 'FRANK' : a === ALICE ? 'ALICE' : a === CAROL ? 'CAROL' : a
  const forced = (events: Event[]): string[] =>
    events.flatMap((e) => e.type === 'forceOrder' ? [`${e.autoCloseType} ${name(e.account)} ${e.executedQtyLots}`] : [])
  t.same(forced(warm), forced(cold), 'the same liquidation and ADL orders')
  t.ok(forced(warm).some((f) => f.startsWith('ADL FRANK')), `FRANK is deleveraged: ${forced(warm).slice(0, 4).join(', ')}`)
  t.ok(forced(warm).filter((f) => f.startsWith('LIQUIDATION')).length === 1, 'ALICE is liquidated once')
  t.equal(ex.position(ALICE, ETHPERP).qtyLots, 0, 'ALICE is closed')
  t.equal(stateRoot(ex.state), stateRoot(restored), 'same state root')
})
