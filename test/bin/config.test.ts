// The standby, election, price-feed, CORS, proxy, readiness, drain, log-archive, URL and export options as an operator types them: `--standby` alone on
// a replica, a count of standbys on a sequencer, and each refused in words where it means nothing.

import t from 'tap'
import { loadConfig } from '../../bin/config.js'

t.test('--standby and --sync-replicas', async (t) => {
  t.equal(loadConfig(['replica', '--follow', 'ws://127.0.0.1:9090/replication', '--standby'], {}).standby, true)
  t.equal(loadConfig(['replica', '--follow', 'ws://127.0.0.1:9090/replication'], {}).standby, false, 'a plain follower by default')
  t.equal(loadConfig(['replica', '--follow', 'ws://127.0.0.1:9090/replication'], { EXCHANGE_STANDBY: 'yes' }).standby, true, 'or from the environment')
  t.equal(loadConfig(['sequencer', '--sync-replicas', '2'], {}).syncReplicas, 2)
  t.equal(loadConfig(['start'], {}).syncReplicas, 0, 'none by default')
  t.throws(() => loadConfig(['sequencer', '--standby'], {}), /--standby is for a replica/)
  t.throws(() => loadConfig(['replica', '--follow', 'ws://127.0.0.1:9090/replication', '--sync-replicas', '1'], {}), /--sync-replicas is for the sequencer/)
  t.throws(() => loadConfig(['sequencer', '--sync-replicas=17'], {}), /--sync-replicas must be an integer in \[0, 16\], got 17/)
  t.throws(() => loadConfig(['replica', '--follow', 'ws://x', '--standby=maybe'], {}), /--standby takes yes or no, got maybe/)
})

