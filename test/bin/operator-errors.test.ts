// What an operator's mistake prints: a port another process holds, or a node that is not
// there, is named with the options that matter, not thrown as a stack (the data directory
// another node holds is in test/replica/level-log.test.ts); so is a log the disk damaged, a
// node that runs with another master secret, a --data without the node's secret (never made
// by a command that only connects), a certificate not trusted, an export that would write over
// a file, a bad --amount.

import t from 'tap'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { freePort } from '../../replica/free-port.js'
import { linkToken, wsNetworkWith } from '../../replica/ws-network.js'
import type { Command } from '../../core/commands.js'
import { ALICE } from '../helpers/exchange.js'
import { genesisLog, writeLog } from '../helpers/node-fixtures.js'
import { eventually } from '../helpers/live-exchange.js'
import { ROOT } from '../helpers/paths.js'
import { exchangeCli, scrapeGauges, startExchange } from '../helpers/processes.js'

/** An `exchange` command's exit code and stderr, for the cases that print only there. */
async function exitAndStderr(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const { code, stderr } = await exchangeCli(args)
  return { code, stderr }
}

t.test('a REST port in use: named, with the options to choose others, exit 1', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ports-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const held = net.createServer()
  await new Promise<void>((resolve) => held.listen(0, '127.0.0.1', resolve))
  t.teardown(() => held.close())
  const port = (held.address() as net.AddressInfo).port
  const r = await exchangeCli(['start', '--data', dir, '--chain', 'off', '--no-bot', '--port', String(port),
    '--replication-port', String(await freePort()), '--metrics-port', String(await freePort())])
  t.equal(r.code, 1)
  t.equal(r.stderr, `exchange: 127.0.0.1:${port} is in use (another exchange running?): choose other ports (--port, --replication-port, --metrics-port)\n`)
})

t.test('`exchange account` with no node at the replication port: says so, exit 1', async (t) => {
  const port = await freePort()
  // The secret given: without it (and without ./data/gateway-secret) it would say that first.
  const r = await exchangeCli(['account', '--fund', '100', '--replication-port', String(port), '--master-secret', '11'.repeat(32)])
  t.equal(r.code, 1)
  t.equal(r.stderr, `exchange: nothing answers at 127.0.0.1:${port}: is the exchange running, on that --host and --replication-port?\n`)
})

t.test('`account`, `withdraw-fees` against a node with another master secret: its refusal in a line, exit 1 (it was a stack)', async (t) => {
  // A link port as a node's, which takes only its own secret's token.
  const link = await wsNetworkWith(linkToken(Buffer.alloc(32, 0x22))).listen('127.0.0.1', 0, (conn) => conn.close())
  t.teardown(() => link.close())
  const port = link.url.split(':').pop()!
  const refused = `exchange: ws://127.0.0.1:${port}/commands refused the link (401): it runs with another master secret\n`
  t.same(await exitAndStderr(['account', '--fund', '20000', '--master-secret', '33'.repeat(32), '--replication-port', port]), { code: 1, stderr: refused })
  t.same(await exitAndStderr(['withdraw-fees', '--amount', '1', '--to', '0x' + '1'.repeat(40), '--master-secret', '33'.repeat(32), '--replication-port', port]),
    { code: 1, stderr: refused })
})

t.test('audit --follow, export-log --follow to a link whose certificate is not trusted: said in a line, exit 1 (it was a stack)', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'untrusted-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const secret = Buffer.alloc(32, 0x55)
  const fixture = (name: string): Buffer => readFileSync(path.join(ROOT, 'test', 'fixtures', 'link-tls', name))
  const link = await wsNetworkWith(linkToken(secret), { cert: fixture('cert.pem'), key: fixture('key.pem') }).listen('127.0.0.1', 0, (conn) => conn.close())
  t.teardown(() => link.close())
  // No --link-tls-ca: the system's CAs, which do not sign the test certificate.
  t.same(await exitAndStderr(['export-log', '--follow', link.url, '--master-secret', secret.toString('hex'), '--out', path.join(dir, 'x.msgpack')]),
    { code: 1, stderr: `exchange: export from ${link.url}: self-signed certificate\n` })
  t.same(await exitAndStderr(['audit', '--follow', link.url, '--master-secret', secret.toString('hex')]),
    { code: 1, stderr: `exchange: audit of ${link.url}: self-signed certificate\n` })
})

