// The chain services' poll loop: a failing step is retried at the same pace, but logged only at
// its 1st, 2nd, 4th, 8th… consecutive failure, and the first success after failures says so.

import t from 'tap'
import { pollLoop } from '../../chain/link.js'

t.test('failures are logged at powers of two, then the recovery; a new streak starts over', async (t) => {
  const lines: { level: string; msg: string; failures?: unknown; err?: unknown }[] = []
  const logger = {
    info: (o: object, msg: string) => lines.push({ level: 'info', msg, ...o }),
    warn: (o: object, msg: string) => lines.push({ level: 'warn', msg, ...o }),
    error: (o: object, msg: string) => lines.push({ level: 'error', msg, ...o }),
  }
  // Calls 1–9 fail (connection refused), 10–12 succeed, 13–15 fail, then all succeed.
  let calls = 0
  let done: () => void
  const finished = new Promise<void>((r) => { done = r })
  const step = async (): Promise<void> => {
    calls += 1
    if (calls === 20) done()
    if (calls <= 9 || (calls >= 13 && calls <= 15)) throw new Error(`connect ECONNREFUSED (call ${calls})`)
  }
  const loop = pollLoop(step, 1, logger, 'deposit watcher')
  await finished
  await loop.stop()
  t.same(lines, [
    { level: 'warn', msg: 'deposit watcher: poll failed, retrying', err: 'connect ECONNREFUSED (call 1)', failures: 1 },
    { level: 'warn', msg: 'deposit watcher: poll failed, retrying', err: 'connect ECONNREFUSED (call 2)', failures: 2 },
    { level: 'warn', msg: 'deposit watcher: poll failed, retrying', err: 'connect ECONNREFUSED (call 4)', failures: 4 },
    { level: 'warn', msg: 'deposit watcher: poll failed, retrying', err: 'connect ECONNREFUSED (call 8)', failures: 8 },
    { level: 'info', msg: 'deposit watcher: recovered', failures: 9 },
    { level: 'warn', msg: 'deposit watcher: poll failed, retrying', err: 'connect ECONNREFUSED (call 13)', failures: 1 },
    { level: 'warn', msg: 'deposit watcher: poll failed, retrying', err: 'connect ECONNREFUSED (call 14)', failures: 2 },
    { level: 'info', msg: 'deposit watcher: recovered', failures: 3 },
  ])
  t.ok(calls >= 20, 'every failure was retried')
})
