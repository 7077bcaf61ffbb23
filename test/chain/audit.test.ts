// Anchoring and the audit against a real sequencer (LevelDB log) and a real anvil: checkpoint
// roots reach the Vault, the audit passes on the honest log (in the data directory and as an
// exported file), and names the exact seq when an entry is altered, dropped, or rewritten
// with a consistent hash chain, or when an anchored root does not match.

import t from 'tap'
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Packr, unpackMultiple } from 'msgpackr'
import { formatUnits, Wallet, type Contract } from 'ethers'
import type { Command } from '../../core/commands.js'
import { DEFAULT_GENESIS, genesisCommands } from '../../core/genesis-spec.js'
import { RULES_VERSION } from '../../core/rules.js'
import { Anchorer, readAnchors } from '../../chain/anchor.js'
import { mined } from '../../chain/provider.js'
import { sessionDomain, SESSION_TYPES } from '../../gateway/session-signature.js'
import { chainHash, hex } from '../../replica/entry.js'
import { systemClock } from '../../replica/clock.js'
import { Level } from 'level'
import { keySeq, keySpaces } from '../../replica/level-keys.js'
import { LevelLogStore } from '../../replica/level-log.js'
import { createReplica } from '../../replica/replica.js'
import { wsNetwork } from '../../replica/ws-network.js'
import { runAudit } from '../../bin/audit.js'
import { exportLog } from '../../bin/export-log.js'
import { prove, verifyBalanceProof, type BalanceProof } from '../../bin/prove.js'
import { chainRig } from './rig.js'
import { exchangeCli } from '../helpers/processes.js'

const CHAIN_ID = 31337
const chain = await chainRig()
const dir = mkdtempSync(path.join(os.tmpdir(), 'audit-'))
t.teardown(async () => { await chain.close(); rmSync(dir, { recursive: true, force: true }) })

// A sequencer with a checkpoint every 10 entries, anchoring them.
const log = new LevelLogStore(path.join(dir, 'log'))
await log.open()
const replica = await createReplica({ log, network: wsNetwork, clock: systemClock, checkpointInterval: 10,
  role: { kind: 'sequencer', host: '127.0.0.1', port: 0, genesis: genesisCommands(DEFAULT_GENESIS) } })
const anchorer = (): Anchorer => new Anchorer({ provider: chain.provider, vault: chain.deployment.vault, operator: chain.operator,
  logHashAt: async (seq) => (seq <= log.lastSeq ? hex((await log.read(seq, seq))[0]!.hash) : undefined) })
const anchoring = anchorer()
replica.node.onCheckpoint((cp) => anchoring.offer(cp))
const submit = async (c: Command): Promise<void> => {
  const ack = await replica.sequencer!.submit(c)
  if (!ack.result.ok) throw new Error(`${c.type} refused: ${ack.result.code}`)
}
// Alice's deposits are real ones into the Vault: the audit holds every credit against them.
const ALICE = chain.wallet(1)
async function depositOnChain(units: number): Promise<string> {
  await chain.mint('USDT', ALICE.address, BigInt(units))
  return (await chain.deposit(ALICE, 'USDT', BigInt(units))).ref
}

/** Deposits until the log reaches `seq`; a wallet-signed session among them. */
async function grow(toSeq: number): Promise<void> {
  while (replica.node.state.seq < toSeq) {
    const i = replica.node.state.seq + 1
    if (i % 7 === 0) {
      const wallet = Wallet.createRandom()
      const now = Date.now()
      const request = { address: wallet.address, subAccount: 0, permissions: 'TRADE,USER_DATA', expiresAt: now + 3_600_000, nonce: now }
      const signature = await wallet.signTypedData(sessionDomain(CHAIN_ID), SESSION_TYPES, request)
      await submit({ type: 'CreateSession', account: wallet.address, sub: 0, apiKey: 'k'.repeat(60) + String(1000 + i),
        permissions: ['TRADE', 'USER_DATA'], expiresAt: request.expiresAt, nonce: now, signature: signature.toLowerCase() })
    } else {
      await submit({ type: 'Deposit', account: ALICE.address, sub: 0, asset: 'USDT', amount: 1_000_000 * i, wallet: 'SPOT',
        ref: await depositOnChain(1_000_000 * i) })
    }
  }
}