t.test('a command that only connects, given a --data without gateway-secret: says so, and makes none', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'no-secret-client-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  // A node is there (its port answers): the command must not get as far as its 401.
  const link = await wsNetworkWith(linkToken(Buffer.alloc(32, 0x22))).listen('127.0.0.1', 0, (conn) => conn.close())
  t.teardown(() => link.close())
  const port = link.url.split(':').pop()!
  const said = (data: string): string => `exchange: there is no gateway-secret at ${path.join(data, 'gateway-secret')}: ` +
    'give the running node\'s --master-secret, or its --data (the directory holding its gateway-secret)\n'
  const missing = path.join(dir, 'missing')
  for (const args of [['audit', '--follow', link.url], ['export-log', '--follow', link.url, '--out', path.join(dir, 'x.msgpack')],
    ['account', '--replication-port', port], ['withdraw-fees', '--amount', '1', '--to', '0x' + '1'.repeat(40), '--replication-port', port]]) {
    t.same(await exitAndStderr([...args, '--data', missing]), { code: 1, stderr: said(missing) }, `${args[0]} --data <a directory that is not there>`)
  }
  t.same(await exitAndStderr(['account', '--replication-port', port, '--data', dir]), { code: 1, stderr: said(dir) }, 'a directory without the file')
  t.notOk(existsSync(path.join(dir, 'missing')), 'no data directory made')
  t.same(readdirSync(dir), [], 'no gateway-secret, no export file made')
})

t.test('withdraw-fees: an --amount that is no positive decimal is refused in a line before anything is asked, exit 1', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'amount-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const port = String(await freePort())
  for (const amount of ['-1', '0.00', '1e3']) {
    t.same(await exitAndStderr(['withdraw-fees', '--amount', amount, '--to', '0x' + '1'.repeat(40), '--replication-port', port, '--data', path.join(dir, 'none')]),
      { code: 1, stderr: `exchange: --amount must be a positive decimal number, got ${amount}\n` }, amount)
  }
})

t.test('export-log: an --out file that exists is refused, untouched, unless --force', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'export-over-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const data = path.join(dir, 'data')
  await writeLog(data, genesisLog(), 1_700_000_000_000)
  const out = path.join(dir, 'kept.msgpack')
  writeFileSync(out, 'the only copy of something')
  t.same(await exitAndStderr(['export-log', '--data', data, '--out', out]),
    { code: 1, stderr: `exchange: ${out} exists: export-log writes a new file (--force to write over it)\n` })
  t.equal(readFileSync(out, 'utf8'), 'the only copy of something', 'untouched')
  // Refused before the link is opened: no node needed to be told.
  t.same(await exitAndStderr(['export-log', '--follow', `ws://127.0.0.1:${await freePort()}`, '--master-secret', '11'.repeat(32), '--out', out]),
    { code: 1, stderr: `exchange: ${out} exists: export-log writes a new file (--force to write over it)\n` })
  const forced = await exchangeCli(['export-log', '--data', data, '--out', out, '--force'])
  t.same([forced.code, forced.stdout], [0, `exported ${genesisLog().length} entries to ${out}\n`], forced.stderr)
  t.not(readFileSync(out, 'utf8'), 'the only copy of something', 'written over')
})

