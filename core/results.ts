// Result values. Rejections are shared constants: a rejected command allocates nothing.

import { CODES, type Code } from './codes.js'
import type { Accepted, Event, Rejected } from './events.js'

const NO_EVENTS: Event[] = Object.freeze([]) as unknown as Event[]

const REJECTIONS = new Map<Code, Rejected>(
  CODES.map((code) => [code, Object.freeze({ ok: false as const, code, events: NO_EVENTS })]),
)

export function reject(code: Code): Rejected {
  return REJECTIONS.get(code)!
}

export function accept(events: Event[]): Accepted {
  return { ok: true, events }
}

/** An accepted PlaceOrder, built whole: adding `orderId` later would reshape the object. */
export function acceptOrder(events: Event[], orderId: number): Accepted {
  return { ok: true, events, orderId }
}
