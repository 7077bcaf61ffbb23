// Refusals the gateway answered, by the API that answered them and Binance's code, for the
// operator's /metrics: a wave of -1021 is clients' clocks drifting, of -2019 traders out of
// margin, of -1003 a client hammering the limits.

/** Where a refusal was answered: a REST request, or a WebSocket API request. */
export type RefusalApi = 'rest' | 'ws'

export class Refusals {
  private readonly counts: Record<RefusalApi, Map<number, number>> = { rest: new Map(), ws: new Map() }

  add(api: RefusalApi, code: number): void {
    const m = this.counts[api]
    m.set(code, (m.get(code) ?? 0) + 1)
  }

  /** Each API's counts by code, codes in ascending order. */
  byCode(api: RefusalApi): [code: number, count: number][] {
    return [...this.counts[api]].sort((a, b) => a[0] - b[0])
  }
}
