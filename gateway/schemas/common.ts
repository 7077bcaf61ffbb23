// Building blocks of every route's schema: JSON-schema shorthands, the querystring (each
// parameter a string: parsing and Binance's error codes stay in our own code), the {code, msg}
// error body, and `route()`, which turns a route's description into fastify route options.
// The same schemas drive serialization and the OpenAPI document (gateway/openapi.ts).

import type { FastifySchema } from 'fastify'
import { KLINE_INTERVALS, PERP_INTERVAL_COUNT } from '../../replica/projections/index.js'

export type Schema = Record<string, unknown>

export const str = { type: 'string' } as const
export const int = { type: 'integer' } as const
/** A JSON number that may have a fraction (leverage bracket ratios). */
export const num = { type: 'number' } as const
export const bool = { type: 'boolean' } as const
export const strings = { type: 'array', items: str } as const
/** A free-form object: the body's fields as the handler builds them. */
export const anyObject = { type: 'object', additionalProperties: true } as const

/**
 * An object with these properties, written in this order. No `required` in response schemas:
 * the serializer writes required properties first, out of Binance's order.
 */
export const object = (properties: Record<string, unknown>): Schema => ({ type: 'object', properties })
export const arrayOf = (items: unknown): Schema => ({ type: 'array', items })
/** One symbol's object, or an array of them when no symbol was sent. */
export const oneOrAll = (item: Schema): Schema => ({ anyOf: [arrayOf(item), item] })
/** A fixed-length array; minItems and additionalItems keep Ajv's strict tuple rule. */
export const tuple = (...items: unknown[]): Schema => ({ type: 'array', items, minItems: items.length, additionalItems: false })

/** What the common parameters mean, shown beside them in the document. */
const PARAM_TEXT: Record<string, string> = {
  symbol: 'Market symbol, e.g. BTCUSDTPERP (futures) or BTCUSDT (spot).',
  pair: 'Pair of a perpetual, e.g. BTCUSDT.',
  interval: `Kline interval: ${KLINE_INTERVALS.slice(0, PERP_INTERVAL_COUNT).join(', ')}; spot klines also 1s.`,
  limit: 'Number of rows; default and maximum per endpoint.',
  startTime: 'Start of the time range, ms; spot routes also take µs, told apart by size (from 10^14), rounded up to a ms.',
  endTime: 'End of the time range, ms; spot routes also take µs, told apart by size (from 10^14), rounded down to a ms.',
  fromId: 'Return rows from this id on.',
  orderId: 'Order id.',
  origClientOrderId: 'Client order id given at placement (orderId or this is required).',
  priceMatch: 'LIMIT orders: take the price from the book when the order reaches the core instead of sending one: '
    + 'OPPONENT (best opposite price), OPPONENT_5/10/20 (the 5th/10th/20th opposite level, or the last), QUEUE (own '
    + 'side best), QUEUE_5/10/20, or NONE. Not with price (-1106); other types -5038; an empty side -5041.',
  timestamp: 'Request time in ms or µs, told apart by size (from 10^14); must be inside recvWindow.',
  recvWindow: 'How long the request stays valid after timestamp, ms (default 5000, at most 60000).',
  signature: 'HMAC-SHA256 (hex, keyed by the session secret) or, with a registered RSA key, RSA SHA-256 (base64) '
    + 'of the raw query string followed by the raw body, without signature.',
}

/** A querystring schema naming each parameter a route reads, all strings. */
export function query(names: readonly string[], required: readonly string[] = []): Schema {
  const properties = Object.fromEntries(names.map((n) => [n, PARAM_TEXT[n] ? { ...str, description: PARAM_TEXT[n] } : str]))
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}) }
}

/** Binance's error body; the HTTP status and code say what went wrong (docs/GATEWAY.md). */
export const errorSchema: Schema = {
  ...object({ code: int, msg: str }),
  description: 'Binance error body: a negative code and its message.',
}

/** The resource families: one tag each in the document. */
export const TAGS = [
  { name: 'general', description: 'Connectivity, server time, exchange information.' },
  { name: 'market', description: 'Public market data, futures (/fapi) and spot (/api).' },
  { name: 'session', description: 'Sessions: API keys opened with a wallet signature.' },
  { name: 'account', description: 'Futures balances, positions, trades, orders and income (signed).' },
  { name: 'trade', description: 'Futures orders, leverage and position settings (signed).' },
  { name: 'wallet', description: 'Transfers between spot and perp, withdrawals, deposit and withdrawal history (signed).' },
  { name: 'spot', description: 'Spot orders and balances (signed).' },
] as const

export type Family = (typeof TAGS)[number]['name']

/**
 * Binance's endpoint security types: NONE is public, MARKET_DATA and USER_STREAM need only
 * the API key, TRADE and USER_DATA are signed (timestamp and signature).
 */
export type SecurityType = 'NONE' | 'MARKET_DATA' | 'USER_STREAM' | 'TRADE' | 'USER_DATA'

/** The security scheme's name in the document's components. */
export const API_KEY_SCHEME = 'ApiKeyAuth'

const SIGNED_PARAMS = ['timestamp', 'recvWindow', 'signature'] as const

export interface RouteDoc {
  family: Family
  summary: string
  description?: string
  security: SecurityType
  /** The request weight as Binance states it: a number, or a short rule. */
  weight: number | string
  /** Parameters the handler reads (signed routes get timestamp, recvWindow, signature added). */
  params?: readonly string[]
  /** Those of them without which the request is refused. */
  required?: readonly string[]
  /** Schema of the 200 body. */
  response: Schema
}

export interface RouteOptions {
  schema: FastifySchema
  /** Fastify's own validation verdict is never sent: our handlers answer with Binance's codes. */
  attachValidation: true
}

/** Route options for `doc`: querystring, 200 and error bodies, tags, summary, security. */
export function route(doc: RouteDoc): RouteOptions {
  const signed = doc.security === 'TRADE' || doc.security === 'USER_DATA'
  const params = [...(doc.params ?? []), ...(signed ? SIGNED_PARAMS : [])]
  const required = [...(doc.required ?? []), ...(signed ? ['timestamp', 'signature'] : [])]
  const how = doc.security === 'NONE' ? 'Public.'
    : signed ? `Signed (${doc.security}): X-MBX-APIKEY header, timestamp and signature.`
    : `${doc.security}: X-MBX-APIKEY header.`
  const description = doc.description === undefined ? `${how} Weight: ${doc.weight}.`
    : `${doc.description}\n\n${how} Weight: ${doc.weight}.`
  return {
    attachValidation: true,
    schema: {
      tags: [doc.family],
      summary: doc.summary,
      description,
      querystring: query(params, required),
      ...(doc.security === 'NONE' ? {} : { security: [{ [API_KEY_SCHEME]: [] }] }),
      response: { 200: { description: 'OK', ...doc.response }, '4xx': errorSchema, '5xx': errorSchema },
    },
  }
}
