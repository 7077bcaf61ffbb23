// The chain services across an automatic fail-over, with a real etcd, a real anvil and real
// processes on loopback: a sequencer on that chain (`sequencer --rpc … --etcd`) and two standbys
// configured for the same chain. The sequencer is SIGKILLed while its payment of a withdrawal is
// sent and not yet mined. The standby elected in its place starts the chain services itself:
// the payment in flight is completed with the old leader's transaction, never paid twice and
// never refunded; deposits made after the fail-over are credited once, a new withdrawal is paid,
// and the new leader's checkpoints are anchored. The audit of its log against the chain passes.

import t from 'tap'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { zeroPadValue, toBeHex } from 'ethers'
import { runAudit } from '../../bin/audit.js'
import type { Command } from '../../core/commands.js'
import { freePort } from '../../replica/free-port.js'
import { IngressClient } from '../../replica/ingress.js'
import { chainRig } from '../chain/rig.js'
import { TEST_LEASE_MS, etcdSkip, startEtcd } from '../helpers/etcd.js'
import { readLogDir } from '../helpers/log-fixtures.js'
import { explained, internalLink, startExchange, type Proc } from '../helpers/processes.js'

const SECRET = '3c'.repeat(32)
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))
const USDT = 1_000_000n // token units (and ledger units) per USDT

