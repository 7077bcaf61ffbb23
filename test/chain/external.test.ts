// `exchange sequencer` against a chain it did not start, configured by flags: the RPC URL,
// the Vault and its block, the token list, the operator key from a file, the depth. A deposit
// there is credited after the depth, and checkpoints are anchored with that operator's key.

import t from 'tap'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { freePort } from '../../replica/free-port.js'
import { startExchange } from '../helpers/processes.js'
import { chainRig } from './rig.js'

t.test('a sequencer on an external chain credits deposits and anchors', { timeout: 60_000 }, async (t) => {
  const chain = await chainRig()
  const dir = await mkdtemp(path.join(os.tmpdir(), 'chain-external-'))
  const keyFile = path.join(dir, 'operator.key')
  await writeFile(keyFile, chain.operatorKey + '\n', { mode: 0o600 })
  const { vault, vaultBlock, tokens } = chain.deployment
  // Minted before the exchange starts sending with the same operator key (nonces are per sender).
  const alice = chain.wallet(1)
  await chain.mint('BTC', alice.address, 50_000_000n)
  const proc = startExchange(['sequencer', '--data', path.join(dir, 'data'), '--port', String(await freePort()),
    '--replication-port', String(await freePort()), '--metrics-port', String(await freePort()), '--checkpoint-interval', '10',
    '--rpc', chain.anvil.url, '--vault', vault, '--vault-block', String(vaultBlock), '--operator-key-file', keyFile,
    '--tokens', tokens.map((x) => `${x.asset}=${x.address}`).join(','), '--confirmations', '2',
    '--anchor-interval-ms', '200', '--chain-poll-ms', '50', '--tick-ms', '20'])
  t.teardown(async () => { await proc.kill(); await chain.close(); await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }) })
  t.match(await proc.waitFor((l) => l.msg === 'chain services running', 30_000),
    { rpc: chain.anvil.url, vault, operator: chain.operator.address, confirmations: 2, embedded: false })

  const { hash } = await chain.deposit(alice, 'BTC', 12_345_678n, 1)
  await chain.mine(1)
  t.match(await proc.waitFor((l) => l.msg === 'deposit credited', 30_000),
    { ref: `${hash}:1`, account: alice.address, sub: 1, asset: 'BTC', amount: 12_345_678 })

  // Ticks every 20 ms pass checkpoints; the anchorer posts them with the operator's key.
  const anchored = await proc.waitFor((l) => l.msg === 'state root anchored', 30_000)
  t.equal(await chain.vault.latestSeq() >= BigInt(anchored.seq as number), true)
  const [root] = await chain.vault.anchorAt(anchored.seq as number)
  t.equal(root, anchored.root)
})
