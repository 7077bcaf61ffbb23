// Log benchmark: durable sequencing throughput (sequencer + group commit with fsync + apply),
// commit latency at a fixed offered rate, replay throughput (LevelDB → decode → verify →
// apply) split into the log's part and the core's, and follower lag on loopback at a fixed
// offered rate. Follower lag is printed two ways, both up to the follower having applied an
// entry: from the sequencer's commit, and from the sequencer's stamp, which adds the
// sequencer's own queueing and group commit (its commit latency, a figure of its own). The
// JSON's lagP99Ms carries the one from the commit, because replication lag is how far a
// follower trails what the sequencer has committed; lagFromStampP99Ms carries the other. The
// time until the follower's own write is synced is printed too. Last, the same sequencer with
// one synchronous standby (--sync-replicas 1, a follower in a worker thread with its own
// LevelDB log): durable throughput and commit latency when every acknowledgement waits for the
// standby's write as well, beside the plain sequencer's in the same run.

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
import { Sequencer, type Committed } from '../replica/sequencer.js'
import { wsNetwork } from '../replica/ws-network.js'
import { DEFAULT_WORKLOAD, generateWorkload } from '../sim/workload.js'
import { collectGarbage, fixed, int, percentile, table, type Benchmark, type BenchSummary } from './lib/bench.js'

const THROUGHPUT_COMMANDS = 400_000
/** Commands offered as fast as possible to the sequencer with a standby. */
const STANDBY_COMMANDS = 200_000
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

/**
 * A sequencer on a fresh LevelDB log, its setup applied. `replicated`: one that commits only what
 * its standby holds (`replicatedTo`), sending each durable batch to `onDurable`; the caller
 * submits the setup once the standby is there (`setup` then empty).
 */
async function rig(setup: Command[], replicated?: { onDurable(c: Committed): void }): Promise<Rig> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-log-'))
  const log = new LevelLogStore(path.join(dir, 'log'))
  await log.open()
  const node = new ReplicaNode({ log })
  const sequencer = new Sequencer({ log, state: node.state, clock: systemClock,
    applyEntry: (e) => node.applyEntry(e), onCommit: (c) => node.committed(c), replicated })
  sequencer.start()
  await Promise.all(setup.map((c) => sequencer.submit(c)))
  return { dir, log, node, sequencer, async close() { await sequencer.stop(); await log.close(); await rm(dir, { recursive: true, force: true }) } }
}

/** A follower in a worker thread (lib/follower-worker.ts) on a log of its own, replicating from `url`. */
async function followerWorker(url: string, standby: boolean) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-follower-'))
  const worker = new Worker(new URL('./lib/follower-worker.js', import.meta.url), { workerData: { dir, url, standby } })
  const next = (): Promise<Record<string, unknown>> => new Promise((res) => worker.once('message', res))
  await next()
  return {
    next,
    post: (m: object): void => worker.postMessage(m),
    async close(): Promise<Record<string, unknown>> {
      worker.postMessage({ stop: true })
      const done = await next()
      await worker.terminate()
      await rm(dir, { recursive: true, force: true })
      return done
    },
  }
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

/**
 * Offers commands at `rate` per second for the given time; returns per-command ack latency (ms).
 * The commands due are submitted together, then it sleeps until the next is due (a timer, at
 * least a millisecond): it must not spin, or on a two-core machine it takes a core from the
 * follower's thread and the stores' threads, as no network client would.
 */