t.test('the newest checkpoint is anchored, once, and only forward', async (t) => {
  await grow(24)
  const first = await anchoring.post()
  t.match(first, { seq: 20, root: replica.node.roots.find((r) => r.seq === 20)!.root })
  t.equal(first!.logHash, '0x' + hex((await log.read(20, 20))[0]!.hash))
  t.equal(await anchoring.post(), undefined, 'nothing newer to anchor')
  await grow(45)
  t.match(await anchoring.post(), { seq: 40 })
  // A restarted anchorer offered an older or the same checkpoint sends nothing.
  const again = anchorer()
  again.offer({ seq: 30, root: replica.node.roots.find((r) => r.seq === 30)!.root })
  t.equal(await again.post(), undefined)
  again.offer({ seq: 40, root: replica.node.roots.find((r) => r.seq === 40)!.root })
  t.equal(await again.post(), undefined)
  const anchors = await readAnchors(chain.provider, chain.deployment.vault)
  t.same(anchors.map((a) => [a.seq, a.root]), [20, 40].map((seq) => [seq, replica.node.roots.find((r) => r.seq === seq)!.root]))
  await replica.stop()
  await log.close()
})

const audit = async (o: { data?: boolean; logFile?: string; anchors?: boolean; prefix?: boolean }): Promise<{ ok: boolean; lines: string[] }> => {
  const lines: string[] = []
  const ok = await runAudit({ dataDir: o.data ? dir : undefined, logFile: o.logFile, chainId: CHAIN_ID, out: (l) => lines.push(l), prefix: o.prefix,
    ...(o.anchors !== false ? { rpc: chain.anvil.url, vault: chain.deployment.vault } : {}) })
  return { ok, lines }
}
const exported = path.join(dir, 'log.msgpack')
const packr = new Packr({ useRecords: false })
type LogRecord = [Uint8Array, Uint8Array, Uint8Array]
/** The exported file's header and records (one per entry, records[i] is seq i + 1). */
const readExport = (): { header: unknown; records: LogRecord[] } => {
  const [header, ...records] = unpackMultiple(readFileSync(exported)) as [unknown, ...LogRecord[]]
  return { header, records }
}
const writeCopy = (name: string, header: unknown, records: LogRecord[]): string => {
  const file = path.join(dir, name)
  writeFileSync(file, Buffer.concat([header, ...records].map((r) => packr.pack(r))))
  return file
}
/** Record `seq` with its deposit amount changed (hash fields left as they were). */
const altered = (r: LogRecord): LogRecord => {
  const [seq, time, command] = packr.unpack(r[2]) as [number, number, { amount: number }]
  return [r[0], r[1], packr.pack([seq, time, { ...command, amount: command.amount + 1 }])]
}

t.test('the audit passes on the honest log, from the data directory and from an exported file', async (t) => {
  const fromData = await audit({ data: true })
  t.equal(fromData.ok, true, fromData.lines.join('\n'))
  t.match(fromData.lines.join('\n'), /entries +45 replayed, hash chain intact/)
  t.match(fromData.lines.join('\n'), /sessions +5 wallet signatures checked/)
  t.match(fromData.lines.join('\n'), /anchors +2 of 2 on 0x[0-9a-fA-F]{40} match/)
  // Every credit is a deposit into the Vault, and it holds what the ledger owes (nothing was withdrawn).
  const held = (await chain.token('USDT').balanceOf(chain.deployment.vault) as bigint).toString()
  t.ok(fromData.lines.includes(`  deposits       ${replica.node.state.depositRefs.size} credited, each a deposit into the Vault`), fromData.lines.join('\n'))
  t.ok(fromData.lines.includes('  withdrawals    0 marked paid, each paid by the Vault'))
  t.ok(fromData.lines.includes(`  reserves       USDT ${formatUnits(held, 6)} held, ${formatUnits(held, 6)} owed`))
  t.ok(fromData.lines.includes(`  rules          ${RULES_VERSION} from seq 1; this build applies up to ${RULES_VERSION}`),
    'the sequencer declared its rules first')
  t.equal(fromData.lines.at(-1), 'PASS')
  t.equal(await exportLog(dir, exported), 45)
  // A file there (another writer's, made after the command's first look) is never written over
  // without --force: the check is the file's creation itself.
  const before = readFileSync(exported)
  await t.rejects(exportLog(dir, exported), { message: `${exported} exists: export-log writes a new file (--force to write over it)` })
  t.same(readFileSync(exported), before, 'left as it was')
  t.equal(await exportLog(dir, exported, true), 45, '--force writes over it')
  const fromFile = await audit({ logFile: exported })
  t.equal(fromFile.ok, true, fromFile.lines.join('\n'))
  t.same(fromFile.lines.slice(1), fromData.lines.slice(1), 'the same report')
})

