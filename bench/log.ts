// Log benchmark: durable sequencing throughput (sequencer + group commit with fsync + apply),
// commit latency at a fixed offered rate, replay throughput (LevelDB → decode → verify →
// apply), and follower lag on loopback at a fixed offered rate.

import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { Worker } from 'node:worker_threads'
import { apply } from '../core/apply.js'
import type { Command } from '../core/commands.js'
import { createState } from '../core/state.js'
import { systemClock } from '../replica/clock.js'
import { LevelLogStore } from '../replica/level-log.js'
import { ReplicaNode } from '../replica/node.js'
import { REPLICATION_PATH, ReplicationServer } from '../replica/replication.js'
import { Sequencer } from '../replica/sequencer.js'
import { wsNetwork } from '../replica/ws-network.js'
import { DEFAULT_WORKLOAD, generateWorkload } from '../sim/workload.js'
import { collectGarbage, fixed, int, percentile, table, type Benchmark, type BenchSummary } from './lib/bench.js'

const THROUGHPUT_COMMANDS = 400_000
const LATENCY_RATE = 50_000
const LAG_RATE = 20_000
const PACED_SECONDS = 3

interface Rig {
  dir: string
  log: LevelLogStore
  node: ReplicaNode
  sequencer: Sequencer
  close(): Promise<void>
}

async function rig(setup: Command[]): Promise<Rig> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-log-'))
  const log = new LevelLogStore(path.join(dir, 'log'))
  await log.open()
  const node = new ReplicaNode({ log })
  const sequencer = new Sequencer({ log, state: node.state, clock: systemClock,
    applyEntry: (e) => node.applyEntry(e), onCommit: (c) => node.committed(c) })
  sequencer.start()
  await Promise.all(setup.map((c) => sequencer.submit(c)))
  return { dir, log, node, sequencer, async close() { await sequencer.stop(); await log.close(); await rm(dir, { recursive: true, force: true }) } }
}

/** Submits as fast as the ingress queue allows; returns commands per second, durable. */
async function saturate(s: Sequencer, commands: Command[]): Promise<number> {
  const started = performance.now()
  const chunk = 20_000
  for (let i = 0; i < commands.length; i += chunk) {
    const acks = commands.slice(i, i + chunk).map((c) => s.submit(c))
    // Keep at most two chunks queued so the ingress bound is never the limit measured.
    if (i >= chunk) await acks[0]
    if (i + chunk >= commands.length) await Promise.all(acks)
  }
  return commands.length / ((performance.now() - started) / 1000)
}

/** Offers commands at `rate` per second for the given time; returns per-command ack latency (ms). */
async function paced(s: Sequencer, commands: Command[], rate: number, seconds: number): Promise<Float64Array> {
  const total = Math.min(commands.length, rate * seconds)
  const lat = new Float64Array(total)
  const acks: Promise<void>[] = []
  const started = performance.now()
  let sent = 0
  while (sent < total) {
    const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * rate))
    for (; sent < due; sent++) {
      const i = sent
      const t0 = performance.now()
      acks.push(s.submit(commands[i]!).then(() => { lat[i] = performance.now() - t0 }))
    }
    await new Promise((r) => setImmediate(r))
  }
  await Promise.all(acks)
  return lat.sort()
}

async function replayRate(log: LevelLogStore): Promise<number> {
  const state = createState()
  const started = performance.now()
  for await (const batch of log.readBatches(1)) for (const e of batch) apply(state, e)
  return state.seq / ((performance.now() - started) / 1000)
}

async function followerLag(setup: Command[], commands: Command[]): Promise<Float64Array> {
  const r = await rig(setup)
  const replication = new ReplicationServer({ log: r.log })
  r.node.onCommitted((c) => replication.publish(c))
  const listener = await wsNetwork.listen('127.0.0.1', 0, (conn) => replication.attach(conn))
  const fdir = await mkdtemp(path.join(os.tmpdir(), 'bench-follower-'))
  const worker = new Worker(new URL('./lib/follower-worker.js', import.meta.url),
    { workerData: { dir: fdir, url: listener.url + REPLICATION_PATH } })
  const next = (): Promise<Record<string, unknown>> => new Promise((res) => worker.once('message', res))
  await next()
  worker.postMessage({ waitSeq: r.log.lastSeq })
  await next()
  await paced(r.sequencer, commands, LAG_RATE, PACED_SECONDS)
  worker.postMessage({ waitSeq: r.log.lastSeq })
  await next()
  worker.postMessage({ stop: true })
  const done = await next()
  await worker.terminate()
  replication.close()
  await listener.close()
  await r.close()
  await rm(fdir, { recursive: true, force: true })
  const all = done.lagsMs as number[]
  return Float64Array.from(all.slice(Math.floor(all.length / 10))).sort()
}

async function run(out: (line: string) => void): Promise<BenchSummary> {
  const extra = LATENCY_RATE * PACED_SECONDS
  const w = generateWorkload({ ...DEFAULT_WORKLOAD, commands: THROUGHPUT_COMMANDS + extra })
  const head = w.stream.slice(0, THROUGHPUT_COMMANDS)
  const tail = w.stream.slice(THROUGHPUT_COMMANDS)

  const r = await rig(w.setup)
  collectGarbage()
  const durable = await saturate(r.sequencer, head)
  collectGarbage()
  const lat = await paced(r.sequencer, tail, LATENCY_RATE, PACED_SECONDS)
  await r.sequencer.stop()
  collectGarbage()
  const replay = await replayRate(r.log)
  const entries = r.log.lastSeq
  await r.close()
  collectGarbage()
  const lags = await followerLag(w.setup, head)

  const p = (a: Float64Array, q: number): string => fixed(percentile(a, q), 2)
  out(`log: sequencer + LevelDB group commit (sync) + core apply; ${int(entries)} entries`)
  out('')
  for (const line of table(['figure', 'value'], [
    ['durable commands/s (saturated)', int(durable)],
    [`commit latency p50 ms @ ${int(LATENCY_RATE)}/s`, p(lat, 50)],
    [`commit latency p99 ms @ ${int(LATENCY_RATE)}/s`, p(lat, 99)],
    ['replay entries/s (read + verify + apply)', int(replay)],
    [`follower lag p50 ms @ ${int(LAG_RATE)}/s`, p(lags, 50)],
    [`follower lag p99 ms @ ${int(LAG_RATE)}/s`, p(lags, 99)],
  ])) out(line)
  return {
    bench: 'log',
    durableCmdsPerSec: Math.round(durable),
    commitP99Ms: Number(p(lat, 99)),
    replayPerSec: Math.round(replay),
    lagP99Ms: Number(p(lags, 99)),
  }
}

export const benchmark: Benchmark = { name: 'log', run }
