// Fail-over benchmark: how long commands go unacknowledged when the sequencer's process is
// killed, with automatic fail-over through a real etcd (docs/REPLICA.md). A sequencer with
// `--sync-replicas 1` and two standbys (`--etcd`, the default lease) on loopback; a client keeps
// commands in flight through whichever node etcd names. Each round SIGKILLs the leader, takes
// the times until a standby leads and until the first command is acknowledged again, then
// starts a new standby on a new data directory in the killed one's place. No peer: the figure
// to hold it against is the lease, which a dead leader's key outlives by design.

import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { EtcdKv } from '../bin/etcd.js'
import type { Command } from '../core/commands.js'
import { freePort } from '../replica/free-port.js'
import { IngressClient } from '../replica/ingress.js'
import { readLeader, type Leader } from '../replica/leadership.js'
import { etcdMissing, startEtcd } from '../test/helpers/etcd.js'
import { internalLink, scrapeGauges, startExchange, type Proc } from '../test/helpers/processes.js'
import { fixed, int, percentile, table, type Benchmark, type BenchSummary } from './lib/bench.js'

const ROUNDS = 3
/** The deployed default (bin/config.ts). */
const LEASE_MS = 3000
const IN_FLIGHT = 16
const SECRET = '5b'.repeat(32)
const ACCOUNT = '0x' + '6'.repeat(40)
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

interface Node { name: string; proc: Proc; dir: string; metrics: number }
interface Round { killed: string; next: string; electedMs: number; ackedMs: number; seqBefore: number }

export const benchmark: Benchmark = {
  name: 'failover',
  async run(out) {
    const missing = etcdMissing()
    if (missing !== undefined) {
      out(`failover: skipped, ${missing}`)
      return { bench: 'failover', skipped: missing }
    }
    const etcd = await startEtcd()
    const kv = new EtcdKv([etcd.url])
    const nodes: Node[] = []
    let n = 0
    const start = async (command: string[], extra: string[] = []): Promise<Node> => {
      const name = `n${n++}`
      const dir = await mkdtemp(path.join(os.tmpdir(), `failover-${name}-`))
      const metrics = await freePort()
      const proc = startExchange([...command, '--data', dir, '--node-id', name, '--replication-port', String(await freePort()),
        '--port', String(await freePort()), '--metrics-port', String(metrics), '--etcd', etcd.url, '--lease-ms', String(LEASE_MS),
        '--master-secret', SECRET, '--sync-replicas', '1', '--host', '127.0.0.1', '--log-level', 'warn', ...extra])
      const node = { name, proc, dir, metrics }
      nodes.push(node)
      return node
    }
    const leader = (): Promise<Leader | undefined> => readLeader(kv, '/exchange/').catch(() => undefined)
    try {
      await start(['sequencer'])
      await start(['replica', '--standby'])
      await start(['replica', '--standby'])
      while ((await leader()) === undefined) await sleep(50)

      // The client: commands in flight to whichever node leads, each acknowledgement's time kept.
      const acks: { at: number; seq: number }[] = []
      let stop = false
      let refs = 0
      const client = (async () => {
        while (!stop) {
          const l = await leader()
          const c = l && await IngressClient.connect(internalLink(SECRET), l.url).catch(() => undefined)
          if (!c) { await sleep(20); continue }
          let broken = false
          const inflight = new Set<Promise<void>>()
          while (!stop && !broken) {
            while (inflight.size < IN_FLIGHT) {
              const command: Command = { type: 'Deposit', account: ACCOUNT, sub: 0, asset: 'USDT', amount: 1_000_000, wallet: 'PERP', ref: `f-${refs++}` }
              const p: Promise<void> = c.submit(command).then((a) => { acks.push({ at: Date.now(), seq: a.seq }) }, () => { broken = true })
                .finally(() => inflight.delete(p))
              inflight.add(p)
            }
            await Promise.race([...inflight, sleep(50)])
            await new Promise((r) => setImmediate(r))
          }
          c.close()
          await Promise.all(inflight)
        }
      })()
      while (acks.length < 1000) await sleep(50)

      const rounds: Round[] = []
      for (let r = 0; r < ROUNDS; r++) {
        const l = (await leader())!
        const victim = nodes.find((x) => x.name === l.node)!
        await sleep(1000)
        const killedAt = Date.now()
        await victim.proc.kill('SIGKILL')
        // Acknowledgements already on the way arrive within this; any later one is the new leader's,
        // whose entries come after every acknowledged one.
        await sleep(200)
        const seqBefore = acks.reduce((m, a) => Math.max(m, a.seq), 0)
        let next: { node: string } | undefined
        while ((next = await leader()) === undefined || next.node === victim.name) await sleep(10)
        const electedMs = Date.now() - killedAt
        while (!acks.some((a) => a.at > killedAt && a.seq > seqBefore)) await sleep(5)
        const ackedMs = acks.find((a) => a.at > killedAt && a.seq > seqBefore)!.at - killedAt
        rounds.push({ killed: victim.name, next: next.node, electedMs, ackedMs, seqBefore })
        // A new standby in the killed one's place, caught up before the next round.
        const fresh = await start(['replica', '--standby'])
        const target = acks.at(-1)!.seq
        while (((await scrapeGauges(fresh.metrics).catch(() => ({} as Record<string, number>))).exchange_seq ?? 0) < target) await sleep(100)
      }
      stop = true
      await client

      out(`failover: the sequencer SIGKILLed ${ROUNDS} times with ${IN_FLIGHT} commands in flight; --sync-replicas 1, two standbys, lease ${int(LEASE_MS)} ms (etcd ${etcd.url})`)
      out('')
      for (const line of table(['round', 'killed', 'new leader', 'at seq', 'elected after ms', 'first ack after ms'],
        rounds.map((x, i) => [String(i + 1), x.killed, x.next, int(x.seqBefore), int(x.electedMs), int(x.ackedMs)]))) out(line)
      const sorted = Float64Array.from(rounds.map((x) => x.ackedMs)).sort()
      const p50 = percentile(sorted, 50)
      out('')
      out(`unacknowledged after a kill (median of ${ROUNDS}): ${int(p50)} ms, ${fixed(p50 / LEASE_MS, 2)} of the lease; ${int(acks.length)} commands acknowledged in all`)
      const summary: BenchSummary = { bench: 'failover', unavailableMsP50: Math.round(p50), unavailableMsMax: Math.round(sorted[sorted.length - 1]!),
        leaseMs: LEASE_MS, leaseRatio: Number(fixed(p50 / LEASE_MS, 2)) }
      return summary
    } finally {
      await Promise.all(nodes.map((x) => x.proc.kill('SIGKILL')))
      await Promise.all(nodes.map((x) => rm(x.dir, { recursive: true, force: true })))
      await etcd.stop()
    }
  },
}