t.test('a balance proven against the anchored root, without the log: paths, anchor, tampering', async (t) => {
  const account = ALICE.address
  const proof = await prove({ dataDir: dir, account: account.toLowerCase(), sub: 0, seq: 40, checkpointInterval: 10 })
  t.equal(proof.seq, 40)
  t.equal(proof.account, account, 'the address as the state spells it')
  t.same(await prove({ logFile: exported, account, sub: 0, seq: 0, checkpointInterval: 10 }), proof,
    'from the exported file the same, its default seq the newest checkpoint')
  // Given the chain, the default is the newest anchor within the log, whatever the checkpoint interval
  // says (at 5, the newest checkpoint would be 45, which nothing anchored).
  const vault = chain.deployment.vault
  t.same(await prove({ dataDir: dir, account, sub: 0, seq: 0, checkpointInterval: 5, rpc: chain.anvil.url, vault }), { ...proof, vault },
    'with --rpc and --vault: at the anchored 40, naming the Vault')
  t.equal((await prove({ dataDir: dir, account, sub: 0, seq: 0, checkpointInterval: 5 })).seq, 45, 'without: the newest checkpoint')
  // Deposits of 1,000,000 × i units at every seq i up to 40 but the sessions' (multiples of 7) and genesis.
  const genesis = 1 + genesisCommands(DEFAULT_GENESIS).length
  let free = 0
  for (let i = genesis + 1; i <= 40; i++) if (i % 7 !== 0) free += 1_000_000 * i
  t.same(proof.leaves.map((l) => l.leaf), [`perpWallet|${account}|0|0|false|0||0`, `spot|${account}|0|USDT|${free}|0`])
  const lines: string[] = []
  const check = (p: BalanceProof, anchored = true): Promise<boolean> => {
    lines.length = 0
    return verifyBalanceProof({ proof: p, out: (l) => lines.push(l), ...(anchored ? { rpc: chain.anvil.url, vault: chain.deployment.vault } : {}) })
  }
  t.equal(await check(proof), true, lines.join('\n'))
  t.same(lines.slice(1), [`  included  perpWallet|${account}|0|0|false|0||0`, `  included  spot|${account}|0|USDT|${free}|0`,
    `  anchored on ${chain.deployment.vault} at seq 40`, 'PASS'])
  // One unit more in the balance: its path leads elsewhere.
  const richer = structuredClone(proof)
  richer.leaves[1]!.leaf = `spot|${account}|0|USDT|${free + 1}|0`
  t.equal(await check(richer), false)
  t.match(lines, [/balance proof/, /included/, /NOT INCLUDED {2}spot/, /anchored/, 'FAIL'])
  // Leaves that are not the named account's prove nothing about it, whatever their paths; nor do none.
  const someoneElse = Wallet.createRandom().address
  t.equal(await check({ ...proof, account: someoneElse }), false)
  t.match(lines, [/balance proof of 0x/, /NOT THIS ACCOUNT'S {2}perpWallet/, /NOT THIS ACCOUNT'S {2}spot/, /anchored/, 'FAIL'])
  t.equal(await check({ ...proof, sub: 1 }), false, 'nor another sub-account\'s')
  t.equal(await check({ ...proof, leaves: [] }), false)
  t.ok(lines.includes('  NO LEAVES: the proof proves no balance'))
  lines.length = 0
  t.equal(await verifyBalanceProof({ proof, out: (l) => lines.push(l), expect: { account: someoneElse, sub: 0 } }), false)
  t.ok(lines.includes(`  NOT YOURS: the keys are ${someoneElse} sub-account 0`), 'fetched with keys: the keys\' wallet\'s or nothing')
  t.equal(await verifyBalanceProof({ proof, out: () => {}, expect: { account: account.toLowerCase(), sub: 0 } }), true)
  const { root: _root, ...rootless } = proof
  await t.rejects(verifyBalanceProof({ proof: rootless as BalanceProof, out: () => {} }),
    { name: 'OperatorError', message: 'not a balance proof (perp-exchange-balance-proof, version 1 or 2): seq, root or logHash' })
  // A root the Vault never anchored: the paths hold, the anchor does not.
  const unanchored = await prove({ dataDir: dir, account, sub: 0, seq: 45, checkpointInterval: 10 })
  t.equal(await check(unanchored, false), true, 'alone the paths lead to its root')
  t.equal(await check(unanchored), false)
  t.ok(lines.includes(`  NO ANCHOR at seq 45 on ${chain.deployment.vault}`))
  // Checked against an address that holds no contract: said so, not a decoding error.
  const nowhere = '0x' + '12'.repeat(20)
  t.equal(await verifyBalanceProof({ proof, out: (l) => lines.push(l), rpc: chain.anvil.url, vault: nowhere }), false)
  t.ok(lines.includes(`  NO VAULT at ${nowhere}: no contract there on this chain`))
  // A proof that names its Vault (as a running node's does) needs only --rpc; --vault still decides.
  lines.length = 0
  t.equal(await verifyBalanceProof({ proof: { ...proof, vault: chain.deployment.vault }, out: (l) => lines.push(l), rpc: chain.anvil.url }), true)
  t.match(lines, [/balance proof/, /included/, /included/, `  the Vault the proof names: ${chain.deployment.vault} (give --vault to check against another)`,
    `  anchored on ${chain.deployment.vault} at seq 40`, 'PASS'])
  lines.length = 0
  t.equal(await verifyBalanceProof({ proof: { ...proof, vault: nowhere }, out: (l) => lines.push(l), rpc: chain.anvil.url, vault: chain.deployment.vault }), true)
  t.ok(lines.includes(`  the proof names the Vault ${nowhere}; checked against --vault`))
  // From the command line, as a user would: the default seq is the newest checkpoint, 40.
  const file = path.join(dir, 'proof.json')
  const proved = await exchangeCli(['prove', '--data', dir, '--account', account, '--checkpoint-interval', '10', '--out', file])
  t.same([proved.code, proved.stdout], [0, ''])
  t.equal((JSON.parse(readFileSync(file, 'utf8')) as BalanceProof).seq, 40)
  const verified = await exchangeCli(['verify-proof', '--proof', file, '--rpc', chain.anvil.url, '--vault', chain.deployment.vault])
  t.equal(verified.code, 0)
  t.equal(verified.stdout.trim().split('\n').at(-1), 'PASS')
})

