// The processing deadline and a busy sequencer: a command that is not sequenced in time is
// answered -1007 (status unknown), as is one a sequencer wrote but stopped before its standby
// held; an overloaded sequencer -1008; none is a client error.

import t from 'tap'
import { Wallet } from 'ethers'
import { buildGateway } from '../../gateway/app.js'
import { OutcomeUnknownError, OverloadedError } from '../../replica/sequencer.js'
import { gatewayRig, openSession, signedInject, type Keys } from '../helpers/gateway.js'

t.test('a stalled or overloaded sequencer', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const wallet = Wallet.createRandom()
  const keys = (await openSession(rig, wallet)).json() as Keys
  const order = { symbol: 'BTCUSDTPERP', side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.010', price: '40000.0' }

  const stalled = await buildGateway({ ...rig.ctx, submit: () => new Promise(() => {}) }, { processingTimeoutMs: 50 })
  t.teardown(() => stalled.close())
  const r1 = await signedInject({ ...rig, app: stalled }, keys, 'POST', '/fapi/v1/order', order)
  t.equal(r1.statusCode, 408)
  t.same(r1.json(), { code: -1007, msg: 'Timeout waiting for response from backend server. Send status unknown; execution status unknown.' })

  const busy = await buildGateway({ ...rig.ctx, submit: () => Promise.reject(new OverloadedError()) })
  t.teardown(() => busy.close())
  const r2 = await signedInject({ ...rig, app: busy }, keys, 'POST', '/fapi/v1/order', order)
  t.equal(r2.statusCode, 503)
  t.equal(r2.json().code, -1008)

  const lost = await buildGateway({ ...rig.ctx, submit: () => Promise.reject(new OutcomeUnknownError('shut down')) })
  t.teardown(() => lost.close())
  const r3 = await signedInject({ ...rig, app: lost }, keys, 'POST', '/fapi/v1/order', order)
  t.equal(r3.statusCode, 408)
  t.equal(r3.json().code, -1007, 'written by a sequencer that stopped before its standby held it: status unknown')
})

