// A loopback port for a process that will bind it a moment later (anvil, a test's or the demo's
// exchange). Chosen below Linux's ephemeral range (32768-60999): a port the kernel hands out
// for `listen(0)` is in that range, and before the child binds it any outgoing connection on
// the machine may take it as its local port (CI saw EADDRINUSE so). Below it only another
// chooser's pick can collide: random over 12,768 ports, checked free, never handed out twice
// by one process.

import net from 'node:net'

const LOW = 20_000
const HIGH = 32_767
const handedOut = new Set<number>()

export async function freePort(): Promise<number> {
  for (;;) {
    const port = LOW + Math.floor(Math.random() * (HIGH - LOW + 1))
    if (handedOut.has(port) || !(await canBind(port))) continue
    handedOut.add(port)
    return port
  }
}

function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer()
    s.once('error', () => resolve(false))
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)))
  })
}