t.test('an altered entry fails the audit at its seq', async (t) => {
  const { header, records } = readExport()
  records[14] = altered(records[14]!)
  const r = await audit({ logFile: writeCopy('altered.msgpack', header, records) })
  t.equal(r.ok, false)
  t.match(r.lines, [/^audit/, /hash chain BROKEN/])
  t.equal(r.lines.find((l) => l.startsWith('MISMATCH')), 'MISMATCH at seq 15: ' +
    `the entry's bytes do not hash to its hash ${hex(records[14]![1])}: the entry was altered`)
  t.equal(r.lines.at(-1), 'FAIL: 1 finding(s), first at seq 15')
})

t.test('a dropped entry fails the audit at its seq', async (t) => {
  const { header, records } = readExport()
  records.splice(32, 1)
  const r = await audit({ logFile: writeCopy('dropped.msgpack', header, records) })
  t.equal(r.ok, false)
  t.equal(r.lines.find((l) => l.startsWith('MISMATCH')), 'MISMATCH at seq 33: entry 33 is missing (the next one is 34)')
})

t.test('a damaged tail in a stopped node\'s log fails the audit, and is left as found', async (t) => {
  const copy = mkdtempSync(path.join(os.tmpdir(), 'audit-tail-'))
  t.teardown(() => rmSync(copy, { recursive: true, force: true }))
  cpSync(path.join(dir, 'log'), path.join(copy, 'log'), { recursive: true })
  // One byte of the newest batch flipped, as a disk that changed what LevelDB wrote leaves it.
  const db = new Level<Uint8Array, Uint8Array>(path.join(copy, 'log'), { keyEncoding: 'view', valueEncoding: 'view' })
  const { log: batches } = keySpaces(db)
  const [key, value] = (await batches.iterator({ reverse: true, limit: 1 }).all())[0]!
  const damaged = Uint8Array.from(value)
  damaged[damaged.length - 5]! ^= 0xff
  await batches.put(key, damaged)
  const keys = (await batches.keys().all()).length
  await db.close()
  const first = keySeq(key)
  for (const round of ['first', 'second']) {
    const lines: string[] = []
    t.equal(await runAudit({ dataDir: copy, chainId: CHAIN_ID, out: (l) => lines.push(l) }), false, `${round} audit`)
    t.match(lines, [/^audit/, /entries +\d+ replayed, hash chain BROKEN/])
    t.match(lines.find((l) => l.startsWith('MISMATCH')), new RegExp(`^MISMATCH at seq ${first}: the log cannot be read at entry ${first}: ` +
      `log corrupt at seq ${first}: the log's tail from here \\(1 batch, 1 entry\\) does not hold: .*left as found`), round)
  }
  const after = new Level<Uint8Array, Uint8Array>(path.join(copy, 'log'), { keyEncoding: 'view', valueEncoding: 'view' })
  t.equal((await keySpaces(after).log.keys().all()).length, keys, 'the audit deleted nothing')
  await after.close()
  // The other tools that read a log say so in one line.
  const replayed = await exchangeCli(['replay', copy])
  t.equal(replayed.code, 1)
  t.match(replayed.stderr, new RegExp(`^exchange: log corrupt at seq ${first}: the log's tail from here .*\\n$`))
})

