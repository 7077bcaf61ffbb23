// The audit re-verifies every oracle price's signature as the ingress did before sequencing:
// one by the registered key passes, one by another key or over altered fields is a finding.

import t from 'tap'
import { verifyOracleSignature } from '../../chain/audit.js'
import type { LogEntry } from '../../replica/entry.js'
import { signOraclePrice } from '../../replica/oracle-signature.js'
import { ORACLE, STRANGER } from '../helpers/oracle.js'

const entry = (command: unknown): LogEntry => ({ seq: 7, time: 1_700_000_000_000, command } as unknown as LogEntry)

t.test('oracle signatures in the log', async (t) => {
  const price = await signOraclePrice(ORACLE, { pair: 'BTCUSDT', priceE8: 6_000_000_000_000, time: 1_700_000_000_000 })
  t.equal(verifyOracleSignature(entry(price)), undefined, 'signed by its oracle')
  t.equal(verifyOracleSignature(entry({ type: 'Deposit' })), undefined, 'other commands are not oracle prices')

  const altered = { ...price, priceE8: price.priceE8 + 1 }
  t.equal(verifyOracleSignature(entry(altered)), `oracle price for BTCUSDT is not signed by ${ORACLE.address}`)
  const byStranger = await signOraclePrice(STRANGER, { pair: 'BTCUSDT', priceE8: 6_000_000_000_000, time: 1_700_000_000_000 })
  t.equal(verifyOracleSignature(entry({ ...byStranger, oracle: ORACLE.address })),
    `oracle price for BTCUSDT is not signed by ${ORACLE.address}`, 'another key claiming to be the oracle')
})
