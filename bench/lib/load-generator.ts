// What the benchmarks that drive a real exchange with signed orders share: accounts funded on it
// (through its replication link's ingress, as `exchange account` funds them), and the load
// generator in a worker thread of its own (http-load-worker.ts), run phase by phase.

import { Worker } from 'node:worker_threads'
import { createFundedAccount } from '../../bin/demo-account.js'
import { IngressClient } from '../../replica/ingress.js'
import { linkToken, wsNetworkWith } from '../../replica/ws-network.js'
import { CHAIN_ID, HOST, type ExchangeProcess } from './exchange-process.js'
import type { LoadAccount, Phase, PhaseResult } from './http-load-worker.js'

/** `n` accounts with 1,000,000 USDT each, half perp margin, half spot, and their session keys. */
export async function fundedAccounts(ex: Pick<ExchangeProcess, 'replicationPort' | 'secret'>, n: number): Promise<LoadAccount[]> {
  const ingress = await IngressClient.connect(wsNetworkWith(linkToken(ex.secret)), `ws://${HOST}:${ex.replicationPort}`)
  try {
    const accounts = await Promise.all(Array.from({ length: n }, () => createFundedAccount({
      submit: (c) => ingress.submit(c), now: () => Date.now(), chainId: CHAIN_ID, masterSecret: ex.secret, usdt: 1_000_000 })))
    return accounts.map((a) => ({ apiKey: a.apiKey, secretKey: a.secretKey }))
  } finally {
    ingress.close()
  }
}

export interface LoadGenerator {
  /** Runs one phase and resolves with its result (a failure in the worker rejects). */
  phase(p: Phase): Promise<PhaseResult>
  terminate(): Promise<number>
}

/** The load generator for `accounts` against the exchange at `port`. */
export function startLoadGenerator(port: number, accounts: LoadAccount[]): LoadGenerator {
  const worker = new Worker(new URL('./http-load-worker.js', import.meta.url), { workerData: { host: HOST, port, accounts } })
  return {
    phase: (p) => new Promise((resolve, reject) => {
      const failed = (err: Error): void => reject(err)
      worker.once('error', failed)
      worker.once('message', (m: PhaseResult & { error?: string }) => {
        worker.off('error', failed)
        if (m.error) reject(new Error(m.error))
        else resolve(m)
      })
      worker.postMessage(p)
    }),
    terminate: () => worker.terminate(),
  }
}
