// What the `binance` package's WebsocketClient tests share: the events a client receives, with a
// bounded wait for one, and a logger that keeps only the package's errors.

import type { WebsocketClient } from 'binance'

export type Event = Record<string, unknown> & { e?: string }

export interface Inbox {
  events: Event[]
  exceptions: unknown[]
  /** The first event that satisfies `ok`, waiting up to `ms`; undefined if none came. */
  until(ok: (e: Event) => boolean, ms?: number): Promise<Event | undefined>
}

export function inbox(ws: WebsocketClient): Inbox {
  const events: Event[] = []
  const exceptions: unknown[] = []
  ws.on('message', (e) => { events.push(e as unknown as Event) })
  ws.on('exception', (e) => { exceptions.push(e) })
  return {
    events, exceptions,
    async until(ok, ms = 15_000) {
      const deadline = Date.now() + ms
      for (;;) {
        const v = events.find(ok)
        if (v !== undefined || Date.now() > deadline) return v
        await new Promise((r) => setTimeout(r, 50))
      }
    },
  }
}

/** The package logs every connection step; only its errors matter here. */
export const quiet = { trace: () => {}, info: () => {}, error: (...a: unknown[]) => { console.error(...a) } }

/** The listen keys a client streams (read from its connection names). */
export function listenKeysOf(ws: WebsocketClient): string[] {
  return (ws as unknown as { getWsStore(): { getKeys(): string[] } }).getWsStore().getKeys()
    .flatMap((k) => /_userData__([0-9a-f]+)_/.exec(k)?.[1] ?? [])
}

/**
 * Clears the package's listen-key keep-alive intervals (which would hold the test process
 * open; closeAll leaves them running) by its own teardown, for every key the client holds.
 */
export function teardownListenKeys(ws: WebsocketClient): void {
  const manager = (ws as unknown as { getUserDataStreamManager(): { teardownUserDataListenKey(k: string): void } }).getUserDataStreamManager()
  for (const k of listenKeysOf(ws)) manager.teardownUserDataListenKey(k)
}