t.test('an audit of a file that is not there, or against a chain that does not answer: said, exit 1', async (t) => {
  const missing = path.join(os.tmpdir(), 'no-such-export.msgpack')
  t.same(await exitAndStderr(['audit', '--log', missing]), { code: 1, stderr: `exchange: no such file or directory: ${missing}\n` })
  const port = await freePort()
  const r = await exitAndStderr(['audit', '--log', missing, '--rpc', `http://127.0.0.1:${port}`, '--vault', '0x' + '1'.repeat(40)])
  t.equal(r.code, 1)
  t.match(r.stderr, new RegExp(`exchange: nothing answers at 127\\.0\\.0\\.1:${port}\n$`))
})

t.test('a data directory that cannot be made: named, with why, exit 1', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'data-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const file = path.join(dir, 'a-file')
  writeFileSync(file, '')
  const r = await exitAndStderr(['start', '--data', path.join(file, 'data'), '--chain', 'off', '--no-bot', '--price-feed', 'off',
    '--port', String(await freePort()), '--replication-port', String(await freePort()), '--metrics-port', String(await freePort())])
  t.same(r, { code: 1, stderr: `exchange: not a directory (a file where a folder is needed): ${path.join(file, 'data', 'log')}\n` })
  // Under /proc the kernel answers "no such file" for a directory whose parent is there, where
  // Node's recursive mkdir went round for ever: the node hung, saying nothing.
  const proc = await exitAndStderr(['start', '--data', '/proc/exchange-data/node', '--chain', 'off', '--no-bot', '--price-feed', 'off',
    '--port', String(await freePort()), '--replication-port', String(await freePort()), '--metrics-port', String(await freePort())])
  t.same(proc, { code: 1, stderr: 'exchange: no such file or directory: /proc/exchange-data\n' })
})

t.test('--help or -h prints the usage and exits 0, starting nothing, whatever else is on the line', async (t) => {
  for (const args of [['--help'], ['-h'], ['start', '--help'], ['sequencer', '--port', '1', '-h']]) {
    const r = await exchangeCli(args)
    t.same([r.code, r.stderr], [0, ''], `exchange ${args.join(' ')}`)
    t.match(r.stdout, /^usage: exchange <command> \[options\]\ncommands:\n/)
  }
})

t.test('a price CSV that will not parse is refused before anything starts, naming file and line', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'csv-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const csv = path.join(dir, 'prices.csv')
  writeFileSync(csv, 'pair,price\nBTCUSDT,30000.5\nETHUSDT,two thousand\n')
  const r = await exchangeCli(['start', '--data', path.join(dir, 'data'), '--chain', 'off', '--no-bot',
    '--price-feed', `csv:${csv}`, '--port', String(await freePort()), '--replication-port', String(await freePort()),
    '--metrics-port', String(await freePort())])
  t.equal(r.code, 1)
  t.equal(r.stderr, `exchange: ${csv}: price CSV line 3: want PAIR,PRICE; got ETHUSDT,two thousand\n`)
  t.equal(r.stdout, '', 'no node started, no log written')
  t.notOk(existsSync(path.join(dir, 'data', 'log')))
})

t.test('verify-proof: a proof or keys file that is not what it should be, an API that does not answer: said, exit 1', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'verify-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const run = (args: string[]) => exitAndStderr(['verify-proof', ...args])
  const notJson = path.join(dir, 'not.json')
  writeFileSync(notJson, 'nope')
  const noKeys = path.join(dir, 'no-keys.json')
  writeFileSync(noKeys, '{"address":"0x"}')
  const keys = path.join(dir, 'keys.json')
  writeFileSync(keys, '{"apiKey":"k","secretKey":"s"}')
  const port = await freePort()
  t.same(await run(['--proof', notJson]), { code: 1, stderr: `exchange: ${notJson} is not a balance proof (not JSON)\n` })
  t.same(await run(['--api', `http://127.0.0.1:${port}`, '--keys', notJson]), { code: 1, stderr: `exchange: ${notJson} is not a keys file (not JSON)\n` })
  t.same(await run(['--api', `http://127.0.0.1:${port}`, '--keys', noKeys]),
    { code: 1, stderr: 'exchange: the keys file needs apiKey and secretKey (as exchange account prints them)\n' })
  t.same(await run(['--api', `http://127.0.0.1:${port}`, '--keys', keys]),
    { code: 1, stderr: `exchange: nothing answers at http://127.0.0.1:${port} (ECONNREFUSED)\n` })
  t.equal((await run(['--api', `http://127.0.0.1:${port}`])).code, 2, 'neither --proof nor --keys: the usage')
})

