// GET /sapi/v1/account/balanceProof over the gateway, with a balance prover on a real snapshot
// store: the caller's money leaves at the newest checkpoint held, or at `seq`, each leading to
// that checkpoint's root; and the answers when there is nothing to prove (no checkpoint, an
// account that held nothing there, a node that serves no proofs), a seq not held, bad input.

import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { Wallet } from 'ethers'
import { toHex, verifyProof } from '../../core/merkle.js'
import { leafHash, leafSalt, saltedLeafHash, stateRoot } from '../../core/root.js'
import { RULES_VERSION } from '../../core/rules.js'
import { encodeSnapshot } from '../../core/snapshot.js'
import { buildGateway } from '../../gateway/app.js'
import type { BalanceProof } from '../../replica/balance-proof.js'
import { BalanceProver } from '../../replica/balance-prover.js'
import { hex } from '../../replica/entry.js'
import { SnapshotStore } from '../../replica/snapshot-store.js'
import { fundedTrader, gatewayRig, openSession, signedInject, type Keys } from '../helpers/gateway.js'

const bytes = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h.slice(2), 'hex'))

/** A gateway serving proofs from a real snapshot store of the rig's checkpoints. */
async function proofRig(t: Test) {
  const rig = await gatewayRig()
  const dir = await mkdtemp(join(tmpdir(), 'proof-gw-'))
  const store = new SnapshotStore(dir)
  await store.open()
  const prover = new BalanceProver(store)
  const app = await buildGateway({ ...rig.ctx, balanceProofs: prover }, { checkResponses: true })
  t.teardown(async () => {
    await app.close()
    await prover.close()
    await store.close()
    await rig.close()
    await rm(dir, { recursive: true, force: true })
  })
  return {
    rig, app, prover,
    /** A checkpoint of the rig's state now, as a node saves it. */
    async checkpoint(): Promise<number> {
      const seq = rig.ex.state.seq
      await store.save({ seq, time: rig.ex.time, root: stateRoot(rig.ex.state), hash: hex(new Uint8Array(32).fill(seq % 256)) },
        encodeSnapshot(rig.ex.state))
      return seq
    },
    get(keys: Keys, params: Record<string, string> = {}) {
      const r = signedInject({ ...rig, app }, keys, 'GET', '/sapi/v1/account/balanceProof', params)
      return r.then((res) => ({ status: res.statusCode, body: res.json() }))
    },
  }
}

