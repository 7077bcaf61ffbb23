// The processes a test file starts end with it. Teardowns stop them on every ordinary path;
// this covers a file that ends without its teardowns (an uncaught error, or tap's timeout,
// which sends SIGALRM and then exits), which would leave exchanges and etcd servers running,
// holding ports and CPU through the files after it. A SIGKILLed test file still leaks them:
// no process can act on its own SIGKILL.

import type { ChildProcess } from 'node:child_process'

const live = new Set<ChildProcess>()
let armed = false

/** `child`, to be SIGKILLed when this process exits if it is still running then. */
export function reaped<C extends ChildProcess>(child: C): C {
  if (!armed) {
    armed = true
    process.once('exit', () => { for (const c of live) c.kill('SIGKILL') })
  }
  live.add(child)
  child.once('exit', () => live.delete(child))
  return child
}
