// `npm run demo` end to end: the compiled demo starts its own exchange and chain, walks a new
// wallet through deposit, session, trades, withdrawal and audit, and exits 0; each step's
// outcome is in its output.

import t from 'tap'
import { execFile } from 'node:child_process'
import path from 'node:path'
import { promisify } from 'node:util'
import { DIST, NODE, NODE_ARGS } from '../helpers/paths.js'

t.test('the demo completes every step and the audit passes', { timeout: 180_000 }, async (t) => {
  const { stdout } = await promisify(execFile)(NODE, [...NODE_ARGS, path.join(DIST, 'bin', 'demo.js')], { timeout: 170_000 })
  const lines = stdout.split('\n')
  const steps = lines.filter((l) => /^\d+\. /.test(l)).map((l) => l.split(' ')[0])
  t.same(steps, ['1.', '2.', '3.', '4.', '5.', '6.', '7.', '8.', '9.'])
  t.match(stdout, /holds +1000\.0 USDT on chain/)
  t.match(stdout, /credited +1000 USDT, txId 0x[0-9a-f]{64}:\d+/)
  t.match(stdout, /futures +500\.00000000 USDT/)
  t.match(stdout, /bought +0\.005 at \d+\.\d \(order \d+, FILLED\)/)
  t.match(stdout, /sold +0\.005 at \d+\.\d \(order \d+, FILLED\)/)
  // What came back on chain is exactly what was withdrawn.
  const spot = /spot +([\d.]+) USDT/.exec(stdout)![1]
  t.match(stdout, new RegExp(`the wallet holds ${spot!.replace('.', '\\.')} USDT`))
  t.match(stdout, /anchors +([1-9]\d*) of \1 on/)
  t.match(stdout, /^ +PASS$/m)
  t.match(stdout, /Demo complete/)
})
