// ethers v6 set up for a fast JSON-RPC node: a fixed network (no chain id lookups), no request
// batching or response caching (cached nonces and block numbers go stale within a block on
// anvil, and both add ~10 ms a call), short polling; and the operator's transactions sent one
// at a time, each with its nonce read from the node, and sent again at higher fees when left
// unmined.

import { Contract, formatEther, Interface, JsonRpcProvider, NonceManager, Wallet, type ContractRunner, type FeeData, type Signer,
  type TransactionLike, type TransactionReceipt, type TransactionRequest, type TransactionResponse } from 'ethers'
import { TestToken, Vault } from './generated/contracts.js'
import type { Logger } from '../replica/node.js'

/**
 * Most blocks one eth_getLogs call spans: public RPC providers cap a call's range (some at a
 * few thousand blocks, some at 2,000); anvil takes any.
 */
export const LOG_BLOCK_RANGE = 2000

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
  private readonly wallet: Wallet
  private queue: Promise<unknown> = Promise.resolve()

  constructor(privateKey: string, private readonly provider: JsonRpcProvider, private readonly o: OperatorOptions = {}) {
    this.wallet = new Wallet(privateKey, provider)
    this.address = this.wallet.address
    this.signer = new NonceManager(this.wallet)
  }

  /**
   * Sends `req` (to, data) once every earlier call has finished and waits until it is mined;
   * its receipt (a revert throws, as `mined`). A transaction left unmined for `resendAfterMs`
   * (a fee spike left it underpriced, or the node dropped it) is sent again with the same nonce
   * and higher fees (the chain's current ones, and at least 12.5% above the last: a node takes a
   * replacement only at 10% more), and so on until one of them is mined. Whichever is mined is
   * the one returned; a nonce another sender's transaction took is thrown.
   */
  transact(req: TransactionRequest): Promise<TransactionReceipt> {
    return this.run(async () => {
      const nonce = await this.provider.getTransactionCount(this.address, 'pending')
      let tx = await this.wallet.populateTransaction({ ...req, nonce })
      const sent = [await this.send(tx)]
      const resendAfterMs = this.o.resendAfterMs ?? RESEND_AFTER_MS
      let since = performance.now()
      const minedOne = async (): Promise<TransactionReceipt | undefined> => {
        for (const s of sent) if ((await this.provider.getTransactionReceipt(s.hash)) !== null) return (await s.wait())!
        return undefined
      }
      for (;;) {
        const receipt = await minedOne()
        if (receipt) return receipt
        if (performance.now() - since >= resendAfterMs) {
          // The nonce is looked at only when about to send again: until then there is only waiting.
          if ((await this.provider.getTransactionCount(this.address, 'latest')) > nonce) {
            // Mined between the two looks, or another sender took the nonce: one more look tells.
            const late = await minedOne()
            if (late) return late
            // ethers' code for a nonce already used, so callers that retry on it retry on this.
            throw Object.assign(new Error(`the operator's nonce ${nonce} was taken by a transaction this process did not send`),
              { code: 'NONCE_EXPIRED' })
          }
          tx = { ...tx, ...raisedFees(tx, await this.provider.getFeeData()) }
          try {
            sent.push(await this.send(tx))
            this.o.logger?.warn({ nonce, unmined: sent.slice(0, -1).map((s) => s.hash), hash: sent.at(-1)!.hash,
              maxFeePerGas: tx.maxFeePerGas?.toString(), gasPrice: tx.gasPrice?.toString() },
            'operator transaction not mined: sent again with higher fees')
          } catch (err) {
            // Not yet enough above the one the node holds: the next try raises again. Mined meanwhile: the next look finds it.
            const code = (err as { code?: string }).code
            if (code !== 'REPLACEMENT_UNDERPRICED' && code !== 'NONCE_EXPIRED') throw err
          }
          since = performance.now()
        }
        await new Promise((r) => setTimeout(r, this.provider.pollingInterval))
      }
    })
  }

  /** Sends `tx`; a key without the ETH to pay its gas is said in one line (ethers' message carries the signed bytes). */
  private async send(tx: TransactionLike<string>): Promise<TransactionResponse> {
    try {
      return await this.wallet.sendTransaction(tx)
    } catch (err) {
      if ((err as { code?: string }).code !== 'INSUFFICIENT_FUNDS') throw err
      const held = await this.provider.getBalance(this.address)
      const cost = BigInt(tx.gasLimit ?? 0n) * BigInt(tx.maxFeePerGas ?? tx.gasPrice ?? 0n)
      throw new Error(`the operator ${this.address} cannot pay for gas: it holds ${formatEther(held)} ETH, the transaction ` +
        `may cost up to ${formatEther(cost)}; send the operator ETH`)
    }
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

export interface OperatorOptions {
  /** How long a transaction may stay unmined before it is sent again with higher fees (default 60 s). */
  resendAfterMs?: number
  /** Where a re-sent transaction is told. */
  logger?: Logger
}

/** Five blocks of a 12-second chain: a fee spike that 2× base fee did not cover, or a dropped transaction. */
const RESEND_AFTER_MS = 60_000

const up = (fee: bigint): bigint => fee + (fee + 7n) / 8n

/** Fees for a replacement of `tx`: at least 12.5% above its own, and no less than the chain asks now. */
function raisedFees(tx: TransactionLike<string>, now: FeeData): TransactionLike<string> {
  const max = (a: bigint, b: bigint | null): bigint => (b !== null && b > a ? b : a)
  if (tx.maxFeePerGas != null && tx.maxPriorityFeePerGas != null) {
    return { maxFeePerGas: max(up(BigInt(tx.maxFeePerGas)), now.maxFeePerGas),
      maxPriorityFeePerGas: max(up(BigInt(tx.maxPriorityFeePerGas)), now.maxPriorityFeePerGas) }
  }
  return { gasPrice: max(up(BigInt(tx.gasPrice ?? 0n)), now.gasPrice) }
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
