// A real etcd for the fail-over tests: a single-member cluster on loopback ports, its data in
// a temporary directory, started and stopped by the test. Debian's etcd-server package (.ci/run
// installs it). Where it is not installed the tests that need it are skipped, saying so, except
// under EXCHANGE_REQUIRE_ETCD=1 (CI), where its absence fails them.

import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { freePort } from '../../replica/free-port.js'
import { reaped } from './reaper.js'
import { runs, skipWithout } from './requirements.js'

/**
 * The `--lease-ms` of the exchange processes in the fail-over tests. A leader that cannot renew
 * within it stops leading; on a loaded 2-core host (two test files, four exchange processes and
 * etcd at once) a 3 s lease lapsed while a sequencer was starting, so the tests allow twice that.
 * A killed leader is replaced after about this long.
 */
export const TEST_LEASE_MS = 6000

export interface Etcd {
  url: string
  child: ChildProcess
  stop(): Promise<void>
}

/** Why etcd cannot run here, or undefined when it can. */
export function etcdMissing(): string | undefined {
  return runs('etcd', ['--version']) ? undefined : 'etcd is not installed (apt-get install etcd-server)'
}

/**
 * The tap `skip` option for a test that needs etcd: false where it runs, the reason where it is
 * missing. Under EXCHANGE_REQUIRE_ETCD=1 (CI) a missing etcd throws instead, failing the file.
 */
export function etcdSkip(): string | false {
  return skipWithout(etcdMissing(), 'EXCHANGE_REQUIRE_ETCD')
}

export async function startEtcd(): Promise<Etcd> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'etcd-'))
  const [client, peer] = [await freePort(), await freePort()]
  const url = `http://127.0.0.1:${client}`
  const peerUrl = `http://127.0.0.1:${peer}`
  const child = reaped(spawn('etcd', ['--name', 'test', '--data-dir', dir, '--listen-client-urls', url, '--advertise-client-urls', url,
    '--listen-peer-urls', peerUrl, '--initial-advertise-peer-urls', peerUrl, '--initial-cluster', `test=${peerUrl}`,
    '--log-level', 'error'], { stdio: ['ignore', 'ignore', 'pipe'] }))
  let stderr = ''
  child.stderr!.on('data', (b: Buffer) => { stderr += b.toString() })
  const deadline = Date.now() + 20_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`etcd exited (${child.exitCode}): ${stderr}`)
    try {
      const res = await fetch(`${url}/v3/kv/range`, { method: 'POST', body: JSON.stringify({ key: 'AA==' }) })
      if (res.ok) break
    } catch { /* not listening yet */ }
    if (Date.now() > deadline) throw new Error(`etcd did not answer within 20 s: ${stderr}`)
    await new Promise((r) => setTimeout(r, 50))
  }
  return {
    url, child,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r))
        child.kill('SIGKILL')
        await exited
      }
      await rm(dir, { recursive: true, force: true })
    },
  }
}