t.test('prove: a sub-account that holds nothing, a seq past the log, a file that is no log: said in a line, exit 1', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'prove-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const data = path.join(dir, 'data')
  const commands: Command[] = [...genesisLog(), { type: 'Deposit', account: ALICE, sub: 0, asset: 'USDT', amount: 1_000_000, wallet: 'SPOT', ref: 'd1' }]
  await writeLog(data, commands, 1_700_000_000_000)
  const run = (args: string[]) => exitAndStderr(['prove', '--account', ALICE, ...args])
  t.same(await run(['--data', data, '--sub', '7']),
    { code: 1, stderr: `exchange: ${ALICE} sub-account 7 holds nothing at seq ${commands.length}\n` })
  t.same(await run(['--data', data, '--seq', '999']), { code: 1, stderr: `exchange: the log ends at ${commands.length}, before --seq 999\n` })
  const notALog = path.join(dir, 'not.log')
  writeFileSync(notALog, 'nope')
  t.same(await run(['--log', notALog]),
    { code: 1, stderr: `exchange: a proof from ${notALog}: ${notALog} is not an exported log (version 1)\n` })
})

t.test('`exchange session`: without its options (exit 2, with the usage), a keys file without the wallet key, no exchange at --api: said, exit 1', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'session-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const keys = path.join(dir, 'keys.json')
  writeFileSync(keys, JSON.stringify({ apiKey: 'k', secretKey: 's' }))
  const none = await exitAndStderr(['session'])
  t.match(none, { code: 2, stderr: /^session needs --api <url> and --keys <file>/ }, 'a usage error, as every option error')
  const api = `http://127.0.0.1:${await freePort()}`
  t.same(await exitAndStderr(['session', '--api', api, '--keys', keys]),
    { code: 1, stderr: "exchange: the keys file needs the wallet's privateKey (as exchange account prints it)\n" })
  writeFileSync(keys, JSON.stringify({ privateKey: '0x' + '11'.repeat(32) }))
  t.same(await exitAndStderr(['session', '--api', api, '--keys', keys]),
    { code: 1, stderr: `exchange: nothing answers at ${api}: is the exchange running there (--api)?\n` })
})

/** Changes one byte, at `at(its size)`, of the newest LevelDB write-ahead file of `dir`'s log, as a failing disk would. */
function damageWal(dir: string, at: (size: number) => number): void {
  const wal = readdirSync(path.join(dir, 'log')).filter((f) => f.endsWith('.log')).sort().pop()!
  const file = path.join(dir, 'log', wal)
  const bytes = readFileSync(file)
  bytes[at(bytes.length)]! ^= 0xff
  writeFileSync(file, bytes)
}

t.test('a log the disk damaged: named, with the way to make it again, exit 1', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'damaged-log-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const deposits = Array.from({ length: 400 }, (_, i): Command =>
    ({ type: 'Deposit', account: ALICE, sub: 0, asset: 'USDT', amount: 1_000_000 + i, wallet: 'PERP', ref: `d${i}` }))
  await writeLog(dir, [...genesisLog(), ...deposits], Date.now(), 10)
  // One byte changed a quarter into LevelDB's write-ahead log: opening it drops what follows in
  // that block, so the log reads with a gap there (well before its tail).
  damageWal(dir, (size) => size >> 2)
  const r = await exchangeCli(['sequencer', '--data', dir, '--chain', 'off', '--price-feed', 'off', '--port', String(await freePort()),
    '--replication-port', String(await freePort()), '--metrics-port', String(await freePort())])
  t.equal(r.code, 1)
  t.match(r.stderr, new RegExp(`^exchange: the log in ${dir}/log is damaged \\(log corrupt at seq \\d+: gap: found seq \\d+ after \\d+\\): ` +
    'the node did not start\\. Make it again from a whole copy .*exchange restore --log FILE --data <a new directory>.*"A damaged disk"\\)\\n$'))
  t.notMatch(r.stderr, /\n\s+at /, 'no stack')
})