t.test('--etcd and the election flags', async (t) => {
  const etcd = ['--etcd', 'http://127.0.0.1:2379,http://10.0.0.2:2379']
  const seq = loadConfig(['sequencer', ...etcd, '--sync-replicas', '1', '--node-id', 'seq-1', '--lease-ms', '5000'], {})
  t.same(seq.election, { etcd: ['http://127.0.0.1:2379', 'http://10.0.0.2:2379'], cluster: 'exchange', nodeId: 'seq-1', leaseMs: 5000 })
  t.equal(loadConfig(['replica', ...etcd], {}).follow, '', 'a replica with --etcd needs no --follow: etcd says where')
  t.equal(loadConfig(['replica', ...etcd, '--standby', '--sync-replicas', '1'], {}).syncReplicas, 1, 'a standby with --etcd takes --sync-replicas (what it asks once it leads)')
  t.match(loadConfig(['replica', ...etcd, '--replication-port', '9191'], {}).election.nodeId, /^.+:9191$/, 'the node id defaults to host name and replication port')
  t.equal(loadConfig(['sequencer', ...etcd, '--sync-replicas', '1'], { EXCHANGE_CLUSTER: 'blue' }).election.cluster, 'blue')
  t.throws(() => loadConfig(['replica'], {}), /replica needs --follow .*, or --etcd <URL>/)
  t.throws(() => loadConfig(['sequencer', ...etcd], {}), /--etcd needs --sync-replicas 1 or more/, 'a leader that waits for no standby could not be replaced without loss')
  t.throws(() => loadConfig(['replica', ...etcd, '--standby'], {}), /--etcd needs --sync-replicas 1 or more/)
  t.throws(() => loadConfig(['replica', '--follow', 'ws://x', '--standby', '--sync-replicas', '1'], {}), /--sync-replicas is for the sequencer/, 'without --etcd a standby is never promoted by itself')
  t.throws(() => loadConfig(['sequencer', '--etcd', '127.0.0.1:2379', '--sync-replicas', '1'], {}), /--etcd wants client URLs like http:\/\/127.0.0.1:2379/)
  t.throws(() => loadConfig(['sequencer', ...etcd, '--sync-replicas', '1', '--cluster', 'a/b'], {}), /--cluster must be/)
  t.throws(() => loadConfig(['sequencer', ...etcd, '--sync-replicas', '1', '--node-id', 'x y'], {}), /--node-id must be/)
  t.throws(() => loadConfig(['sequencer', ...etcd, '--sync-replicas', '1', '--lease-ms', '1000'], {}), /--lease-ms must be an integer in \[2000, 60000\]/)
  t.throws(() => loadConfig(['audit', ...etcd], {}), /--etcd is for the sequencer, replicas and cluster/)
  t.same(loadConfig(['cluster', 'forget', 'S2', ...etcd], {}).args, ['forget', 'S2'], 'cluster forget names the node')
  t.throws(() => loadConfig(['cluster', 'status'], {}), /cluster needs --etcd/)
  t.throws(() => loadConfig(['cluster', 'drop', ...etcd], {}), /cluster takes status, forget <node>, or raise-epoch <term>/)
  t.same(loadConfig(['cluster', 'raise-epoch', '4512', ...etcd], {}).args, ['raise-epoch', '4512'])
  t.throws(() => loadConfig(['cluster', 'raise-epoch', ...etcd], {}), /cluster raise-epoch needs the log's newest term/)
  t.throws(() => loadConfig(['cluster', 'raise-epoch', '12x', ...etcd], {}), /cluster raise-epoch needs the log's newest term/)
  t.throws(() => loadConfig(['cluster', 'forget', ...etcd], {}), /cluster forget needs the node to forget/)
})

t.test('--price-feed: start runs one by default; a sequencer and a standby with --etcd when asked', async (t) => {
  const etcd = ['--etcd', 'http://127.0.0.1:2379', '--sync-replicas', '1']
  t.equal(loadConfig(['start'], {}).priceFeed.source, 'random', 'the embedded default has prices')
  t.equal(loadConfig(['start', '--price-feed', 'off'], {}).priceFeed.source, 'off')
  t.equal(loadConfig(['sequencer'], {}).priceFeed.source, 'off', 'a bare sequencer leaves prices to an external oracle')
  t.equal(loadConfig(['sequencer', '--price-feed', 'csv:prices.csv'], {}).priceFeed.source, 'csv:prices.csv')
  t.equal(loadConfig(['replica', ...etcd, '--standby'], { EXCHANGE_PRICE_FEED: 'random' }).priceFeed.source, 'random', 'a standby runs it once it leads')
  t.equal(loadConfig(['replica', '--follow', 'ws://x'], {}).priceFeed.source, 'off')
  t.throws(() => loadConfig(['replica', '--follow', 'ws://x', '--price-feed', 'random'], {}), /--price-feed on a replica is for a --standby with --etcd/)
  t.throws(() => loadConfig(['replica', '--follow', 'ws://x', '--standby', '--price-feed', 'random'], {}), /--price-feed on a replica is for a --standby with --etcd/,
    'without --etcd a standby never leads by itself')
  t.throws(() => loadConfig(['sequencer', '--price-feed', 'walk'], {}), /--price-feed must be random, off or csv:<file>/)
})

t.test('--cors-origins: any by default, a list, none; anything else refused in words', async (t) => {
  t.equal(loadConfig(['start'], {}).corsOrigins, '*')
  t.same(loadConfig(['replica', '--follow', 'ws://x', '--cors-origins', 'https://app.example.com,http://localhost:3000'], {}).corsOrigins,
    ['https://app.example.com', 'http://localhost:3000'])
  t.same(loadConfig(['start'], { EXCHANGE_CORS_ORIGINS: 'none' }).corsOrigins, [], 'or from the environment')
  t.throws(() => loadConfig(['start', '--cors-origins', 'app.example.com'], {}),
    /--cors-origins: not an origin: 'app.example.com' \(scheme:\/\/host\[:port\], no path; or '\*', or 'none'\)/)
})

t.test('--trust-proxy: none by default; addresses, ranges and names', async (t) => {
  t.same(loadConfig(['start'], {}).trustProxy, [])
  t.same(loadConfig(['replica', '--follow', 'ws://x', '--trust-proxy', '10.0.0.0/8,127.0.0.1'], {}).trustProxy, ['10.0.0.0/8', '127.0.0.1'])
  t.same(loadConfig(['start'], { EXCHANGE_TRUST_PROXY: 'loopback' }).trustProxy, ['loopback'])
  t.throws(() => loadConfig(['start', '--trust-proxy', 'nginx'], {}), /--trust-proxy: not an address, a CIDR range or loopback, linklocal, uniquelocal: 'nginx'/)
})

t.test('--ready-max-behind-ms: three tick intervals, at least 5 s, unless set', async (t) => {
  t.equal(loadConfig(['start'], {}).readyMaxBehindMs, 5000)
  t.equal(loadConfig(['start', '--tick-ms', '4000'], {}).readyMaxBehindMs, 12_000)
  t.equal(loadConfig(['replica', '--follow', 'ws://x', '--ready-max-behind-ms', '1500'], {}).readyMaxBehindMs, 1500)
  t.throws(() => loadConfig(['start', '--ready-max-behind-ms', '10'], {}), /--ready-max-behind-ms must be an integer in \[100, 86400000\], got 10/)
})

t.test('--drain-ms: none by default', async (t) => {
  t.equal(loadConfig(['start'], {}).drainMs, 0)
  t.equal(loadConfig(['replica', '--follow', 'ws://x'], { EXCHANGE_DRAIN_MS: '15000' }).drainMs, 15_000)
  t.throws(() => loadConfig(['start', '--drain-ms=-1'], {}), /--drain-ms must be an integer in \[0, 600000\]/)
})

t.test('restore: the exported file is named, and the data directory it rebuilds', async (t) => {
  t.throws(() => loadConfig(['restore', '--data', '/tmp/x'], {}), /restore needs --log <file>/)
  const c = loadConfig(['restore', '--log', 'backup.msgpack', '--data', '/tmp/x'], {})
  t.same([c.logFile, c.dataDir], ['backup.msgpack', '/tmp/x'])
})

t.test('--prune-interval-ms: hourly by default, 0 for never, nothing shorter than a second', async (t) => {
  t.equal(loadConfig(['start'], {}).pruneIntervalMs, 3_600_000)
  t.equal(loadConfig(['replica', '--follow', 'ws://x', '--prune-interval-ms', '0'], {}).pruneIntervalMs, 0)
  t.equal(loadConfig(['sequencer'], { EXCHANGE_PRUNE_INTERVAL_MS: '60000' }).pruneIntervalMs, 60_000, 'or from the environment')
  t.throws(() => loadConfig(['start', '--prune-interval-ms', '500'], {}), /--prune-interval-ms must be 0 \(never\) or at least 1000/)
  t.throws(() => loadConfig(['start', '--prune-interval-ms', '1h'], {}), /--prune-interval-ms must be an integer in \[0, 604800000\], got 1h/)
})

t.test('--chain-resend-ms: a minute by default, from a second to an hour', async (t) => {
  t.equal(loadConfig(['start'], {}).chainResendMs, 60_000)
  t.equal(loadConfig(['sequencer', '--rpc', 'http://x', '--chain-resend-ms', '15000'], {}).chainResendMs, 15_000)
  t.equal(loadConfig(['sequencer'], { EXCHANGE_CHAIN_RESEND_MS: '5000' }).chainResendMs, 5_000, 'or from the environment')
  t.throws(() => loadConfig(['start', '--chain-resend-ms', '500'], {}), /--chain-resend-ms must be an integer in \[1000, 3600000\], got 500/)
})

t.test('--log-keep, --log-archive and --catch-up-from: off by default, the archive in the data directory', async (t) => {
  t.same(loadConfig(['start', '--data', '/srv/x'], {}).logArchive, { keep: 0, dir: '/srv/x/log-archive' }, 'the log keeps everything by default')
  t.same(loadConfig(['replica', '--follow', 'ws://x', '--data', '/srv/x', '--log-keep', '1000000'], {}).logArchive, { keep: 1_000_000, dir: '/srv/x/log-archive' })
  t.same(loadConfig(['sequencer', '--data', '/srv/x'], { EXCHANGE_LOG_KEEP: '500', EXCHANGE_LOG_ARCHIVE: '/mnt/archive' }).logArchive,
    { keep: 500, dir: '/mnt/archive' }, 'or from the environment')
  t.throws(() => loadConfig(['start', '--log-keep', '1.5'], {}), /--log-keep must be an integer in \[0, \d+\], got 1.5/)
  t.throws(() => loadConfig(['start', '--log-keep', '10', '--checkpoint-interval', '0'], {}), /--log-keep needs checkpoints/)
  t.equal(loadConfig(['replica', '--follow', 'ws://x', '--catch-up-from', '/mnt/archive'], {}).catchUpFrom, '/mnt/archive')
  t.equal(loadConfig(['replica', '--follow', 'ws://x'], {}).catchUpFrom, '', 'none by default')
  t.throws(() => loadConfig(['sequencer', '--catch-up-from', '/mnt/archive'], {}), /--catch-up-from is for a replica/)
})

t.test('URL options: a value that is no URL of the right kind is named with its flag at start', async (t) => {
  t.equal(loadConfig(['replica', '--follow', 'wss://10.0.0.1:9090/replication'], {}).follow, 'wss://10.0.0.1:9090/replication')
  t.equal(loadConfig(['audit', '--follow', 'ws://127.0.0.1:9090', '--rpc', 'https://rpc.example.com/v1/key'], {}).rpcUrl, 'https://rpc.example.com/v1/key')
  t.equal(loadConfig(['session', '--api', 'http://127.0.0.1:8080', '--keys', 'k.json'], {}).proof.api, 'http://127.0.0.1:8080')
  // A replica given one started, restored its state, then died on `new URL` with a TypeError's stack.
  for (const command of ['replica', 'audit', 'export-log']) {
    t.throws(() => loadConfig([command, '--follow', 'notaurl', '--out', 'x'], {}),
      { message: '--follow must be a ws:// or wss:// URL, like ws://127.0.0.1:9090/replication; got notaurl' }, command)
  }
  t.throws(() => loadConfig(['replica', '--follow', 'http://127.0.0.1:9090/replication'], {}), /--follow must be a ws:\/\/ or wss:\/\/ URL/)
  t.throws(() => loadConfig(['replica'], { EXCHANGE_FOLLOW: '127.0.0.1:9090' }), /--follow must be .*; got 127\.0\.0\.1:9090/, 'from the environment too')
  t.throws(() => loadConfig(['audit', '--rpc', 'localhost:8545'], {}), { message: '--rpc must be a http:// or https:// URL, like http://127.0.0.1:8545; got localhost:8545' })
  t.throws(() => loadConfig(['verify-proof', '--api', 'ws://127.0.0.1:8080', '--keys', 'k'], {}), /--api must be a http:\/\/ or https:\/\/ URL/)
  t.throws(() => loadConfig(['session', '--api', '127.0.0.1:8080', '--keys', 'k'], {}), /--api must be .*; got 127\.0\.0\.1:8080/)
})

t.test('a negative number after a flag is its value, refused by its own check (parseArgs found it ambiguous)', async (t) => {
  t.throws(() => loadConfig(['start', '--drain-ms', '-1'], {}), { message: '--drain-ms must be an integer in [0, 600000], got -1' })
  t.throws(() => loadConfig(['start', '--order-limit-10s', '-5'], {}), { message: '--order-limit-10s must be an integer in [1, 1000000000], got -5' })
  t.equal(loadConfig(['withdraw-fees', '--amount', '-1', '--to', '0x' + '1'.repeat(40)], {}).feeWithdrawal.amount, '-1',
    'withdraw-fees refuses it in a line before it connects (test/bin/operator-errors.test.ts)')
  t.equal(loadConfig(['withdraw-fees', '--amount', '-.5', '--to', '0x' + '1'.repeat(40)], {}).feeWithdrawal.amount, '-.5')
  t.throws(() => loadConfig(['export-log', '--out', '--force'], {}), /argument is ambiguous/, 'a flag where a value should be is still not taken for one')
})

t.test('export-log --force: writes over an existing --out file; without it, refused', async (t) => {
  t.equal(loadConfig(['export-log', '--out', 'x'], {}).force, false)
  t.equal(loadConfig(['export-log', '--out', 'x', '--force'], {}).force, true)
  t.equal(loadConfig(['export-log', '--out', 'x'], { EXCHANGE_FORCE: 'yes' }).force, true, 'or from the environment')
  t.throws(() => loadConfig(['export-log', '--out', 'x', '--force=perhaps'], {}), /--force takes yes or no, got perhaps/)
})
