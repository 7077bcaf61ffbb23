// Stream frames leave at the end of the event loop's turn, one write per socket. A committed
// batch's trades and a depth diff for one client then cost one system call, not one each (on
// loopback a write also runs the receiver's TCP path: at a thousand subscribers those calls
// are most of the fan-out's time). The sockets that got the same frames in the same order
// (every subscriber of the same streams) share one Run, whose bytes are joined once, so
// each socket's share is one write of a single shared buffer.

/** A sequence of frames queued this turn: the run before it, plus one frame. */
export class Run {
  private joined: Buffer | undefined
  /** The run that last followed this one, for the next socket on the same path. */
  private hotFrame: Buffer | undefined
  private hotNext: Run | undefined
  private others: Map<Buffer, Run> | undefined

  constructor(private readonly prev: Run | undefined, private readonly frame: Buffer | undefined, readonly length: number) {}

  /** This run followed by `frame` (the same object for every socket that takes this path). */
  followedBy(frame: Buffer): Run {
    if (frame === this.hotFrame) return this.hotNext!
    let next = this.others?.get(frame)
    if (next === undefined) {
      next = new Run(this, frame, this.length + frame.length)
      ;(this.others ??= new Map()).set(frame, next)
    }
    this.hotFrame = frame
    this.hotNext = next
    return next
  }

  /** The frames of the run, joined (made once, whatever the number of sockets). */
  bytes(): Buffer {
    if (this.joined !== undefined) return this.joined
    if (this.prev === undefined || this.prev.frame === undefined) return this.joined = this.frame!
    const out = Buffer.allocUnsafe(this.length)
    let end = this.length
    for (let r: Run | undefined = this; r !== undefined && r.frame !== undefined; r = r.prev) {
      end -= r.frame.length
      r.frame.copy(out, end)
    }
    return this.joined = out
  }
}

/** What holds frames for the end of the turn. */
export interface Pending {
  flushPending(): void
}

let root = new Run(undefined, undefined, 0)
let due: Pending[] = []

/**
 * The run that starts this turn (the root every socket's frames hang from). `holder` is queued
 * to be flushed at the end of the turn; call it for a socket's first frame of the turn only.
 */
export function startRun(holder: Pending): Run {
  // After everything this turn's callback does (in the fan-out process, every IPC message of
  // one read): one callback for all the sockets, not one each.
  if (due.push(holder) === 1) process.nextTick(flushAll)
  return root
}

function flushAll(): void {
  // Runs queued while flushing (a close handler publishing, say) belong to the next turn.
  const all = due
  due = []
  root = new Run(undefined, undefined, 0)
  for (const p of all) p.flushPending()
}
