// The embedded oracle in a real `exchange start`: its key kept in the data directory and
// registered for every pair, prices replayed from a CSV reaching premiumIndex over HTTP, and
// the sequencer's ingress refusing an oracle price whose signature does not verify.

import t from 'tap'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { Wallet } from 'ethers'
import { IngressClient, IngressError } from '../../replica/ingress.js'
import { signOraclePrice } from '../../replica/oracle-signature.js'
import { parsePriceCsv } from '../../bin/price-feed.js'
import { freePort } from '../../replica/free-port.js'
import { internalLink, startExchange } from '../helpers/processes.js'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

t.test('start with --price-feed csv: the index follows the file; ingress verifies signatures', { timeout: 60_000 }, async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'feed-'))
  const csv = path.join(dir, 'prices.csv')
  await writeFile(csv, 'pair,price\nBTCUSDT,41000.5\nETHUSDT,2500.25\nBTCUSDT,41000.5\nETHUSDT,2500.25\n')
  const [port, repl, metrics] = [await freePort(), await freePort(), await freePort()]
  const proc = startExchange(['start', '--data', dir, '--port', String(port), '--replication-port', String(repl),
    '--metrics-port', String(metrics), '--chain', 'off', '--price-feed', `csv:${csv}`, '--price-feed-ms', '200'])
  t.teardown(async () => { await proc.kill(); await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }) })
  const started = await proc.waitFor((l) => l.msg === 'price feed running')
  const key = (await readFile(path.join(dir, 'oracle-key'), 'utf8')).trim()
  const oracle = new Wallet(key)
  t.equal(started.oracle, oracle.address, 'the key in the data directory is the registered oracle')

  const base = `http://127.0.0.1:${port}`
  let body: { symbol: string; indexPrice: string; markPrice: string }[] = []
  for (let i = 0; i < 50; i++) {
    body = await (await fetch(`${base}/fapi/v1/premiumIndex`)).json() as typeof body
    if (body.every((b) => b.indexPrice !== '0.00000000')) break
    await sleep(100)
  }
  t.same(body.map((b) => [b.symbol, b.indexPrice, b.markPrice]), [
    ['BTCUSDTPERP', '41000.50000000', '41000.50000000'],
    ['ETHUSDTPERP', '2500.25000000', '2500.25000000'],
  ], 'an empty book: mark = index')

  const client = await IngressClient.connect(internalLink((await readFile(path.join(dir, 'gateway-secret'), 'utf8')).trim()),
    `ws://127.0.0.1:${repl}`)
  t.teardown(() => client.close())
  const good = await signOraclePrice(oracle, { pair: 'BTCUSDT', priceE8: 4_200_000_000_000, time: Date.now() })
  const tampered = { ...good, priceE8: 4_300_000_000_000 }
  await t.rejects(client.submit(tampered), new IngressError('SIGNATURE_INVALID', 'the oracle price signature does not verify'))
  const stranger = await signOraclePrice(Wallet.createRandom(), { pair: 'BTCUSDT', priceE8: 4_200_000_000_000, time: Date.now() })
  const ack = await client.submit(stranger)
  t.same(ack.result, { ok: false, code: 'ORACLE_UNKNOWN', events: [] }, 'a valid signature by a key nobody registered')
})

t.test('price CSV: PAIR,PRICE lines per pair in order, a header and comments skipped, bad lines refused', async (t) => {
  const q = parsePriceCsv('pair,price\n# a comment\nBTCUSDT,41000.5\nETHUSDT, 2500.25\n\nBTCUSDT,41001.12345678\n')
  t.same([...q], [['BTCUSDT', [4_100_050_000_000, 4_100_112_345_678]], ['ETHUSDT', [250_025_000_000]]])
  t.throws(() => parsePriceCsv('BTCUSDT,41000.5\nBTCUSDT,-1\n'), /line 2/)
  t.throws(() => parsePriceCsv('BTCUSDT,1.123456789\n'), /line 1/, 'more than 8 decimals')
})
