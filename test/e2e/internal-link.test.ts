// The replication port is the exchange's inside (docs/REPLICA.md, "Who may connect"): with real
// processes, a follower started with another master secret is refused, says why, and gets
// nothing; an ingress client without the node's secret cannot submit a deposit; with the
// secret, both work. Over TLS (a test certificate for 127.0.0.1 in test/fixtures/link-tls, its
// key for tests only): a follower that does not trust the certificate, or a plain ws:// client,
// gets nothing; trusting it, both work.

import t from 'tap'
import { readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { IngressClient } from '../../replica/ingress.js'
import { wsNetwork } from '../../replica/ws-network.js'
import { freePort } from '../../replica/free-port.js'
import { ROOT } from '../helpers/paths.js'
import { internalLink, startExchange } from '../helpers/processes.js'

const SECRET = '77'.repeat(32)

t.test('only holders of the master secret replicate or submit', { timeout: 90_000 }, async (t) => {
  const [dirA, dirB] = [await mkdtemp(path.join(os.tmpdir(), 'link-a-')), await mkdtemp(path.join(os.tmpdir(), 'link-b-'))]
  const [apiA, apiB, repl, metA, metB] = [await freePort(), await freePort(), await freePort(), await freePort(), await freePort()]
  const seq = startExchange(['start', '--data', dirA, '--port', String(apiA), '--replication-port', String(repl),
    '--metrics-port', String(metA), '--master-secret', SECRET, '--chain', 'off', '--price-feed', 'off'])
  const follow = (secret: string) => startExchange(['replica', '--data', dirB, '--port', String(apiB), '--metrics-port', String(metB),
    '--follow', `ws://127.0.0.1:${repl}/replication`, '--master-secret', secret])
  let fol: ReturnType<typeof follow> | undefined
  t.teardown(async () => {
    await Promise.all([seq.kill(), fol?.kill()])
    await Promise.all([dirA, dirB].map((d) => rm(d, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 })))
  })
  await seq.waitFor((l) => l.msg === 'sequencer running')
  // Started only now, and the refusal looked for by its reason: a follower that came up first
  // would log ECONNREFUSED before the port listened, and that line would match too.
  fol = follow('78'.repeat(32))
  const refused = await fol.waitFor((l) => l.msg === 'cannot connect to the sequencer; retrying' && /401/.test(String(l.reason)))
  t.match(refused.reason, /refused the link \(401\): it runs with another master secret/, 'the follower says why')
  await fol.waitFor((l) => l.msg === 'follower running') // its gateway comes up after its first try
  const seqOf = async (api: number) => Number((await fetch(`http://127.0.0.1:${api}/fapi/v1/ping`)).headers.get('x-exchange-seq'))
  t.equal(await seqOf(apiB), 0, 'and holds nothing of the log')

  const deposit = { type: 'Deposit', account: '0x' + '9'.repeat(40), sub: 0, asset: 'USDT', amount: 1_000_000_000_000, wallet: 'PERP', ref: 'mint' } as const
  await t.rejects(IngressClient.connect(wsNetwork, `ws://127.0.0.1:${repl}`), { message: /401/ }, 'no secret: no ingress')
  const client = await IngressClient.connect(internalLink(SECRET), `ws://127.0.0.1:${repl}`)
  t.teardown(() => client.close())
  const ack = await client.submit(deposit)
  t.ok(ack.result.ok, 'with the secret, commands are taken')

  await fol.kill()
  fol = follow(SECRET)
  await fol.waitFor((l) => l.msg === 'follower running')
  const until = Date.now() + 20_000
  while (await seqOf(apiB) < ack.seq && Date.now() < until) await new Promise((r) => setTimeout(r, 50))
  t.ok(await seqOf(apiB) >= ack.seq, 'with the secret, the follower follows')
})

t.test('over TLS: only peers that trust the certificate (and hold the secret) replicate or submit', { timeout: 90_000 }, async (t) => {
  const [dirA, dirB] = [await mkdtemp(path.join(os.tmpdir(), 'tls-a-')), await mkdtemp(path.join(os.tmpdir(), 'tls-b-'))]
  const [apiA, apiB, repl, metA, metB] = [await freePort(), await freePort(), await freePort(), await freePort(), await freePort()]
  const cert = path.join(ROOT, 'test', 'fixtures', 'link-tls', 'cert.pem')
  const key = path.join(ROOT, 'test', 'fixtures', 'link-tls', 'key.pem')
  const seq = startExchange(['start', '--data', dirA, '--port', String(apiA), '--replication-port', String(repl),
    '--metrics-port', String(metA), '--master-secret', SECRET, '--chain', 'off', '--price-feed', 'off', '--link-tls-cert', cert, '--link-tls-key', key])
  const follow = (extra: string[]) => startExchange(['replica', '--data', dirB, '--port', String(apiB), '--metrics-port', String(metB),
    '--follow', `wss://127.0.0.1:${repl}/replication`, '--master-secret', SECRET, ...extra])
  let fol: ReturnType<typeof follow> | undefined
  t.teardown(async () => {
    await Promise.all([seq.kill(), fol?.kill()])
    await Promise.all([dirA, dirB].map((d) => rm(d, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 })))
  })
  const running = await seq.waitFor((l) => l.msg === 'sequencer running')
  t.match(running.replication, new RegExp(`^wss://127\\.0\\.0\\.1:${repl}/replication$`), 'the node says its link is wss://')
  // Without the CA the certificate is a stranger's: the follower keeps trying and holds nothing.
  fol = follow([])
  const refused = await fol.waitFor((l) => l.msg === 'cannot connect to the sequencer; retrying' && /certificate/i.test(String(l.reason)))
  t.match(refused.reason, /self[- ]signed certificate/i, 'the follower says why')
  const seqOf = async (api: number) => Number((await fetch(`http://127.0.0.1:${api}/fapi/v1/ping`)).headers.get('x-exchange-seq'))
  await fol.waitFor((l) => l.msg === 'follower running')
  t.equal(await seqOf(apiB), 0, 'and holds nothing of the log')

  const pem = readFileSync(cert)
  const deposit = { type: 'Deposit', account: '0x' + '9'.repeat(40), sub: 0, asset: 'USDT', amount: 1_000_000_000_000, wallet: 'PERP', ref: 'mint' } as const
  await t.rejects(IngressClient.connect(internalLink(SECRET), `ws://127.0.0.1:${repl}`), 'plain ws:// to a TLS port: no ingress')
  await t.rejects(IngressClient.connect(internalLink('78'.repeat(32), pem), `wss://127.0.0.1:${repl}`), { message: /401/ },
    'trusting the certificate without the secret: no ingress')
  const client = await IngressClient.connect(internalLink(SECRET, pem), `wss://127.0.0.1:${repl}`)
  t.teardown(() => client.close())
  const ack = await client.submit(deposit)
  t.ok(ack.result.ok, 'over wss:// with the secret, commands are taken')

  await fol.kill()
  fol = follow(['--link-tls-ca', cert])
  await fol.waitFor((l) => l.msg === 'follower running')
  const until = Date.now() + 20_000
  while (await seqOf(apiB) < ack.seq && Date.now() < until) await new Promise((r) => setTimeout(r, 50))
  t.ok(await seqOf(apiB) >= ack.seq, 'trusting the certificate, the follower follows')
})
