// A request our own code fails on answers Binance's -1000 (500) and reaches the operator: the
// gateway reports it with the route through `onServerError` (a node logs it). The fault is
// injected (a state read that throws): none is known to be producible by a request.

import t from 'tap'
import { buildGateway } from '../../gateway/app.js'
import { gatewayRig } from '../helpers/gateway.js'

t.test('an exception in a handler is -1000 to the client and reported with its route', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  let broken = false
  const heard: [string, string][] = []
  const app = await buildGateway({ ...rig.ctx, state: () => { if (broken) throw new Error('state unreadable'); return rig.ex.state } },
    { onServerError: (err, what) => heard.push([(err as Error).message, what]) })
  t.teardown(() => app.close())
  t.equal((await app.inject({ method: 'GET', url: '/fapi/v1/exchangeInfo' })).statusCode, 200)
  broken = true
  const r = await app.inject({ method: 'GET', url: '/fapi/v1/depth?symbol=BTCUSDTPERP' })
  t.equal(r.statusCode, 500)
  t.same(r.json(), { code: -1000, msg: 'An unknown error occured while processing the request.' })
  t.same(heard, [['state unreadable', 'GET /fapi/v1/depth']])
  // A refusal is the client's, not the operator's: nothing reported.
  broken = false
  t.equal((await app.inject({ method: 'GET', url: '/fapi/v1/depth?symbol=NOPE' })).statusCode, 400)
  t.equal(heard.length, 1)
})
