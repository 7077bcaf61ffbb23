// Who listens to which stream. Feeds ask `has` before building an event, so streams nobody
// holds cost nothing; `publish` serializes an event once for every subscriber.

/** What the hub delivers to: one WebSocket connection. */
export interface Subscriber {
  deliver(stream: string, json: string): void
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
    const json = typeof event === 'string' ? event : JSON.stringify(event)
    // A subscriber cut off while delivering removes itself: iterate over a copy.
    for (const s of [...set]) s.deliver(stream, json)
  }
}
