// How much the operator's key has left to pay gas with. Withdrawals and anchors are paid from
// it: on a public chain it runs down with each, and once it cannot pay for one, withdrawals wait
// (PROCESSING) and no state root is anchored, with nothing a user can do. Read at each check
// (every 30 s): /metrics shows the last reading, and the log warns when it covers fewer than
// LOW_TRANSACTIONS transactions at the chain's current fees, and says when it was topped up.

import { formatEther, formatUnits, type JsonRpcProvider } from 'ethers'
import { pollLoop, silentLogger, type Logger } from './link.js'

/** What one operator transaction is counted at: a payment takes ~60-90k gas, an anchor ~100k. */
export const GAS_PER_TRANSACTION = 100_000n
/** Fewer transactions than this left at current fees is a warning. */
export const LOW_TRANSACTIONS = 100
const CHECK_MS = 30_000

export interface OperatorGasOptions {
  provider: JsonRpcProvider
  address: string
  logger?: Logger
  checkMs?: number
}

export class OperatorGas {
  /** The operator's balance in wei at the last check; undefined before the first. */
  balanceWei: bigint | undefined
  /** Transactions of GAS_PER_TRANSACTION the balance pays for at the fees of the last check. */
  affordable: number | undefined
  private low = false
  private loop: { stop(): Promise<void> } | undefined
  private readonly logger: Logger

  constructor(private readonly o: OperatorGasOptions) {
    this.logger = o.logger ?? silentLogger
  }

  start(): void {
    this.loop ??= pollLoop(() => this.check(), this.o.checkMs ?? CHECK_MS, this.logger, 'operator gas check')
  }

  async stop(): Promise<void> {
    await this.loop?.stop()
    this.loop = undefined
  }

  async check(): Promise<void> {
    const [balance, fees] = await Promise.all([this.o.provider.getBalance(this.o.address), this.o.provider.getFeeData()])
    const price = fees.maxFeePerGas ?? fees.gasPrice ?? 0n
    const affordable = Number(balance / ((price > 0n ? price : 1n) * GAS_PER_TRANSACTION))
    this.balanceWei = balance
    this.affordable = affordable
    const said = { address: this.o.address, balanceEther: formatEther(balance), transactionsLeft: affordable,
      gasPriceGwei: formatUnits(price, 'gwei') }
    if (affordable < LOW_TRANSACTIONS && !this.low) {
      this.low = true
      this.logger.warn(said, 'operator low on gas: withdrawals and anchors stop when it cannot pay for them')
    } else if (affordable >= LOW_TRANSACTIONS && this.low) {
      this.low = false
      this.logger.info(said, 'operator gas topped up')
    }
  }

  /** For /metrics: the balance in ether and the transactions it pays for (none before the first check). */
  gauges(): Record<string, number> {
    if (this.balanceWei === undefined || this.affordable === undefined) return {}
    return { exchange_operator_balance_ether: Number(formatEther(this.balanceWei)),
      exchange_operator_transactions_affordable: this.affordable }
  }
}
