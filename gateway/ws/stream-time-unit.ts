// Binance spot's `timeUnit=MICROSECOND` on a stream connection's URL: every time field of a
// spot market's stream events in microseconds. The fields are named per event type, as a
// letter means a time in one event and an id in another (`t`: a trade's id, a kline's open
// time). USD-M's streams have no time unit: a perpetual's events are never converted.

const US_PER_MS = 1000

/** Each spot stream event type (`e`) and its top-level time fields; a kline's `k.t`, `k.T` too. */
const TIME_FIELDS: ReadonlyMap<string, readonly string[]> = new Map([
  ['trade', ['E', 'T']],
  ['aggTrade', ['E', 'T']],
  ['kline', ['E']],
  ['depthUpdate', ['E']],
  ['24hrTicker', ['E', 'O', 'C']],
  ['24hrMiniTicker', ['E']],
  ['1hTicker', ['E', 'O', 'C']],
  ['4hTicker', ['E', 'O', 'C']],
  ['1dTicker', ['E', 'O', 'C']],
  ['avgPrice', ['E', 'T']],
  ['referencePrice', ['t']],
])
const KLINE_TIME_FIELDS = ['t', 'T'] as const

function scaled(o: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  const out = { ...o }
  for (const f of fields) if (typeof out[f] === 'number') out[f] = (out[f] as number) * US_PER_MS
  return out
}

/**
 * A copy of a spot market's stream event (or array of them: the `!…@arr` forms) with its
 * times in µs. Events without an event type (a spot book ticker, partial depth) have no time
 * field; an event type not listed has its event time `E` converted.
 */
export function spotEventInMicros(event: unknown): unknown {
  if (Array.isArray(event)) return event.map(spotEventInMicros)
  if (event === null || typeof event !== 'object') return event
  const o = event as Record<string, unknown>
  if (typeof o.e !== 'string') return o
  const out = scaled(o, TIME_FIELDS.get(o.e) ?? ['E'])
  if (o.e === 'kline' && typeof o.k === 'object' && o.k !== null) out.k = scaled(o.k as Record<string, unknown>, KLINE_TIME_FIELDS)
  return out
}