t.test('a trader proves their balances at a checkpoint the node holds', async (t) => {
  const { rig, app, prover, checkpoint, get } = await proofRig(t)

  const alice = await fundedTrader(rig, 2_500)
  t.same(await get(alice.keys), { status: 404, body: { code: -1099,
    msg: 'No checkpoint to prove balances at yet: one comes every checkpoint interval of log entries.' } })

  const first = await checkpoint()
  const r = await get(alice.keys)
  t.equal(r.status, 200)
  const proof = r.body as BalanceProof
  t.match(proof, { format: 'perp-exchange-balance-proof', version: 1, seq: first, root: stateRoot(rig.ex.state), account: alice.address, sub: 0,
    logHash: '0x' + hex(new Uint8Array(32).fill(first % 256)) })
  t.same(proof.leaves.map((l) => l.leaf.split('|').slice(0, 4)), [['perpWallet', alice.address, '0', '2500000000']], 'its perp wallet: 2,500 USDT')
  for (const { leaf, proof: path } of proof.leaves) {
    t.ok(verifyProof(leafHash(leaf), path.map((s) => ({ sibling: bytes(s.sibling), left: s.left })), bytes(proof.root)), 'leads to the root')
  }

  // Alice trades on; the proof stays at the checkpoint until a newer one is held.
  await rig.run({ type: 'Transfer', account: alice.address, sub: 0, amount: 500_000_000, direction: 'PERP_TO_SPOT' })
  t.same((await get(alice.keys)).body, proof)
  const second = await checkpoint()
  const now = (await get(alice.keys)).body as BalanceProof
  t.equal(now.seq, second)
  t.same(now.leaves.map((l) => l.leaf.split('|').slice(0, 5)), [
    ['perpWallet', alice.address, '0', '2000000000', 'false'], ['spot', alice.address, '0', 'USDT', '500000000'],
  ], 'the newest checkpoint: 2,000 USDT perp, 500 spot')
  t.same((await get(alice.keys, { seq: String(first) })).body, proof, 'seq: an older checkpoint still held')
  // Once the chain services name an anchor, proofs default to it and name its Vault.
  const VAULT = '0x' + '5a'.repeat(20)
  prover.anchoredAt(first, VAULT)
  t.same((await get(alice.keys)).body, { ...proof, vault: VAULT }, 'the anchored checkpoint, not the newest')
  t.same((await get(alice.keys, { seq: String(second) })).body, { ...now, vault: VAULT })

  // Bob opened his session after both checkpoints: he held nothing at the anchored one.
  const bob = (await openSession(rig, Wallet.createRandom())).json() as Keys
  t.match(await get(bob), { status: 404, body: { code: -1099, msg: `held nothing at checkpoint ${first}.` } })
  t.match(await get(bob, { seq: String(second) }), { status: 404, body: { code: -1099, msg: `held nothing at checkpoint ${second}.` } })

  t.same(await get(alice.keys, { seq: '3' }), { status: 400, body: { code: -1130,
    msg: `Data sent for parameter 'seq' is not valid: this node holds the checkpoints ${first}, ${second}.` } })
  t.match(await get(alice.keys, { seq: '0' }), { status: 400, body: { code: -1130 } })
  t.match(await get(alice.keys, { seq: '-5' }), { status: 400, body: { code: -1100 } })
  t.match(await get(alice.keys, { seq: '1e3' }), { status: 400, body: { code: -1100 } })

  const tradeOnly = (await openSession(rig, Wallet.createRandom(), { permissions: 'TRADE' })).json() as Keys
  t.match(await get(tradeOnly), { status: 403, body: { code: -2015 } }, 'USER_DATA permission needed')
  const unsigned = await app.inject({ method: 'GET', url: '/sapi/v1/account/balanceProof', headers: { 'x-mbx-apikey': alice.keys.apiKey } })
  t.equal(unsigned.statusCode, 400)
  t.equal(unsigned.json().code, -1102)

  const withoutProver = await signedInject(rig, alice.keys, 'GET', '/sapi/v1/account/balanceProof')
  t.same({ status: withoutProver.statusCode, body: withoutProver.json() }, { status: 404, body: { code: -1099, msg: 'This node serves no balance proofs.' } })
})

t.test('under salted rules: version 2, each leaf with the salt it is hashed with', async (t) => {
  const { rig, checkpoint, get } = await proofRig(t)
  const seed = '0x' + '7c'.repeat(32)
  await rig.run({ type: 'SetRules', version: RULES_VERSION, leafSeed: seed })
  const alice = await fundedTrader(rig, 2_500)
  await rig.run({ type: 'Transfer', account: alice.address, sub: 0, amount: 500_000_000, direction: 'PERP_TO_SPOT' })
  const seq = await checkpoint()
  const r = await get(alice.keys)
  t.equal(r.status, 200)
  const proof = r.body as BalanceProof
  t.match(proof, { version: 2, seq, root: stateRoot(rig.ex.state) })
  t.same(proof.leaves.map((l) => l.leaf.split('|')[0]), ['perpWallet', 'spot'])
  for (const { leaf, salt, proof: path } of proof.leaves) {
    t.equal(salt, toHex(leafSalt(seed, leaf)), 'the salt reaches the client')
    t.ok(verifyProof(saltedLeafHash(bytes(salt!), leaf), path.map((s) => ({ sibling: bytes(s.sibling), left: s.left })), bytes(proof.root)),
      'leads to the root')
  }
  t.notOk(JSON.stringify(r.body).includes(seed.slice(2)), 'the seed itself is nowhere in the answer')
})
