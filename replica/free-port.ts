// A loopback port for a process that will bind it a moment later (anvil, a test's or the demo's
// exchange). Chosen below Linux's ephemeral range (32768-60999): a port the kernel hands out
// for `listen(0)` is in that range, and before the child binds it any outgoing connection on
// the machine may take it as its local port (CI saw EADDRINUSE so). Below it only another
// chooser's pick can collide: random over 12,768 ports, checked free, and never handed out
// twice within an hour on this machine: each pick is claimed by creating a file named for it
// in a directory of the machine's temporary one, so a port a process frees for a moment (a node
// restarted on the same ports) is not handed to another process meanwhile (CI saw that once).

import net from 'node:net'
import { mkdirSync, openSync, closeSync, statSync, utimesSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'

const LOW = 20_000
const HIGH = 32_767
const handedOut = new Set<number>()
/** How long a claim holds. */
const CLAIM_MS = 60 * 60_000
const CLAIMS = path.join(os.tmpdir(), 'perp-exchange-ports')
/** Whether this process has made the claims' directory (once is enough). */
let claimsMade = false

export async function freePort(): Promise<number> {
  for (let tries = 0; ; tries++) {
    const port = LOW + Math.floor(Math.random() * (HIGH - LOW + 1))
    // Past a few thousand claimed picks (the range claimed within the hour), claims are ignored.
    if (handedOut.has(port) || (tries < 4_000 && !claim(port)) || !(await canBind(port))) continue
    handedOut.add(port)
    return port
  }
}

/** Claims `port` on this machine: false if another chooser claimed it within the hour. Without a usable directory, every port. */
export function claim(port: number): boolean {
  const file = path.join(CLAIMS, String(port))
  try {
    if (!claimsMade) {
      mkdirSync(CLAIMS, { recursive: true })
      claimsMade = true
    }
    closeSync(openSync(file, 'wx'))
    return true
  } catch (err) {
    if ((err as { code?: string }).code !== 'EEXIST') return true
  }
  try {
    if (Date.now() - statSync(file).mtimeMs < CLAIM_MS) return false
    // An old claim: taken over (two choosers may both do so at once; the bind check still runs).
    const now = new Date()
    utimesSync(file, now, now)
    return true
  } catch {
    return true
  }
}

function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer()
    s.once('error', () => resolve(false))
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)))
  })
}
