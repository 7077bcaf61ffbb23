// Ports for processes to bind (replica/free-port.ts): below the ephemeral range, free when
// picked, and claimed on the machine for an hour, so a port a restarting node frees for a moment
// is not handed to another process meanwhile.

import t from 'tap'
import { utimesSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import net from 'node:net'
import { claim, freePort } from '../../replica/free-port.js'

t.test('picks are free, below the ephemeral range, and never the same twice', async (t) => {
  const picks = await Promise.all(Array.from({ length: 20 }, () => freePort()))
  t.equal(new Set(picks).size, 20)
  for (const p of picks) t.ok(p >= 20_000 && p <= 32_767, `${p}`)
  const s = net.createServer()
  await new Promise<void>((resolve) => s.listen(picks[0], '127.0.0.1', () => resolve()))
  t.pass('the pick binds')
  s.close()
})

t.test('a port claimed within the hour is not claimed again; an older claim is taken over', async (t) => {
  // A port of the range no pick above took (they are claimed now).
  let port = 20_000 + Math.floor(Math.random() * 12_000)
  while (!claim(port)) port++
  t.equal(claim(port), false, 'claimed a moment ago')
  const file = path.join(os.tmpdir(), 'perp-exchange-ports', String(port))
  const twoHoursAgo = new Date(Date.now() - 2 * 3_600_000)
  utimesSync(file, twoHoursAgo, twoHoursAgo)
  t.equal(claim(port), true, 'an old claim is taken over')
  t.equal(claim(port), false, 'and holds again')
})
