// The sequencer: results only after the batch is durable, overload refusal, ticks, time
// that never goes backwards, and a broken invariant stopping everything.

import t from 'tap'
import type { Command } from '../../core/commands.js'
import { createState } from '../../core/state.js'
import type { LogEntry } from '../../replica/entry.js'
import { ApplyGate } from '../../replica/apply-gate.js'
import { MemoryLogStore } from '../../replica/memory-log.js'
import { OverloadedError, Sequencer, StoppedError } from '../../replica/sequencer.js'
import { ManualClock } from '../helpers/fake-clock.js'

/** A memory log whose appends wait until the test opens the gate. */
class GatedLog extends MemoryLogStore {
  private gate: Promise<void> = Promise.resolve()
  private release: () => void = () => {}
  appends = 0
  close_(): void {
    this.gate = new Promise((r) => { this.release = r })
  }
  open_(): void { this.release() }
  override async append(entries: LogEntry[], committed?: number): Promise<void> {
    await this.gate
    this.appends++
    return super.append(entries, committed)
  }
}

const deposit = (n: number): Command => ({ type: 'Deposit', account: '0x' + '1'.repeat(40), sub: 0, asset: 'USDT',
  amount: 1, wallet: 'SPOT', ref: `r${n}` })
const asset: Command = { type: 'CreateAsset', asset: 'USDT', scale: 6 }

async function setup(o: { queueMax?: number; tickMs?: number; batchMax?: number; gate?: ApplyGate } = {}) {
  const log = new GatedLog()
  await log.open()
  const clock = new ManualClock()
  const state = createState()
  const s = new Sequencer({ log, state, clock, ingressQueueMax: o.queueMax, tickIntervalMs: o.tickMs, batchMax: o.batchMax, gate: o.gate })
  s.start()
  return { log, clock, state, s }
}

t.test('a submitter hears its result only after its batch is durable', async (t) => {
  const { log, s } = await setup()
  await s.submit(asset)
  log.close_()
  let heard = false
  const p = s.submit(deposit(1)).then((a) => { heard = true; return a })
  await new Promise((r) => setTimeout(r, 20))
  t.equal(heard, false, 'no answer while the write is pending')
  t.equal(log.lastSeq, 1, 'nothing durable yet')
  log.open_()
  const a = await p
  t.equal(a.seq, 2)
  t.ok(a.result.ok)
  t.equal(log.lastSeq, 2)
})

t.test('a full ingress queue refuses with OVERLOADED and keeps going', async (t) => {
  // One-entry batches: at most two entries are applied and not yet durable.
  const { log, s } = await setup({ queueMax: 3, batchMax: 1 })
  log.close_()
  const first = s.submit(asset) // taken into a batch and its write started at once
  await new Promise((r) => setTimeout(r, 5))
  const applied = s.submit(deposit(1)) // applied, waiting for the write in progress
  await new Promise((r) => setTimeout(r, 5))
  const waiting = [s.submit(deposit(2)), s.submit(deposit(3)), s.submit(deposit(4))]
  const refused = await s.submit(deposit(5)).then(() => null, (e: Error) => e)
  t.ok(refused instanceof OverloadedError, 'the fourth waiting command is refused')
  t.equal((refused as OverloadedError).code, 'OVERLOADED')
  t.equal(log.appends, 0, 'nothing is durable yet')
  log.open_()
  const acks = await Promise.all([first, applied, ...waiting])
  t.same(acks.map((a) => a.seq), [1, 2, 3, 4, 5], 'everything accepted is sequenced in order')
})

t.test('while the apply gate is held nothing new is applied; the queue fills, then refuses; released, all of it goes through in order', async (t) => {
  const gate = new ApplyGate()
  const { state, s } = await setup({ queueMax: 3, gate })
  await s.submit(asset)
  gate.hold()
  const waiting = [s.submit(deposit(1)), s.submit(deposit(2)), s.submit(deposit(3))]
  const refused = await s.submit(deposit(4)).then(() => null, (e: Error) => e)
  t.ok(refused instanceof OverloadedError, 'past the ingress bound: OVERLOADED')
  await new Promise((r) => setTimeout(r, 20))
  t.equal(state.seq, 1, 'nothing applied while held')
  t.equal(s.queued, 3, 'three waiting')
  gate.release()
  const acks = await Promise.all(waiting)
  t.same(acks.map((a) => a.seq), [2, 3, 4], 'sequenced in order once released')
  t.equal(state.seq, 4)
  t.equal(gate.holds, 1)
})

t.test('a sequencer stopped while its gate is held rejects what waits', async (t) => {
  const gate = new ApplyGate()
  const { s } = await setup({ gate })
  gate.hold()
  const waiting = s.submit(asset).then(() => null, (e: Error) => e)
  await s.stop()
  t.ok(await waiting instanceof StoppedError)
})

t.test('batches applied while a write syncs go out together in the next write', async (t) => {
  const { log, s } = await setup()
  await s.submit(asset)
  log.close_()
  const first = s.submit(deposit(1)) // its write waits at the gate
  await new Promise((r) => setTimeout(r, 5))
  const later: Promise<unknown>[] = []
  for (let turn = 0; turn < 3; turn++) { // three turns of the event loop, three applied batches
    later.push(s.submit(deposit(10 + turn)), s.submit(deposit(20 + turn)))
    await new Promise((r) => setTimeout(r, 2))
  }
  const appendsBefore = log.appends
  log.open_()
  await Promise.all([first, ...later])
  t.equal(log.appends - appendsBefore, 2, 'the write in progress, then one write for the six behind it')
  t.equal(log.lastSeq, 8)
})

t.test('ticks are injected at the cadence and time never goes backwards', async (t) => {
  const { log, clock, s } = await setup({ tickMs: 100 })
  await s.submit(asset)
  clock.advance(250)
  await new Promise((r) => setTimeout(r, 10))
  clock.time -= 1000 // the wall clock steps back
  await s.submit(deposit(1))
  const entries = await log.read(1)
  t.same(entries.map((e) => e.command.type), ['CreateAsset', 'Tick', 'Tick', 'Deposit'])
  for (let i = 1; i < entries.length; i++) t.ok(entries[i]!.time >= entries[i - 1]!.time, `time at ${i + 1} not before ${i}`)
  await s.stop()
})

t.test('an exception from apply stops the sequencer and rejects everyone', async (t) => {
  const log = new MemoryLogStore()
  await log.open()
  const state = createState()
  let fatal: Error | null = null
  const s = new Sequencer({ log, state, clock: new ManualClock(), onFatal: (e) => { fatal = e },
    applyEntry: () => { throw new Error('invariant broken') } })
  const err = await s.submit(asset).then(() => null, (e: Error) => e)
  t.ok(err instanceof StoppedError)
  t.match(String(fatal), /invariant broken/)
  t.equal(log.lastSeq, 0, 'nothing was written')
  const after = await s.submit(asset).then(() => null, (e: Error) => e)
  t.ok(after instanceof StoppedError, 'later commands are refused')
})