t.test('a log that lost its newest entries, which its history read models hold: the same, exit 1', { timeout: 60_000 }, async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'short-log-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  await writeLog(dir, genesisLog(), Date.now())
  const metrics = await freePort()
  const args = ['sequencer', '--data', dir, '--chain', 'off', '--price-feed', 'off', '--tick-ms', '50', '--port', String(await freePort()),
    '--replication-port', String(await freePort()), '--metrics-port', String(metrics)]
  const node = startExchange(args)
  t.teardown(() => node.kill())
  await node.waitFor((l) => l.msg === 'sequencer running')
  // Ticks every 50 ms, each its own write; stopped once the projections hold 40 entries past genesis.
  const held = await eventually(async () => (await scrapeGauges(metrics)).exchange_projections_written_seq ?? 0, (n) => n > genesisLog().length + 40)
  await node.kill('SIGTERM')
  // The last bytes of the log's newest write-ahead file changed: opening it drops its last record.
  damageWal(dir, (size) => size - 20)
  const r = await exchangeCli(args)
  t.equal(r.code, 1)
  t.match(r.stderr, new RegExp(`^exchange: the log in ${dir}/log is damaged \\(it ends at seq \\d+, but the history read models hold entries ` +
    'to \\d+: it lost entries it had written\\): the node did not start\\. Make it again from a whole copy .*"A damaged disk"\\)\\n$'))
  const [logEnd, projected] = /ends at seq (\d+).* to (\d+)/.exec(r.stderr)!.slice(1).map(Number)
  t.ok(logEnd! < projected! && projected! >= held, `the log ends at ${logEnd}, the projections at ${projected}`)
})

t.test('a data directory started without its gateway-secret: a warning counts the sessions whose keys it ends', { timeout: 60_000 }, async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'no-secret-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const now = Date.now()
  const session = (apiKey: string, expiresAt: number): Command => ({ type: 'CreateSession', account: ALICE, sub: 0, apiKey,
    permissions: ['TRADE'], expiresAt, nonce: expiresAt, signature: '0x' + 'ab'.repeat(65) })
  // One session live, one replaced by it (same sub-account): one to lose.
  await writeLog(dir, [...genesisLog(), session('a'.repeat(64), now + 3_600_000), session('b'.repeat(64), now + 7_200_000)], now)
  const said = 'a new gateway secret was made, but the log holds live sessions made under another: their API keys no longer verify ' +
    '(-1022) until they sign in again; to keep them, stop the node and put the kept gateway-secret back (docs/REPLICA.md, "Backup and restore")'
  const run = async (): Promise<Record<string, unknown> | undefined> => {
    const node = startExchange(['sequencer', '--data', dir, '--chain', 'off', '--price-feed', 'off', '--port', String(await freePort()),
      '--replication-port', String(await freePort()), '--metrics-port', String(await freePort())])
    t.teardown(() => node.kill())
    await node.waitFor((l) => l.msg === 'sequencer running')
    await node.kill('SIGTERM')
    return node.lines.find((l) => l.msg === said)
  }
  t.match(await run(), { level: 40, sessions: 1, file: path.join(dir, 'gateway-secret') }, 'the first start makes a secret, and says what it ends')
  t.equal(await run(), undefined, 'started again on the secret it made: nothing to say')
})