t.test('a log rewritten with a consistent hash chain fails at the first anchor after the change', async (t) => {
  const { header, records } = readExport()
  records[14] = altered(records[14]!)
  for (let i = 14; i < records.length; i++) {
    const prev = records[i - 1]![1]
    records[i] = [prev, chainHash(prev, records[i]![2]), records[i]![2]]
  }
  const withoutAnchors = await audit({ logFile: writeCopy('rewritten.msgpack', header, records), anchors: false })
  t.equal(withoutAnchors.ok, true, 'alone the file is self-consistent')
  const r = await audit({ logFile: path.join(dir, 'rewritten.msgpack') })
  t.equal(r.ok, false)
  // The anchors catch it, and the money check names the entry: a credit the Vault's deposit does not back.
  t.match(r.lines.filter((l) => l.startsWith('MISMATCH')), [
    new RegExp(`^MISMATCH at seq 15: 15000001 units of USDT credited to ${ALICE.address} sub-account 0 \\(ref 0x[0-9a-f]{64}:\\d+\\), but the Vault's deposit is for 15000000 units$`),
    /^MISMATCH at seq 20: anchored root 0x[0-9a-f]{64} but the log gives 0x[0-9a-f]{64}$/, /^MISMATCH at seq 40: anchored root/,
    /^MISMATCH at seq 45: the Vault holds \d+ token units of USDT \(0x[0-9a-fA-F]{40}\), but the ledger owes \d+$/])
  t.equal(r.lines.filter((l) => l.startsWith('MISMATCH')).length, 4)
})

t.test('a session whose wallet signature does not verify fails the audit at its seq', async (t) => {
  const { header, records } = readExport()
  const [seq, time, command] = packr.unpack(records[13]![2]) as [number, number, { type: string; account: string; signature: string }]
  t.equal(command.type, 'CreateSession')
  // Another wallet's signature over the same request: well-formed, but not the account's.
  const forged = await Wallet.createRandom().signTypedData(sessionDomain(CHAIN_ID), SESSION_TYPES,
    { address: command.account, subAccount: 0, permissions: 'TRADE,USER_DATA', expiresAt: 1, nonce: 1 })
  records[13] = [records[13]![0], records[13]![1], packr.pack([seq, time, { ...command, signature: forged.toLowerCase() }])]
  for (let i = 13; i < records.length; i++) {
    const prev = records[i - 1]![1]
    records[i] = [prev, chainHash(prev, records[i]![2]), records[i]![2]]
  }
  const r = await audit({ logFile: writeCopy('forged.msgpack', header, records), anchors: false })
  t.equal(r.ok, false)
  t.same(r.lines.filter((l) => l.startsWith('MISMATCH')),
    [`MISMATCH at seq 14: session ${'k'.repeat(60)}1014 is not signed by ${command.account}`])
})

t.test('a declaration of rules newer than this build stops the audit there, naming the build it needs', async (t) => {
  const { header, records } = readExport()
  // Entries a newer build would write: its declaration, then a deposit.
  const last = packr.unpack(records.at(-1)![2]) as [number, number, Command]
  const newer: Command[] = [{ type: 'SetRules', version: RULES_VERSION + 1 },
    { type: 'Deposit', account: '0x' + 'a'.repeat(40), sub: 0, asset: 'USDT', amount: 1, wallet: 'SPOT', ref: 'after-the-upgrade' }]
  for (const [i, command] of newer.entries()) {
    const prev = records.at(-1)![1]
    const body = packr.pack([last[0] + 1 + i, last[1] + 1 + i, command])
    records.push([prev, chainHash(prev, body), body])
  }
  const r = await audit({ logFile: writeCopy('newer-rules.msgpack', header, records), anchors: false })
  t.equal(r.ok, false)
  t.ok(r.lines.includes('  entries        45 replayed (stopped at entry 46: its rules need a newer build), hash chain intact'),
    'the replay stops before the declaration')
  t.same(r.lines.filter((l) => l.startsWith('MISMATCH')), [`MISMATCH at seq 46: entry 46 declares rules ${RULES_VERSION + 1}; ` +
    `this build applies rules up to ${RULES_VERSION}: replay it with a build of rules ${RULES_VERSION + 1} or later`])
})

