// `exchange sequencer` against a chain it did not start, configured by flags: the RPC URL,
// the Vault and its block, the token list, the operator key from a file, the depth. A deposit
// there is credited after the depth, and checkpoints are anchored with that operator's key. The
// log declares that chain; restarted for another Vault, the sequencer refuses to run on it.

import t from 'tap'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { execFile } from 'node:child_process'
import { freePort } from '../../replica/free-port.js'
import { LevelLogStore } from '../../replica/level-log.js'
import { EXCHANGE_BIN, NODE, NODE_ARGS } from '../helpers/paths.js'
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
  const args = async (vaultAddress: string): Promise<string[]> => ['sequencer', '--data', path.join(dir, 'data'), '--port', String(await freePort()),
    '--replication-port', String(await freePort()), '--metrics-port', String(await freePort()), '--checkpoint-interval', '10',
    '--rpc', chain.anvil.url, '--vault', vaultAddress, '--vault-block', String(vaultBlock), '--operator-key-file', keyFile,
    '--tokens', tokens.map((x) => `${x.asset}=${x.address}`).join(','), '--confirmations', '2',
    '--anchor-interval-ms', '200', '--chain-poll-ms', '50', '--tick-ms', '20']
  const proc = startExchange(await args(vault))
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

  // The log declared that chain, before the services credited anything.
  await proc.kill('SIGTERM')
  const log = new LevelLogStore(path.join(dir, 'data', 'log'))
  await log.open()
  const declared = (await log.read(1, log.lastSeq)).find((e) => e.command.type === 'DeclareChain')
  await log.close()
  t.match(declared?.command, { type: 'DeclareChain', chainId: 31337, vault,
    tokens: tokens.map(({ asset, address, decimals }) => ({ asset, address, decimals })) })
  // Restarted for another Vault: it stops, naming both, before crediting anything from it.
  const other = '0x' + '42'.repeat(20)
  const restarted = await new Promise<{ code: number; stderr: string }>(async (resolve) => {
    execFile(NODE, [...NODE_ARGS, EXCHANGE_BIN, ...await args(other)],
      (err, _stdout, stderr) => resolve({ code: err ? Number(err.code) : 0, stderr }))
  })
  t.equal(restarted.code, 1)
  t.match(restarted.stderr, `exchange: this log declared its money on the Vault ${vault} on chain 31337`)
  t.match(restarted.stderr, `the node is configured for the Vault ${other} on chain 31337`)
})