async function paced(s: Sequencer, commands: Command[], rate: number, seconds: number): Promise<Float64Array> {
  const total = Math.min(commands.length, rate * seconds)
  const lat = new Float64Array(total)
  const answers = new Answers()
  const started = performance.now()
  let sent = 0
  while (sent < total) {
    // A machine too busy to keep up queues at most the ingress bound; the rest waits its turn.
    const room = LIMITS.ingressQueueMax - s.queued
    const due = Math.min(total, sent + room, Math.floor(((performance.now() - started) / 1000) * rate))
    for (; sent < due; sent++) {
      const i = sent
      const t0 = performance.now()
      answers.track(s.submit(commands[i]!), () => { lat[i] = performance.now() - t0 })
    }
    await new Promise((r) => setTimeout(r, 1))
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

interface Lags {
  /** Per batch: follower applied minus sequencer stamp of its newest entry, ms (whole ms). */
  fromStamp: Float64Array
  /** Per sequencer batch: follower applied minus sequencer commit, ms. */
  fromCommit: Float64Array
  /** Per batch: follower's own write synced minus sequencer stamp, ms (whole ms). */
  durable: Float64Array
}

async function followerLag(setup: Command[], commands: Command[]): Promise<Lags> {
  const r = await rig(setup)
  const replication = new ReplicationServer({ log: r.log })
  // [last seq, epoch ms] of every batch committed while measured.
  const commits: number[] = []
  let measuring = false
  r.node.onCommitted((c) => {
    if (measuring) commits.push(c.entries[c.entries.length - 1]!.seq, performance.timeOrigin + performance.now())
    replication.publish(c)
  })
  const listener = await wsNetwork.listen('127.0.0.1', 0, (conn) => replication.attach(conn))
  const f = await followerWorker(listener.url + REPLICATION_PATH, false)
  f.post({ waitSeq: r.log.lastSeq })
  await f.next()
  const warm = LAG_RATE * LAG_WARMUP_SECONDS
  await paced(r.sequencer, commands.slice(0, warm), LAG_RATE, LAG_WARMUP_SECONDS)
  f.post({ waitSeq: r.log.lastSeq, forget: true })
  await f.next()
  measuring = true
  await paced(r.sequencer, commands.slice(warm), LAG_RATE, PACED_SECONDS)
  f.post({ waitSeq: r.log.lastSeq })
  await f.next()
  const done = await f.close()
  replication.close()
  await listener.close()
  await r.close()
  return {
    fromStamp: Float64Array.from(done.lagsMs as number[]).sort(),
    fromCommit: fromCommit(commits, done.applied as number[]).sort(),
    durable: Float64Array.from(done.durableLagsMs as number[]).sort(),
  }
}

/**
 * The sequencer with one synchronous standby: durable commands/s when saturated, then commit
 * latency at the lag rate (each acknowledgement waits for the standby's own synced write).
 */
async function standbyFigures(): Promise<{ durable: number; lat: Float64Array }> {
  const w = generateWorkload({ ...DEFAULT_WORKLOAD, commands: STANDBY_COMMANDS + LAG_RATE * PACED_SECONDS })
  let replication: ReplicationServer | undefined
  const r = await rig([], { onDurable: (c) => replication!.publishDurable(c) })
  replication = new ReplicationServer({ log: r.log, syncReplicas: 1, onReplicated: (seq) => r.sequencer.replicatedTo(seq) })
  r.node.onCommitted((c) => replication!.publish(c))
  const listener = await wsNetwork.listen('127.0.0.1', 0, (conn) => replication!.attach(conn))
  const f = await followerWorker(listener.url + REPLICATION_PATH, true)
  await Promise.all(w.setup.map((c) => r.sequencer.submit(c)))
  collectGarbage()
  const durable = await saturate(r.sequencer, w.stream.slice(0, STANDBY_COMMANDS))
  collectGarbage()
  const lat = await paced(r.sequencer, w.stream.slice(STANDBY_COMMANDS), LAG_RATE, PACED_SECONDS)
  await f.close()
  replication.close()
  await listener.close()
  await r.close()
  return { durable, lat }
}

/** For each committed batch, the time from its commit to the follower applying the group holding its last entry. */
function fromCommit(commits: number[], applied: number[]): Float64Array {
  const out: number[] = []
  let j = 0
  for (let i = 0; i < commits.length; i += 2) {
    while (j < applied.length && applied[j]! < commits[i]!) j += 2
    if (j >= applied.length) break
    out.push(applied[j + 1]! - commits[i + 1]!)
  }
  return Float64Array.from(out)
}

/**
 * The workload cut into what each phase offers. Each phase's commands are taken out of here as
 * it starts, so none outlives its phase: the whole workload kept alive through the later phases
 * was about half the live heap after the saturated phase (~85 MB against ~41 MB without it),
 * which every full collection in those phases, pauses included, marked again.
 */
interface Phases {
  setup: Command[]
  saturated?: Command[]
  paced?: Command[]
  /** The first commands offered again to the follower (the sequencer figures' rig is gone by then). */
  lag: Command[]
}

function phases(): Phases {
  const w = generateWorkload({ ...DEFAULT_WORKLOAD, commands: THROUGHPUT_COMMANDS + LATENCY_RATE * PACED_SECONDS })
  return {
    setup: w.setup,
    saturated: w.stream.slice(0, THROUGHPUT_COMMANDS),
    paced: w.stream.slice(THROUGHPUT_COMMANDS),
    lag: w.stream.slice(0, LAG_RATE * (LAG_WARMUP_SECONDS + PACED_SECONDS)),
  }
}

/** Takes a phase's commands out of `p`, so they are garbage once the phase is over. */
function take(p: Phases, phase: 'saturated' | 'paced'): Command[] {
  const commands = p[phase]!
  p[phase] = undefined
  return commands
}

/** The sequencer's figures. */
async function sequencerFigures(p: Phases) {
  const r = await rig(p.setup)
  collectGarbage()
  const durable = await saturate(r.sequencer, take(p, 'saturated'))
  collectGarbage()
  const lat = await paced(r.sequencer, take(p, 'paced'), LATENCY_RATE, PACED_SECONDS)
  await r.sequencer.stop()
  collectGarbage()
  const replay = await replayRates(r.log)
  const entries = r.log.lastSeq
  await r.close()
  return { durable, lat, replay, entries }
}

async function run(out: (line: string) => void): Promise<BenchSummary> {
  const work = phases()
  const { durable, lat, replay, entries } = await sequencerFigures(work)
  collectGarbage()
  const lags = await followerLag(work.setup, work.lag)
  collectGarbage()
  const standby = await standbyFigures()

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
    [`follower lag from commit p50 ms @ ${int(LAG_RATE)}/s (after ${LAG_WARMUP_SECONDS} s warm-up)`, p(lags.fromCommit, 50)],
    [`follower lag from commit p99 ms @ ${int(LAG_RATE)}/s`, p(lags.fromCommit, 99)],
    [`follower lag from stamp p50 ms @ ${int(LAG_RATE)}/s`, p(lags.fromStamp, 50)],
    [`follower lag from stamp p99 ms @ ${int(LAG_RATE)}/s`, p(lags.fromStamp, 99)],
    ['  follower durable (own sync) from stamp p99 ms', p(lags.durable, 99)],
    ['with a synchronous standby: durable commands/s (saturated)', int(standby.durable)],
    [`  commit latency p50 ms @ ${int(LAG_RATE)}/s`, p(standby.lat, 50)],
    [`  commit latency p99 ms @ ${int(LAG_RATE)}/s`, p(standby.lat, 99)],
  ])) out(line)
  out(`ratio of durable commands/s with a standby to without: ${fixed(standby.durable / durable, 2)}`)
  return {
    bench: 'log',
    durableCmdsPerSec: Math.round(durable),
    commitP99Ms: Number(p(lat, 99)),
    replayPerSec: Math.round(replay.replay),
    replayReadPerSec: Math.round(replay.read),
    replayApplyPerSec: Math.round(replay.apply),
    lagP99Ms: Number(p(lags.fromCommit, 99)),
    lagFromStampP99Ms: Number(p(lags.fromStamp, 99)),
    standbyCmdsPerSec: Math.round(standby.durable),
    standbyCommitP99Ms: Number(p(standby.lat, 99)),
  }
}

export const benchmark: Benchmark = { name: 'log', run }
