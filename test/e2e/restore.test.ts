// The cold backup: a running exchange's log exported (`export-log --follow`), the exchange and its
// data directory lost, the log restored into a new one (`exchange restore`) and a sequencer started
// on it with the kept master secret. Traders find their keys, orders, fills, positions and balances
// as they were and trade on; a restore never overwrites a log, and a file edited in the middle is
// refused, leaving no log behind.

import t from 'tap'
import { copyFile, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { freePort } from '../../replica/free-port.js'
import { exchangeCli, signedRequest, startExchange, type Proc } from '../helpers/processes.js'

interface Keys { apiKey: string; secretKey: string }

async function node(t: Tap, command: 'start' | 'sequencer', dir: string): Promise<{ proc: Proc; base: string; args: string[] }> {
  const [port, repl, metrics] = [await freePort(), await freePort(), await freePort()]
  const args = ['--data', dir, '--port', String(port), '--replication-port', String(repl), '--metrics-port', String(metrics)]
  const proc = startExchange([command, ...args, '--chain', 'off', '--price-feed', 'off'])
  t.teardown(() => proc.kill())
  await proc.waitFor((l) => l.msg === 'sequencer running')
  return { proc, base: `http://127.0.0.1:${port}`, args }
}
type Tap = { teardown(fn: () => unknown): void }

function client(base: string) {
  return async (who: Keys, method: string, p: string, params: Record<string, string> = {}): Promise<unknown> =>
    (await signedRequest(base, who, method, p, params)).body
}

t.test('an exported log restored into a new data directory: the exchange goes on where it stood', { timeout: 180_000 }, async (t) => {
  const root = await mkdtemp(path.join(os.tmpdir(), 'restore-'))
  t.teardown(() => rm(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }))
  const [lost, restored, refused] = ['lost', 'restored', 'refused'].map((d) => path.join(root, d))
  const file = path.join(root, 'backup.msgpack')

  const a = await node(t, 'start', lost)
  await a.proc.waitFor((l) => l.msg === 'demo account funded')
  const maker = JSON.parse(await readFile(path.join(lost, 'demo-account.json'), 'utf8')) as Keys
  const taker = JSON.parse((await exchangeCli(['account', '--fund', '20000', ...a.args])).stdout) as Keys
  let signed = client(a.base)
  const sell = { symbol: 'BTCUSDTPERP', side: 'SELL', type: 'LIMIT', timeInForce: 'GTC', quantity: '0.020', price: '30000' }
  t.match(await signed(maker, 'POST', '/fapi/v1/order', sell), { orderId: Number })
  t.match(await signed(taker, 'POST', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', side: 'BUY', type: 'MARKET', quantity: '0.015' }), { orderId: Number })
  const resting = await signed(taker, 'POST', '/fapi/v1/order', { ...sell, side: 'BUY', price: '29000', quantity: '0.010' }) as { orderId: number }
  const read = async (): Promise<unknown[]> => [
    await signed(maker, 'GET', '/fapi/v1/allOrders', { symbol: 'BTCUSDTPERP' }),
    await signed(taker, 'GET', '/fapi/v3/myTrades', { symbol: 'BTCUSDTPERP' }),
    await signed(taker, 'GET', '/fapi/v1/openOrders', { symbol: 'BTCUSDTPERP' }),
    await signed(taker, 'GET', '/fapi/v1/positionRisk', { symbol: 'BTCUSDTPERP' }),
    // Without updateTime: the time of the newest entry applied, which every Tick moves.
    ((await signed(maker, 'GET', '/fapi/v1/balance')) as Record<string, unknown>[]).map(({ updateTime: _, ...row }) => row),
    await signed(taker, 'GET', '/fapi/v1/income', { incomeType: 'COMMISSION' }),
  ]
  const before = await read()

  // The operator's backup while it runs, then the machine and its data are lost; the master secret was kept apart.
  const repl = a.args[a.args.indexOf('--replication-port') + 1]
  const exported = await exchangeCli(['export-log', '--follow', `ws://127.0.0.1:${repl}/replication`, '--data', lost, '--out', file])
  t.equal(exported.code, 0, exported.stderr)
  const secret = path.join(root, 'gateway-secret')
  await copyFile(path.join(lost, 'gateway-secret'), secret)
  await a.proc.kill()
  await rm(lost, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 })

  const r = await exchangeCli(['restore', '--log', file, '--data', restored])
  t.equal(r.code, 0, r.stderr)
  const [, entries, lastSeq] = /^restored (\d+) entries \(seq 1 to (\d+), last hash [0-9a-f]{64}\) into .*log$/m.exec(r.stdout) ?? []
  t.ok(Number(entries) > 10 && entries === lastSeq, `every entry of the export: ${r.stdout.trim()}`)
  t.same((await readdir(restored)).sort(), ['log'], 'only the log: no staging directory left')

  await copyFile(secret, path.join(restored, 'gateway-secret'))
  const b = await node(t, 'sequencer', restored)
  signed = client(b.base)
  t.same(await read(), before, 'the same keys read the same orders, fills, open orders, position, balances and income')
  t.match(await signed(taker, 'DELETE', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', orderId: String(resting.orderId) }),
    { orderId: resting.orderId, status: 'CANCELED' }, 'the order resting at the backup is still on the book')
  const next = await signed(taker, 'POST', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', side: 'BUY', type: 'MARKET', quantity: '0.005' }) as { orderId: number }
  t.ok(next.orderId > resting.orderId, 'and trading goes on: the maker\'s last 0.005 taken')

  // Never over a log: the restored one stays as it is.
  const again = await exchangeCli(['restore', '--log', file, '--data', restored])
  t.equal(again.code, 1)
  t.match(again.stderr, /log exists: restore into a data directory that holds no log/)

  // One byte of one command changed: its hash no longer matches, and nothing is restored.
  const bytes = await readFile(file)
  const at = bytes.lastIndexOf(Buffer.from('BTCUSDTPERP'))
  t.ok(at > 0)
  bytes[at + 3] = 'X'.charCodeAt(0)
  const edited = path.join(root, 'edited.msgpack')
  await writeFile(edited, bytes)
  const bad = await exchangeCli(['restore', '--log', edited, '--data', refused])
  t.equal(bad.code, 1)
  t.match(bad.stderr, /^exchange: restore from .*edited\.msgpack: append refused at seq \d+: hash does not match its body; nothing restored\n$/)
  t.same(await readdir(refused).catch(() => []), [], 'no log, and no half-restored one')
})