t.test('without --vault: the Vault the log declares, or an operator error saying there is none', async (t) => {
  const lines: string[] = []
  const audit = (o: { dataDir?: string; logFile?: string }): Promise<boolean> => runAudit({ ...o, rpc: chain.anvil.url, chainId: CHAIN_ID, out: (l) => lines.push(l) })
  // This log's sequencer ran without chain services: nothing declared.
  await t.rejects(audit({ dataDir: dir }), { name: 'OperatorError',
    message: 'the log declares no chain (a log from before rules 2, or a node without one): give --vault' })
  const { header, records } = readExport()
  const last = packr.unpack(records.at(-1)![2]) as [number, number, Command]
  const body = packr.pack([last[0] + 1, last[1] + 1, { type: 'DeclareChain', chainId: CHAIN_ID, vault: 'nowhere', tokens: [] }])
  records.push([records.at(-1)![1], chainHash(records.at(-1)![1], body), body])
  await t.rejects(audit({ logFile: writeCopy('bad-declaration.msgpack', header, records) }), { name: 'OperatorError',
    message: 'the log\'s chain declaration names no Vault address ("nowhere"): give --vault' })
  t.same(lines, [], 'nothing audited')
})

t.test('an anchored root that does not match fails the audit at that seq', async (t) => {
  const bogus = '0x' + 'ee'.repeat(32)
  await chain.operator.run(async (s) => mined(await (chain.vault.connect(s) as Contract).anchor(44, bogus, bogus)))
  const r = await audit({ data: true })
  t.equal(r.ok, false)
  t.match(r.lines.join('\n'), /anchors +2 of 3 on/)
  t.match(r.lines.filter((l) => l.startsWith('MISMATCH')), [new RegExp(`^MISMATCH at seq 44: anchored root ${bogus} but the log gives 0x[0-9a-f]{64}$`)])
  t.equal(r.lines.filter((l) => l.startsWith('MISMATCH')).length, 1)
  // seq 44 is not the last entry; an anchor past the log's end is a finding too.
  await chain.operator.run(async (s) => mined(await (chain.vault.connect(s) as Contract).anchor(50, bogus, bogus)))
  t.match((await audit({ data: true })).lines.filter((l) => l.startsWith('MISMATCH')).at(-1), 'MISMATCH at seq 50: anchored, but the log ends at 45')
  // Unless the auditor says the log is a prefix of one still growing (exported from a running exchange).
  const prefix = await audit({ data: true, prefix: true })
  t.same(prefix.lines.filter((l) => l.startsWith('MISMATCH')).map((l) => l.slice(0, 20)), ['MISMATCH at seq 44: '], 'only the wrong root')
  t.match(prefix.lines.join('\n'), /anchors +2 of 3 on 0x[0-9a-fA-F]{40} match; 1 after the log's end not checked \(--prefix\)/)
})

t.test('the CLI: export-log writes the file, audit exits non-zero naming the seq', async (t) => {
  const file = path.join(dir, 'cli.msgpack')
  const exported = await exchangeCli(['export-log', '--data', dir, '--out', file])
  t.same([exported.code, exported.stdout], [0, `exported 45 entries to ${file}\n`])
  const passing = await exchangeCli(['audit', '--log', file])
  t.equal(passing.code, 0)
  t.equal(passing.stdout.trim().split('\n').at(-1), 'PASS')
  const failing = await exchangeCli(['audit', '--data', dir, '--rpc', chain.anvil.url, '--vault', chain.deployment.vault])
  t.equal(failing.code, 1)
  t.match(failing.stdout, /^MISMATCH at seq 44: anchored root 0x(ee){32} but/m)
  t.match(failing.stdout, /^FAIL: 2 finding\(s\), first at seq 44$/m)
  const asPrefix = await exchangeCli(['audit', '--data', dir, '--rpc', chain.anvil.url, '--vault', chain.deployment.vault, '--prefix'])
  t.equal(asPrefix.code, 1)
  t.match(asPrefix.stdout, /^FAIL: 1 finding\(s\), first at seq 44$/m, '--prefix: the anchor past the end is no finding')
})
