// Log benchmark: durable sequencing throughput (sequencer + group commit with fsync + apply),
// commit latency at a fixed offered rate, replay throughput (LevelDB → decode → verify →
// apply) split into the log's part and the core's, and follower lag on loopback at a fixed
// offered rate.

import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { Worker } from 'node:worker_threads'
import { apply } from '../core/apply.js'
import type { Command } from '../core/commands.js'
import { LIMITS } from '../core/limits.js'
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
/** Offered at the lag rate before the measured seconds: the follower's thread starts cold. */
const LAG_WARMUP_SECONDS = 1

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

/**
 * Counts answers to submitted commands without holding on to them: a harness that kept every
 * answered promise (and its result) until the end kept tens of thousands of them alive across
 * collections, and measured its own garbage along with the log. A failed command fails the run.
 */
class Answers {
  private outstanding = 0
  private waiting: { upTo: number, resolve: () => void, reject: (e: Error) => void }[] = []
  private failed: Error | undefined

  track(ack: Promise<unknown>, then?: () => void): void {
    this.outstanding++
    ack.then(() => {
      then?.()
      this.outstanding--
      this.wake()
    }, (err: Error) => {
      this.failed ??= err
      this.outstanding--
      this.wake()
    })
  }

  /** Resolves once at most `upTo` answers are outstanding. */
  until(upTo: number): Promise<void> {
    if (this.failed !== undefined) return Promise.reject(this.failed)
    if (this.outstanding <= upTo) return Promise.resolve()
    return new Promise((resolve, reject) => this.waiting.push({ upTo, resolve, reject }))
  }

  private wake(): void {
    this.waiting = this.waiting.filter((w) => {
      if (this.failed !== undefined) w.reject(this.failed)
      else if (this.outstanding <= w.upTo) w.resolve()
      else return true
      return false
    })
  }
}

/** Submits as fast as the ingress queue allows; returns commands per second, durable. */
async function saturate(s: Sequencer, commands: Command[]): Promise<number> {
  const started = performance.now()
  // Two chunks unanswered keep the sequencer's whole window (two batches not yet durable) full
  // and as much again queued, so it never waits for the submitter, and the ingress bound is
  // never the limit measured.
  const chunk = 2 * LIMITS.batchMax
  const answers = new Answers()
  for (let i = 0; i < commands.length; i += chunk) {
    await answers.until(chunk)
    for (const c of commands.slice(i, i + chunk)) answers.track(s.submit(c))
  }
  await answers.until(0)
  return commands.length / ((performance.now() - started) / 1000)
}

/** Offers commands at `rate` per second for the given time; returns per-command ack latency (ms). */
async function paced(s: Sequencer, commands: Command[], rate: number, seconds: number): Promise<Float64Array> {
  const total = Math.min(commands.length, rate * seconds)
  const lat = new Float64Array(total)
  const answers = new Answers()
  const started = performance.now()
  let sent = 0
  while (sent < total) {
    const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * rate))
    for (; sent < due; sent++) {
      const i = sent
      const t0 = performance.now()
      answers.track(s.submit(commands[i]!), () => { lat[i] = performance.now() - t0 })
    }
    await new Promise((r) => setImmediate(r))
  }
  await answers.until(0)
  return lat.sort()
}

interface ReplayRates {
  /** Read + decode + verify + apply, entries/s: what a restart does. */
  replay: number
  /** Read + decode + verify alone (nothing applied): the log's part. */
  read: number
  /** Apply alone: the entries over the time spent inside apply during the replay, the core's part. */
  apply: number
}

async function replayRates(log: LevelLogStore): Promise<ReplayRates> {
  let started = performance.now()
  let n = 0
  for await (const batch of log.readBatches(1)) n += batch.length
  const read = n / ((performance.now() - started) / 1000)
  collectGarbage()
  const state = createState()
  let applying = 0
  started = performance.now()
  for await (const batch of log.readBatches(1)) {
    const t0 = performance.now()
    for (const e of batch) apply(state, e)
    applying += performance.now() - t0
  }
  const replay = state.seq / ((performance.now() - started) / 1000)
  return { replay, read, apply: state.seq / (applying / 1000) }
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
  const warm = LAG_RATE * LAG_WARMUP_SECONDS
  await paced(r.sequencer, commands.slice(0, warm), LAG_RATE, LAG_WARMUP_SECONDS)
  worker.postMessage({ waitSeq: r.log.lastSeq, forget: true })
  await next()
  await paced(r.sequencer, commands.slice(warm), LAG_RATE, PACED_SECONDS)
  worker.postMessage({ waitSeq: r.log.lastSeq })
  await next()
  worker.postMessage({ stop: true })
  const done = await next()
  await worker.terminate()
  replication.close()
  await listener.close()
  await r.close()
  await rm(fdir, { recursive: true, force: true })
  return Float64Array.from(done.lagsMs as number[]).sort()
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
  const replay = await replayRates(r.log)
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
    ['replay entries/s (read + verify + apply)', int(replay.replay)],
    ['  read + decode + verify alone, entries/s', int(replay.read)],
    ['  apply alone (its share of the replay), entries/s', int(replay.apply)],
    [`follower lag p50 ms @ ${int(LAG_RATE)}/s (after ${LAG_WARMUP_SECONDS} s warm-up)`, p(lags, 50)],
    [`follower lag p99 ms @ ${int(LAG_RATE)}/s`, p(lags, 99)],
  ])) out(line)
  return {
    bench: 'log',
    durableCmdsPerSec: Math.round(durable),
    commitP99Ms: Number(p(lat, 99)),
    replayPerSec: Math.round(replay.replay),
    replayReadPerSec: Math.round(replay.read),
    replayApplyPerSec: Math.round(replay.apply),
    lagP99Ms: Number(p(lags, 99)),
  }
}

export const benchmark: Benchmark = { name: 'log', run }
