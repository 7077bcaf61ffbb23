// A minimal Binance-style REST client over fetch: public and HMAC-signed requests, answers
// parsed as JSON, a refusal thrown as RestError with Binance's code. The market-making bot
// talks to the exchange through it, as any outside client would.

import { createHmac } from 'node:crypto'

export class RestError extends Error {
  override name = 'RestError'
  constructor(readonly status: number, readonly code: number, message: string,
    /** The answer's Retry-After, seconds (a 429 or 418 carries one). */
    readonly retryAfterSec?: number) { super(message) }
}

export interface Credentials {
  apiKey: string
  secretKey: string
}

export class RestClient {
  /** REQUEST_WEIGHT used in the current minute, as the last answer reported it. */
  usedWeight = 0

  constructor(private readonly baseUrl: string, private readonly who?: Credentials) {}

  get<T>(path: string, params: Record<string, string> = {}): Promise<T> {
    return this.request('GET', path, params, false)
  }

  signed<T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, params: Record<string, string> = {}): Promise<T> {
    return this.request(method, path, params, true)
  }

  private async request<T>(method: string, path: string, params: Record<string, string>, sign: boolean): Promise<T> {
    let query = new URLSearchParams(params).toString()
    const headers: Record<string, string> = {}
    if (sign) {
      if (!this.who) throw new Error('a signed request needs credentials')
      query += (query ? '&' : '') + `timestamp=${Date.now()}`
      query += `&signature=${createHmac('sha256', this.who.secretKey).update(query).digest('hex')}`
      headers['X-MBX-APIKEY'] = this.who.apiKey
    }
    const res = await fetch(`${this.baseUrl}${path}${query ? '?' + query : ''}`, { method, headers })
    const weight = Number(res.headers.get('x-mbx-used-weight-1m'))
    if (Number.isFinite(weight) && weight > 0) this.usedWeight = weight
    const text = await res.text()
    let body: unknown
    try { body = JSON.parse(text) } catch { throw new RestError(res.status, 0, `${method} ${path}: HTTP ${res.status} ${text.slice(0, 200)}`) }
    if (!res.ok) {
      const e = body as { code?: number; msg?: string }
      const retryAfter = Number(res.headers.get('retry-after') ?? NaN)
      throw new RestError(res.status, e.code ?? 0, `${method} ${path}: ${e.code} ${e.msg}`,
        Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter : undefined)
    }
    return body as T
  }
}
