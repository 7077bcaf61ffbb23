// Prometheus text metrics at /metrics: seq, apply rate (a counter), commit latency, queue
// depth, follower count and follower lag.

import http from 'node:http'

export type Gauges = () => Record<string, number>

const HELP: Record<string, string> = {
  exchange_seq: 'Last applied log sequence number',
  exchange_applied_entries_total: 'Entries applied since start (rate() of it is the apply rate)',
  exchange_commit_latency_ms: 'Duration of the last group commit (LevelDB write with sync)',
  exchange_ingress_queue: 'Commands waiting for the sequencer',
  exchange_followers: 'Followers connected to this sequencer',
  exchange_follower_lag_ms: 'Receive time minus sequencer time of the newest applied entry',
}

export function renderMetrics(values: Record<string, number>): string {
  let out = ''
  for (const [name, value] of Object.entries(values)) {
    const type = name.endsWith('_total') ? 'counter' : 'gauge'
    out += `# HELP ${name} ${HELP[name] ?? name}\n# TYPE ${name} ${type}\n${name} ${value}\n`
  }
  return out
}

export function serveMetrics(host: string, port: number, gauges: Gauges): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/metrics') {
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' })
      res.end(renderMetrics(gauges()))
    } else {
      res.writeHead(404, { 'content-type': 'application/json' })
      res.end('{"code":-1000,"msg":"Not found."}')
    }
  })
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => resolve(server))
  })
}
