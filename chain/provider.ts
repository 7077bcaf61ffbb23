// ethers v6 set up for a fast JSON-RPC node: a fixed network (no chain id lookups), no request
// batching or response caching (cached nonces and block numbers go stale within a block on
// anvil, and both add ~10 ms a call), short polling; and the operator's transactions sent one
// at a time with nonces counted locally.

import { Contract, Interface, JsonRpcProvider, NonceManager, Wallet, type ContractRunner, type Signer,
  type TransactionReceipt, type TransactionResponse } from 'ethers'
import { TestToken, Vault } from './generated/contracts.js'

export function chainProvider(url: string, chainId: number, pollingMs = 50): JsonRpcProvider {
  return new JsonRpcProvider(url, chainId, { staticNetwork: true, batchMaxCount: 1, cacheTimeout: -1, pollingInterval: pollingMs })
}

/**
 * Calls `f` with a provider for a chain the caller only reads (an auditor's, a user's: its id
 * looked up, not assumed), destroyed after.
 */
export async function withReader<T>(url: string, f: (provider: JsonRpcProvider) => Promise<T>): Promise<T> {
  const provider = new JsonRpcProvider(url, undefined, { batchMaxCount: 1 })
  try {
    return await f(provider)
  } finally {
    provider.destroy()
  }
}

/**
 * Waits for a sent transaction to be mined, then gives what its `wait()` gives (and throws what
 * it throws: a revert is CALL_EXCEPTION). Not `wait()` alone: that looks for the receipt once,
 * then only at each new block, taking the newest block when it starts listening as its
 * baseline. A block mined between that look and that baseline is never announced, and an idle
 * dev chain (anvil mines only when a transaction comes) gives no next one: the likely cause of
 * a test that hung for five minutes in its first deposit. In the withdrawal executor such a
 * wait would hold the operator (every payment and anchor after it) for good. Polling the
 * receipt has no such gap.
 */
export async function mined(tx: TransactionResponse): Promise<TransactionReceipt> {
  const pollMs = tx.provider instanceof JsonRpcProvider ? tx.provider.pollingInterval : 50
  while ((await tx.provider.getTransactionReceipt(tx.hash)) === null) await new Promise((r) => setTimeout(r, pollMs))
  // Mined, so wait() finds the receipt at its first look; null only ever means 0 confirmations asked.
  return (await tx.wait())!
}

export function vaultAt(address: string, runner: ContractRunner): Contract {
  return new Contract(address, Vault.abi, runner)
}

export function tokenAt(address: string, runner: ContractRunner): Contract {
  return new Contract(address, TestToken.abi, runner)
}

/**
 * The operator's key, sending one transaction at a time. Each call reads the nonce from the
 * node's pending count first (one request), then counts locally within the call: a transaction
 * that never went out, or one a reorg took off the chain, leaves no gap. (A gap would keep every
 * later transaction out of a block for good, and `mined` waiting for it.)
 */
export class Operator {
  readonly signer: NonceManager
  readonly address: string
  private queue: Promise<unknown> = Promise.resolve()

  constructor(privateKey: string, provider: JsonRpcProvider) {
    const wallet = new Wallet(privateKey, provider)
    this.address = wallet.address
    this.signer = new NonceManager(wallet)
  }

  /** Runs `fn` with the signer once every earlier call has finished. */
  run<T>(fn: (signer: Signer) => Promise<T>): Promise<T> {
    const next = this.queue.then(() => {
      this.signer.reset()
      return fn(this.signer)
    })
    this.queue = next.catch(() => undefined)
    return next
  }
}

const errorInterfaces = [new Interface(Vault.abi), new Interface(TestToken.abi)]

/**
 * The custom error a failed call or send reverted with (e.g. "AlreadyPaid"), or undefined when
 * `err` is no revert (a node or network failure). Signers estimate gas before sending, so the
 * revert data arrives without the contract's decoding: it is decoded here.
 */
export function revertName(err: unknown): string | undefined {
  const e = err as { code?: string; data?: string; revert?: { name: string }; reason?: string | null }
  if (e?.code !== 'CALL_EXCEPTION') return undefined
  if (e.revert?.name) return e.revert.name
  if (typeof e.data === 'string' && e.data.length >= 10) {
    for (const iface of errorInterfaces) {
      const parsed = iface.parseError(e.data)
      if (parsed) return parsed.name
    }
  }
  return e.reason ?? 'reverted'
}
