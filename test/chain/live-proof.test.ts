// Balance proofs from a running `exchange start`: the demo account fetches its proof over REST
// at the newest anchored checkpoint and checks it against the Vault on the embedded chain
// (`verify-proof`'s check, no log), then moves money and sees the next anchored proof carry
// it, while the node keeps running; a follower, told the anchors by its sequencer, serves
// the same proof; and the operator exports the running sequencer's log over its internal link
// (`export-log --follow`) and audits it against the Vault.

import t from 'tap'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { verifyBalanceProof } from '../../bin/prove.js'
import { chainProvider, vaultAt } from '../../chain/provider.js'
import type { BalanceProof } from '../../replica/balance-proof.js'
import { exchangeCli as cli, scrapeGauges, signedRequest, startGatewayPair } from '../helpers/processes.js'

const SECRET = '44'.repeat(32)
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

t.test('the demo account proves its balances against the anchored root, on the sequencer and a follower', { timeout: 90_000 }, async (t) => {
  const { apiA, apiB, repl, seq: sequencer, demo } = await startGatewayPair(t, SECRET, [], ['--checkpoint-interval', '10',
    // Ticks every 100 ms make a checkpoint about every second, and anchors come every 2 s: the
    // anchored checkpoint is mostly not the newest one a node holds.
    '--tick-ms', '100', '--anchor-interval-ms', '2000', '--chain-poll-ms', '50', '--price-feed', 'off'])
  const running = await sequencer.waitFor((l) => l.msg === 'chain services running', 30_000)
  const rpc = running.rpc as string
  const vaultAddress = running.vault as string
  const provider = chainProvider(rpc, 31337)
  t.teardown(async () => provider.destroy())
  const vault = vaultAt(vaultAddress, provider)

  const call = (method: string, p: string, params: Record<string, string> = {}, port = apiA): Promise<{ status: number; body: any }> =>
    signedRequest(`http://127.0.0.1:${port}`, demo, method, p, params)
  /**
   * The anchored proof once its perp wallet and spot USDT leaves show these units (anchors come
   * every 2 s). Before the first anchor a node serves its newest checkpoint, naming no Vault:
   * under load the balances reach one before any anchor (seen once, on a loaded machine).
   */
  const proofShowing = async (perp: string, spot: string): Promise<BalanceProof> => {
    const deadline = Date.now() + 30_000
    for (;;) {
      const r = await call('GET', '/sapi/v1/account/balanceProof')
      const leaves = r.status === 200 && (r.body as BalanceProof).vault !== undefined ? (r.body as BalanceProof).leaves.map((l) => l.leaf) : []
      if (leaves.some((l) => l.startsWith(`perpWallet|${demo.address}|0|${perp}|`)) &&
        leaves.some((l) => l.startsWith(`spot|${demo.address}|0|USDT|${spot}|`))) return r.body as BalanceProof
      if (Date.now() > deadline) throw new Error(`no proof showing ${perp}/${spot}: ${JSON.stringify(r.body).slice(0, 500)}`)
      await sleep(100)
    }
  }
  const check = async (proof: BalanceProof): Promise<string> => {
    const lines: string[] = []
    t.equal(await verifyBalanceProof({ proof, rpc, vault: vaultAddress, out: (l) => lines.push(l) }), true, lines.join('\n'))
    return lines.join('\n')
  }

  // Funded with 100,000 USDT, half of it moved to the perp wallet.
  const funded = await proofShowing('50000000000', '50000000000')
  t.equal(funded.vault, vaultAddress, 'the proof names the Vault holding the anchor')
  t.match(await check(funded), new RegExp(`anchored on ${vaultAddress} at seq ${funded.seq}\\nPASS$`))
  // In one command, as a user would: fetched with the account's keys, checked on the chain the proof's Vault is on.
  const dir = await mkdtemp(path.join(os.tmpdir(), 'live-proof-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const keys = path.join(dir, 'keys.json')
  await writeFile(keys, JSON.stringify(demo))
  const fetched = await cli(['verify-proof', '--api', `http://127.0.0.1:${apiA}`, '--keys', keys, '--rpc', rpc, '--out', path.join(dir, 'proof.json')])
  t.equal(fetched.code, 0, fetched.stdout + fetched.stderr)
  t.match(fetched.stdout, new RegExp(`the Vault the proof names: ${vaultAddress} .*\\n  anchored on ${vaultAddress} at seq \\d+\\nPASS\\n$`))
  t.equal((JSON.parse(await readFile(path.join(dir, 'proof.json'), 'utf8')) as BalanceProof).account, demo.address, '--out keeps what was fetched')
  t.match(await cli(['verify-proof', '--api', `http://127.0.0.1:${apiA}`, '--keys', keys, '--seq', '3']),
    { code: 1, stderr: /^exchange: http:\/\/127\.0\.0\.1:\d+ answered GET \/sapi\/v1\/account\/balanceProof: -1130 Data sent for parameter 'seq' is not valid: this node holds the checkpoints/ })
  t.ok(Number(await vault.latestSeq()) >= funded.seq, 'at a seq the Vault has anchored')
  const [root] = await vault.anchorAt(funded.seq) as [string, string]
  t.equal(root, funded.root)

  t.equal((await call('POST', '/sapi/v1/asset/transferQuoteFromSpotToPerp', { amount: '100' })).status, 200)
  const moved = await proofShowing('50100000000', '49900000000')
  t.ok(moved.seq > funded.seq, `a later anchor (${moved.seq} after ${funded.seq})`)
  await check(moved)

  const notHeld = await call('GET', '/sapi/v1/account/balanceProof', { seq: '3' })
  t.equal(notHeld.status, 400)
  t.match(notHeld.body, { code: -1130, msg: /this node holds the checkpoints \d+(, \d+)+\.$/ })

  // The follower learns the anchors from its sequencer: once caught up, it serves the same proof
  // (ticks go on, so the anchored checkpoint may move between two reads: read both until equal).
  const deadline = Date.now() + 30_000
  let pair: { status: number; body: any }[]
  do {
    pair = await Promise.all([call('GET', '/sapi/v1/account/balanceProof', {}, apiB), call('GET', '/sapi/v1/account/balanceProof')])
    if (JSON.stringify(pair[0]!.body) === JSON.stringify(pair[1]!.body)) break
    await sleep(100)
  } while (Date.now() < deadline)
  const [fromFollower, fromSequencer] = pair
  t.equal(fromFollower!.status, 200)
  t.same(fromFollower!.body, fromSequencer!.body, "the sequencer's proof")
  t.match(await check(fromFollower!.body as BalanceProof), /anchored on .* at seq \d+\nPASS$/, 'at a seq the Vault anchored')

  // The operator exports the running sequencer's log over its internal link and audits it
  // against the same Vault, without stopping anything.
  const file = path.join(dir, 'log.msgpack')
  const exported = await cli(['export-log', '--follow', `ws://127.0.0.1:${repl}/replication`, '--master-secret', SECRET, '--out', file])
  t.equal(exported.code, 0, exported.stderr)
  const count = Number(/^exported (\d+) entries to /.exec(exported.stdout)?.[1])
  t.ok(count >= fromSequencer!.body.seq, `${count} entries, up to the sequencer's end then`)
  // Anchors go on after the export: the auditor says the file is a prefix (without it, an anchor
  // past the file's end is a finding, as a log cut short must be caught).
  const audit = await cli(['audit', '--log', file, '--rpc', rpc, '--vault', vaultAddress, '--prefix'])
  t.equal(audit.code, 0, audit.stdout + audit.stderr)
  t.match(audit.stdout, new RegExp(`entries +${count} replayed, hash chain intact`))
  t.match(audit.stdout, /anchors +(\d+) of \1 on \S+ match/)
  t.notMatch(audit.stdout, /anchors +0 of/)
  t.match(audit.stdout, /PASS\n$/)
  // Or in one step, streaming: the audit reads the log over the link (a prefix by nature).
  const live = await cli(['audit', '--follow', `ws://127.0.0.1:${repl}`, '--master-secret', SECRET, '--rpc', rpc, '--vault', vaultAddress])
  t.equal(live.code, 0, live.stdout + live.stderr)
  t.match(live.stdout, new RegExp(`^audit of ws://127\\.0\\.0\\.1:${repl}\\n  entries +(\\d+) replayed, hash chain intact`))
  t.match(live.stdout, /anchors +(\d+) of \1 on \S+ match/)
  t.match(live.stdout, /PASS\n$/)
  t.same(await cli(['audit', '--follow', `ws://127.0.0.1:${repl}`, '--master-secret', '66'.repeat(32)]), { code: 1, stdout: '',
    stderr: `exchange: audit of ws://127.0.0.1:${repl}: ws://127.0.0.1:${repl}/replication refused the link (401): it runs with another master secret\n` })
  // A new file: one that exists is refused before the link is opened (export-log --force writes over it).
  const refused = await cli(['export-log', '--follow', `ws://127.0.0.1:${repl}`, '--master-secret', '66'.repeat(32), '--out', `${file}.2`])
  t.same(refused, { code: 1, stdout: '',
    stderr: `exchange: export from ws://127.0.0.1:${repl}: ws://127.0.0.1:${repl}/replication refused the link (401): it runs with another master secret\n` })
})

t.test("a follower proves at the checkpoint its sequencer anchored, not at its own newest", { timeout: 90_000 }, async (t) => {
  // Anchors at most every 15 s: after the first one that covers the funding, the checkpoints
  // the test makes stay unanchored while it looks.
  const { apiA, apiB, metA, metB, seq: sequencer, demo } = await startGatewayPair(t, '55'.repeat(32), [], ['--checkpoint-interval', '10',
    '--anchor-interval-ms', '15000', '--chain-poll-ms', '50', '--price-feed', 'off'])
  await sequencer.waitFor((l) => l.msg === 'demo account funded', 30_000)
  const funded = sequencer.lines.length
  const anchored = await sequencer.waitFor((l) => l.msg === 'state root anchored' && sequencer.lines.indexOf(l) >= funded, 30_000)
  const call = (port: number, p: string, params: Record<string, string> = {}, method = 'GET'): Promise<{ status: number; body: any }> =>
    signedRequest(`http://127.0.0.1:${port}`, demo, method, p, params)
  for (let i = 0; i < 30; i++) {
    const way = i % 2 === 0 ? 'transferQuoteFromSpotToPerp' : 'transferQuoteFromPerpToSpot'
    t.equal((await call(apiA, `/sapi/v1/asset/${way}`, { amount: '1' }, 'POST')).status, 200)
  }
  /** The checkpoints a node holds, as its refusal of seq 1 names them. */
  const held = async (port: number): Promise<number[]> =>
    ((await call(port, '/sapi/v1/account/balanceProof', { seq: '1' })).body.msg as string).replace(/.*checkpoints /, '').replace('.', '').split(', ').map(Number)
  const deadline = Date.now() + 20_000
  while (Math.max(...await held(apiB)) < (anchored.seq as number) + 30 && Date.now() < deadline) await sleep(100)
  const followerHeld = await held(apiB)
  t.ok(Math.max(...followerHeld) >= (anchored.seq as number) + 30, `the follower holds newer checkpoints: ${followerHeld.join(', ')}`)
  t.ok(followerHeld.includes(anchored.seq as number), 'and the anchored one, kept through pruning')
  const [fromFollower, fromSequencer] = await Promise.all([call(apiB, '/sapi/v1/account/balanceProof'), call(apiA, '/sapi/v1/account/balanceProof')])
  t.equal(fromSequencer.body.seq, anchored.seq, 'the sequencer proves at its anchored checkpoint')
  t.same(fromFollower.body, fromSequencer.body, 'so does the follower')
  // Both gateways tell users where to deposit: the token contracts the chain services deployed.
  const deployed = await sequencer.waitFor((l) => l.msg === 'contracts deployed')
  const usdt = (deployed.tokens as { asset: string; address: string }[]).find((x) => x.asset === 'USDT')!.address
  for (const port of [apiA, apiB]) {
    const coins = (await call(port, '/sapi/v1/capital/config/getall')).body as { coin: string; networkList: { contractAddress: string; specialTips: string }[] }[]
    const network = coins.find((c) => c.coin === 'USDT')!.networkList[0]!
    t.equal(network.contractAddress, usdt, `port ${port === apiA ? 'of the sequencer' : 'of the follower'}: USDT's token`)
    t.match(network.specialTips, `approve the Vault ${deployed.vault as string} for the token ${usdt}`)
  }
  for (const [port, node] of [[metA, 'sequencer'], [metB, 'follower']] as const) {
    const g = await scrapeGauges(port)
    t.equal(g.exchange_anchored_seq, anchored.seq, `the ${node}'s /metrics: exchange_anchored_seq`)
    t.ok(g.exchange_seq! > g.exchange_anchored_seq!, 'behind its seq')
  }
})
