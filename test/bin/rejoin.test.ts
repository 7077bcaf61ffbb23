// `exchange replica --etcd` restarts its node in place when the log parts from the leader's
// (DivergedError), so the start rewinds it; any other fault stops the process as before, and a
// restart that keeps failing to rewind stops it too rather than looping.

import t from 'tap'
import { runRejoining } from '../../bin/rejoin.js'
import { DivergedError } from '../../replica/rewind.js'
import { ManualClock } from '../helpers/fake-clock.js'

const quiet = { info() {}, warn() {}, error() {} }
const tick = (): Promise<void> => new Promise((r) => setImmediate(r))

/** A node start that records its runs; each run's fault callback is kept to fire by hand. */
function starts() {
  const runs: { onFault: (err: Error) => void; stopped: boolean; drained: boolean }[] = []
  const start = async (onFault: (err: Error) => void) => {
    const run = { onFault, stopped: false, drained: false }
    runs.push(run)
    return { drain() { run.drained = true }, async stop() { run.stopped = true } }
  }
  return { runs, start }
}

t.test('a divergence restarts the node; other faults are fatal', async (t) => {
  const { runs, start } = starts()
  const fatal: Error[] = []
  const running = await runRejoining(start, new ManualClock(), quiet, (e) => fatal.push(e))
  runs[0]!.onFault(new DivergedError('parted'))
  await tick()
  t.equal(runs.length, 2, 'started again')
  t.ok(runs[0]!.stopped, 'after the first run stopped')
  t.same(fatal, [])
  runs[1]!.onFault(new Error('disk full'))
  t.same(fatal.map((e) => e.message), ['disk full'], 'anything else stops the process')
  await running.stop()
  t.ok(runs[1]!.stopped)
})

t.test('a node draining when it restarts to rewind is draining after the restart too', async (t) => {
  const { runs, start } = starts()
  const running = await runRejoining(start, new ManualClock(), quiet, () => {})
  running.drain()
  t.ok(runs[0]!.drained)
  runs[0]!.onFault(new DivergedError('parted'))
  await tick()
  t.ok(runs[1]!.drained, 'its load balancer keeps it out')
  await running.stop()
})

t.test('a divergence during a start restarts once the start is done', async (t) => {
  const runs: ((err: Error) => void)[] = []
  let release: () => void = () => {}
  const start = async (onFault: (err: Error) => void) => {
    runs.push(onFault)
    if (runs.length === 1) {
      onFault(new DivergedError('parted while starting'))
      await new Promise<void>((r) => { release = r })
    }
    return { drain() {}, async stop() {} }
  }
  const fatal: Error[] = []
  const done = runRejoining(start, new ManualClock(), quiet, (e) => fatal.push(e))
  await tick()
  t.equal(runs.length, 1, 'no second start while the first runs')
  release()
  await done
  await tick()
  t.equal(runs.length, 2, 'restarted after it')
  t.same(fatal, [])
})

t.test('more than three restarts within a minute stop the process', async (t) => {
  const { runs, start } = starts()
  const clock = new ManualClock()
  const fatal: Error[] = []
  await runRejoining(start, clock, quiet, (e) => fatal.push(e))
  for (let i = 0; i < 3; i++) {
    runs[i]!.onFault(new DivergedError('parted'))
    await tick()
    clock.advance(10_000)
  }
  t.equal(runs.length, 4)
  runs[3]!.onFault(new DivergedError('parted'))
  await tick()
  t.equal(runs.length, 4, 'not restarted a fourth time')
  t.match(fatal.map((e) => e.message), [/parted \(3 restarts within a minute did not rewind it\)/])
  clock.advance(60_000)
  runs[3]!.onFault(new DivergedError('parted'))
  await tick()
  t.equal(runs.length, 5, 'a minute later it restarts again')
})
