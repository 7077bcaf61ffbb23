// etcd v3 through its JSON gateway (POST /v3/...; keys and values base64): the few calls
// replica/leadership.ts needs. Several endpoints may be given; each call tries them in turn, so
// a cluster of etcd members survives the loss of one.

import type { KvRecord, LeaseKv } from '../replica/leadership.js'

interface RawKv { key: string; value?: string; create_revision?: string }

const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64')
const unb64 = (s: string | undefined): string => Buffer.from(s ?? '', 'base64').toString('utf8')
/** The key just past every key that starts with `prefix`: a prefix range's end. */
const prefixEnd = (prefix: string): string => {
  const bytes = Buffer.from(prefix, 'utf8')
  bytes[bytes.length - 1]!++
  return bytes.toString('base64')
}

export class EtcdKv implements LeaseKv {
  private next = 0

  /** `endpoints`: client URLs (http://host:2379); `timeoutMs` bounds each call. */
  constructor(private readonly endpoints: string[], private readonly timeoutMs = 2000) {
    if (endpoints.length === 0) throw new Error('no etcd endpoint')
  }

  async grant(ttlMs: number): Promise<string> {
    const r = await this.call('/v3/lease/grant', { TTL: Math.max(1, Math.ceil(ttlMs / 1000)) }) as { ID?: string }
    if (typeof r.ID !== 'string') throw new Error('etcd granted no lease')
    return r.ID
  }

  async renew(lease: string): Promise<boolean> {
    const r = await this.call('/v3/lease/keepalive', { ID: lease }) as { result?: { TTL?: string } }
    return Number(r.result?.TTL ?? 0) > 0
  }

  async revoke(lease: string): Promise<void> {
    await this.call('/v3/lease/revoke', { ID: lease })
  }

  async create(key: string, value: string, lease: string): Promise<{ created: boolean; record: KvRecord }> {
    const k = b64(key)
    const r = await this.call('/v3/kv/txn', {
      compare: [{ key: k, target: 'CREATE', result: 'EQUAL', create_revision: '0' }],
      success: [{ request_put: { key: k, value: b64(value), lease } }, { request_range: { key: k } }],
      failure: [{ request_range: { key: k } }],
    }) as { succeeded?: boolean; responses?: { response_range?: { kvs?: RawKv[] } }[] }
    const kv = r.responses?.map((x) => x.response_range?.kvs?.[0]).find((x) => x !== undefined)
    if (!kv) throw new Error(`etcd returned no record for ${key}`)
    return { created: r.succeeded === true, record: recordOf(kv) }
  }

  async put(key: string, value: string, lease?: string): Promise<void> {
    await this.call('/v3/kv/put', lease === undefined ? { key: b64(key), value: b64(value) } : { key: b64(key), value: b64(value), lease })
  }

  async delete(key: string): Promise<void> {
    await this.call('/v3/kv/deleterange', { key: b64(key) })
  }

  async get(key: string): Promise<KvRecord | undefined> {
    const r = await this.call('/v3/kv/range', { key: b64(key) }) as { kvs?: RawKv[] }
    return r.kvs?.[0] && recordOf(r.kvs[0])
  }

  async list(prefix: string): Promise<KvRecord[]> {
    const r = await this.call('/v3/kv/range', { key: b64(prefix), range_end: prefixEnd(prefix) }) as { kvs?: RawKv[] }
    return (r.kvs ?? []).map(recordOf)
  }

  private async call(path: string, body: object): Promise<unknown> {
    let last: Error | undefined
    for (let i = 0; i < this.endpoints.length; i++) {
      const endpoint = this.endpoints[(this.next + i) % this.endpoints.length]!
      let res: Response
      try {
        res = await fetch(endpoint + path, { method: 'POST', body: JSON.stringify(body), signal: AbortSignal.timeout(this.timeoutMs) })
      } catch (err) {
        // fetch's own message ("fetch failed") says nothing; its cause (ECONNREFUSED, a timeout) does.
        const cause = (err as { cause?: { code?: string } }).cause?.code
        last = new Error(`etcd at ${endpoint} unreachable: ${(err as Error).message}${cause === undefined ? '' : ` (${cause})`}`)
        continue
      }
      // Answered: the next call starts here.
      this.next = (this.next + i) % this.endpoints.length
      const text = await res.text()
      let json: { error?: string; message?: string }
      try {
        json = JSON.parse(text) as typeof json
      } catch {
        // Something else at that URL (a web server, a proxy): said so, not as a JSON parse error.
        throw new Error(`${endpoint} is not etcd's client URL: ${path} answered HTTP ${res.status}, not JSON`)
      }
      if (!res.ok) throw new Error(`etcd ${path}: ${json.message ?? json.error ?? text}`)
      return json
    }
    throw last!
  }
}

function recordOf(kv: RawKv): KvRecord {
  return { key: unb64(kv.key), value: unb64(kv.value), createRevision: Number(kv.create_revision ?? 0) }
}
