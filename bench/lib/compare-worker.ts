// One build's core in a worker isolate for compare-core.ts: generates the plain workload with
// that build's own generator, counts it once (the warm-up), then answers each message with one
// throughput pass.

import { parentPort, workerData } from 'node:worker_threads'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

const { root } = workerData as { root: string }
const load = (path: string): Promise<Record<string, (...args: unknown[]) => unknown>> => import(pathToFileURL(join(root, 'dist', path)).href)
const workload = await load('sim/workload.js')
const core = await load('bench/core.js')
const prepared = core.prepare!(workload.generateWorkload!((workload as unknown as { DEFAULT_WORKLOAD: unknown }).DEFAULT_WORKLOAD))
const port = parentPort!
port.postMessage('ready')
port.on('message', () => port.postMessage((core.passOf!(prepared) as { pass: unknown }).pass))
