// Who listens to which stream. Feeds ask `has` before building an event, so streams nobody
// holds cost nothing; `publish` serializes and encodes an event once for every subscriber.

/**
 * One event as its subscribers receive it: the UTF-8 bytes of the raw form, and of the
 * `{"stream","data"}` wrapper combined-stream connections get, each made once however many
 * connections send it.
 */
export class Frame {
  private rawBytes: Buffer | undefined
  private combinedBytes: Buffer | undefined

  constructor(readonly stream: string, readonly json: string) {}

  raw(): Buffer {
    return this.rawBytes ??= Buffer.from(this.json)
  }

  combined(): Buffer {
    return this.combinedBytes ??= Buffer.from(`{"stream":${JSON.stringify(this.stream)},"data":${this.json}}`)
  }
}

/** What the hub delivers to: one WebSocket connection. */
export interface Subscriber {
  deliver(frame: Frame): void
}

export class StreamHub {
  private readonly byStream = new Map<string, Set<Subscriber>>()

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

  /** Sends `event` (an object or an already serialized string) to the stream's subscribers. */
  publish(stream: string, event: unknown): void {
    const set = this.byStream.get(stream)
    if (set === undefined) return
    const frame = new Frame(stream, typeof event === 'string' ? event : JSON.stringify(event))
    // A subscriber cut off while delivering removes itself: iterate over a copy.
    for (const s of [...set]) s.deliver(frame)
  }
}