t.test('a promoted standby carries on the chain services; a payment in flight at the kill is paid once', { timeout: 240_000, skip: etcdSkip() }, (t) => explained(t, async (t, procs) => {
  const [etcd, chain] = [await startEtcd(), await chainRig()]
  const dir = await mkdtemp(path.join(os.tmpdir(), 'chain-fo-'))
  t.teardown(async () => { await chain.close(); await etcd.stop(); await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }) })
  const { vault, vaultBlock, tokens } = chain.deployment
  const keyFile = path.join(dir, 'operator.key')
  await writeFile(keyFile, chain.operatorKey + '\n', { mode: 0o600 })
  // Minted before the exchange sends with the same operator key (nonces are per sender).
  const alice = chain.wallet(1)
  await chain.mint('USDT', alice.address, 2_000n * USDT)
  const usdt = chain.token('USDT')

  const names = ['A', 'S1', 'S2'] as const
  type Name = typeof names[number]
  const ports = Object.fromEntries(await Promise.all(names.map(async (n) => [n, { repl: await freePort(), metrics: await freePort() }]))) as
    Record<Name, { repl: number; metrics: number }>
  const start = (command: string[], n: Name): Proc => {
    const p = startExchange([...command, '--data', path.join(dir, n), '--node-id', n, '--replication-port', String(ports[n].repl), '--port', '0',
      '--metrics-port', String(ports[n].metrics), '--etcd', etcd.url, '--lease-ms', String(TEST_LEASE_MS), '--master-secret', SECRET, '--sync-replicas', '1',
      '--tick-ms', '50', '--checkpoint-interval', '50', '--host', '127.0.0.1',
      '--rpc', chain.anvil.url, '--vault', vault, '--vault-block', String(vaultBlock), '--operator-key-file', keyFile,
      '--tokens', tokens.map((x) => `${x.asset}=${x.address}`).join(','), '--confirmations', '1',
      '--anchor-interval-ms', '200', '--chain-poll-ms', '50'])
    procs.push(p)
    return p
  }
  const A = start(['sequencer'], 'A')
  const standbys = { S1: start(['replica', '--standby'], 'S1'), S2: start(['replica', '--standby'], 'S2') }
  await A.waitFor((l) => l.msg === 'chain services running', 60_000)
  await Promise.all(Object.values(standbys).map((p) => p.waitFor((l) => l.msg === 'follower running', 60_000)))

  const first = await chain.deposit(alice, 'USDT', 1_000n * USDT)
  t.match(await A.waitFor((l) => l.msg === 'deposit credited' && l.ref === first.ref, 30_000), { account: alice.address, amount: Number(1_000n * USDT) },
    'a deposit is credited by the first leader')
  await A.waitFor((l) => l.msg === 'state root anchored', 30_000)

  // The chain stops mining on its own: what the operator sends stays pending until the test mines it.
  await chain.provider.send('evm_setAutomine', [false])
  const withdraw = (amount: bigint): Command => ({ type: 'WithdrawalRequest', account: alice.address, sub: 0, asset: 'USDT',
    amount: Number(amount), address: alice.address })
  const toA = await IngressClient.connect(internalLink(SECRET), `ws://127.0.0.1:${ports.A.repl}`)
  const request = await toA.submit(withdraw(100n * USDT))
  toA.close()
  t.ok(request.result.ok, 'a withdrawal is requested (and acknowledged: a standby holds it)')
  // The operator has one transaction in flight at a time (each waits for the one before to be
  // mined), so mining the anchors one block at a time lets the payment out without mining it.
  const deadline = Date.now() + 30_000
  let inFlight: { hash: string; id: bigint } | undefined
  while (inFlight === undefined && Date.now() < deadline) {
    const pending = await pendingFrom(chain.operator.address)
    const payment = pending.map((tx) => ({ tx, call: chain.vault.interface.parseTransaction({ data: tx.input }) })).find((p) => p.call?.name === 'withdraw')
    if (payment) inFlight = { hash: payment.tx.hash, id: payment.call!.args[0] as bigint }
    else if (pending.length > 0) await chain.mine(1)
    else await sleep(50)
  }
  if (inFlight === undefined) throw new Error('the first leader sent no payment within 30 s')
  t.equal(await chain.vault.paid(inFlight.id), false, 'its payment is sent, not mined')
  await A.kill('SIGKILL')
  const killedAt = Date.now()

  const promoted = (l: Record<string, unknown>): boolean => l.msg === 'this standby now leads: sequencer running'
  const leaderName = await new Promise<'S1' | 'S2'>((resolve, reject) => {
    const look = (): void => {
      const found = (['S1', 'S2'] as const).find((s) => standbys[s].lines.some(promoted))
      if (found) resolve(found)
      else if (Date.now() - killedAt > 60_000) reject(new Error('no standby took the lead within 60 s'))
      else setTimeout(look, 50)
    }
    look()
  })
  const leader = standbys[leaderName]
  t.match(await leader.waitFor((l) => l.msg === 'chain services running', 30_000), { vault, operator: chain.operator.address },
    `${leaderName}, elected, runs the chain services on the same Vault`)
  // Its executor finds the withdrawal unpaid while the old payment is still pending: the chain
  // refuses a second payment of the id, which must not turn into a refund.
  await sleep(2_000)
  await chain.provider.send('evm_setAutomine', [true])
  await chain.mine(1)
  const settled = await leader.waitFor((l) => l.msg === 'withdrawal settled' && l.withdrawalId === Number(inFlight!.id), 30_000)
  t.match(settled, { status: 'COMPLETED', txId: inFlight.hash }, 'the new leader completes the withdrawal with the old leader\'s payment')
  const waited = leader.lines.find((l) => typeof l.msg === 'string' && l.msg.startsWith('withdrawal refused on chain while operator transactions are unmined'))
  t.comment(waited ? `its own payment was refused (${String(waited.reason)}) while the old one was unmined: left undecided until mined` : 'the old payment was mined before its executor tried its own')
  t.equal(await usdt.balanceOf(alice.address), 1_100n * USDT, 'paid once on chain')

  // A deposit after the fail-over is credited by the new leader, and the one before is not credited again.
  const second = await chain.deposit(alice, 'USDT', 500n * USDT)
  await leader.waitFor((l) => l.msg === 'deposit credited' && l.ref === second.ref, 30_000)
  // A withdrawal asked of the new leader is paid by it.
  const toLeader = await IngressClient.connect(internalLink(SECRET), `ws://127.0.0.1:${ports[leaderName].repl}`)
  const later = await toLeader.submit(withdraw(50n * USDT))
  toLeader.close()
  t.ok(later.result.ok, 'a withdrawal is requested of the new leader')
  const paidLater = await leader.waitFor((l) => l.msg === 'withdrawal settled' && l.withdrawalId !== Number(inFlight!.id), 30_000)
  t.equal(paidLater.status, 'COMPLETED', 'and paid')
  t.equal(await usdt.balanceOf(alice.address), 650n * USDT, 'alice holds what she withdrew: 100 + 50 of the 1,500 she deposited')
  // Its checkpoints are anchored: the Vault's newest anchor passes the new term's first entry.
  const anchored = await leader.waitFor((l) => l.msg === 'state root anchored' && (l.seq as number) > later.seq, 30_000)
  t.ok(await chain.vault.latestSeq() >= BigInt(anchored.seq as number), `the new leader anchors (seq ${String(anchored.seq)})`)

  await Promise.all(procs.map((p) => p.kill('SIGKILL')))
  const log = await readLogDir(path.join(dir, leaderName))
  const types = (type: string): Command[] => log.map((e) => e.command).filter((c) => c.type === type)
  t.same(types('WithdrawalFail'), [], 'no withdrawal was refunded')
  t.same(types('WithdrawalComplete').map((c) => (c as { txId: string }).txId)[0], inFlight.hash, 'the first completed with the old leader\'s payment')
  t.same(types('Deposit').map((c) => (c as { ref: string }).ref), [first.ref, second.ref], 'each deposit credited once')
  t.same(types('Lead').map((c) => (c as { node: string }).node), ['A', leaderName], 'two terms')
  const withdrawn = await chain.provider.getLogs({ address: vault, fromBlock: vaultBlock, toBlock: 'latest',
    topics: [chain.vault.interface.getEvent('Withdrawn')!.topicHash, zeroPadValue(toBeHex(inFlight.id), 32)] })
  t.equal(withdrawn.length, 1, 'the Vault paid the id once')

  // The audit of the new leader's log against the chain: every deposit, payment and anchor matches.
  const lines: string[] = []
  const audited = await runAudit({ dataDir: path.join(dir, leaderName), rpc: chain.anvil.url, chainId: 31337, out: (l) => lines.push(l) })
  t.equal(audited, true, 'the audit of the new leader\'s log against the chain passes')
  if (!audited) t.comment(lines.join('\n'))
  t.match(lines.join('\n'), /withdrawals +2 marked paid, each paid by the Vault/)
  t.match(lines.join('\n'), /anchors +(\d+) of \1 on/)

  /** The transactions from `address` the chain holds unmined. */
  async function pendingFrom(address: string): Promise<{ hash: string; input: string }[]> {
    const pool = await chain.provider.send('txpool_content', []) as { pending: Record<string, Record<string, { hash: string; input: string }>> }
    const mine = Object.entries(pool.pending).find(([from]) => from.toLowerCase() === address.toLowerCase())?.[1] ?? {}
    return Object.values(mine)
  }
}))
