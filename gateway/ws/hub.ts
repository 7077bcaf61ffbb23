// Who listens to which stream. Feeds ask `has` before building an event, so streams nobody
// holds cost nothing; `publish` serializes and encodes an event once for every subscriber,
// down to the WebSocket frame, so each connection's share is one write of shared bytes.

import { spotEventInMicros } from './stream-time-unit.js'
import { clientStreamName } from './streams.js'

/**
 * One event as its subscribers receive it: the raw form, or the `{"stream","data"}` wrapper
 * combined-stream connections get; and for a spot market's event (`spot`), either in ms or,
 * for connections opened with Binance spot's `timeUnit=MICROSECOND`, in µs. Each of the four
 * is made when a connection first wants it and once however many connections send it; a
 * stream with no µs subscriber costs nothing more than before.
 */
export class Frame {
  private microJson: string | undefined
  /** The text frames by form: raw, combined, raw in µs, combined in µs. */
  private readonly wires: (Buffer | undefined)[] = [undefined, undefined, undefined, undefined]

  constructor(readonly stream: string, readonly json: string, readonly spot = false) {}

  /** The event's JSON in `micro` units: µs only for a spot market's event (USD-M has no time unit). */
  text(micro: boolean): string {
    if (!micro || !this.spot) return this.json
    return this.microJson ??= JSON.stringify(spotEventInMicros(JSON.parse(this.json)))
  }

  /**
   * The whole WebSocket text frame of either form and unit, header included. A server's frames
   * are never masked, so these bytes are the same for every connection.
   */
  wire(combined: boolean, micro = false): Buffer {
    const us = micro && this.spot
    const i = (combined ? 1 : 0) + (us ? 2 : 0)
    return this.wires[i] ??= this.frameOf(combined, this.text(us))
  }

  /** The text frame of `data` (the event's JSON in one unit), raw or in the combined wrapper. */
  private frameOf(combined: boolean, data: string): Buffer {
    return textFrame(Buffer.from(combined ? `{"stream":${JSON.stringify(clientStreamName(this.stream))},"data":${data}}` : data))
  }
}

/** An unfragmented, unmasked text frame (RFC 6455 5.2) carrying `payload`. */
export function textFrame(payload: Buffer): Buffer {
  const n = payload.length
  const head = n < 126 ? 2 : n < 65_536 ? 4 : 10
  const frame = Buffer.allocUnsafe(head + n)
  frame[0] = 0x81 // FIN, opcode 1 (text)
  if (n < 126) {
    frame[1] = n
  } else if (n < 65_536) {
    frame[1] = 126
    frame.writeUInt16BE(n, 2)
  } else {
    frame[1] = 127
    frame.writeBigUInt64BE(BigInt(n), 2)
  }
  payload.copy(frame, head)
  return frame
}

/** What the hub delivers to: one WebSocket connection. */
export interface Subscriber {
  deliver(frame: Frame): void
}

export class StreamHub {
  private readonly byStream = new Map<string, Set<Subscriber>>()
  private readonly batchEnds: (() => void)[] = []

  has(stream: string): boolean {
    return this.byStream.has(stream)
  }

  /** Stream names with at least one subscriber. */
  streams(): IterableIterator<string> {
    return this.byStream.keys()
  }

  add(stream: string, s: Subscriber): void {
    let set = this.byStream.get(stream)
    if (set === undefined) this.byStream.set(stream, set = new Set())
    set.add(s)
  }

  remove(stream: string, s: Subscriber): void {
    const set = this.byStream.get(stream)
    if (set === undefined) return
    set.delete(s)
    if (set.size === 0) this.byStream.delete(stream)
  }

  /** Calls `fn` whenever a feed has published everything a committed batch produced. */
  onBatchEnd(fn: () => void): void {
    this.batchEnds.push(fn)
  }

  /**
   * Says a committed batch's events are all published, so what holds them for the end of the
   * turn may send them now: the sequencer goes on in the same turn (answering submitters,
   * applying the next commands) and the events need not wait for it.
   */
  batchEnd(): void {
    for (const fn of this.batchEnds) fn()
  }

  /**
   * Sends `event` (an object or an already serialized string) to the stream's subscribers.
   * `spot`: a spot market's event with times in it, which follow each connection's timeUnit.
   */
  publish(stream: string, event: unknown, spot = false): void {
    const set = this.byStream.get(stream)
    if (set === undefined) return
    const frame = new Frame(stream, typeof event === 'string' ? event : JSON.stringify(event), spot)
    // A subscriber cut off while delivering removes itself; a Set's iteration allows that
    // (a removed member not yet reached is skipped, as it should be).
    for (const s of set) s.deliver(frame)
  }
}
