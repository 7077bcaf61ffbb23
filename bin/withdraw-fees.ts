// `exchange withdraw-fees --asset USDT --amount 150.5 --to 0x…`: the operator takes collected
// trading fees out of the Vault. The command goes through the running sequencer's command port
// like `exchange account`'s; the ledger debits the fees at once and the withdrawal executor pays
// the address on chain, so the audit finds a requested withdrawal behind the payment
// (core/wallet.ts, FeeWithdrawal). The amount is decimal, in the asset's precision as the
// exchange lists it.

import type { Command } from '../core/commands.js'
import { parseAmount } from '../gateway/decimal.js'
import { ApiError } from '../gateway/errors.js'
import type { Acknowledged } from '../replica/sequencer.js'
import { OperatorError } from './operator-error.js'

export interface FeeWithdrawalRequest {
  /** The exchange's REST base URL, where the asset's precision is read. */
  api: string
  asset: string
  /** Decimal, e.g. "150.5". */
  amount: string
  to: string
  submit: (c: Command) => Promise<Acknowledged>
}

/** The asset's ledger decimals as the exchange lists them (its spot markets' asset precisions). */
async function scaleOf(api: string, asset: string): Promise<number> {
  let info: { symbols?: { baseAsset: string; baseAssetPrecision: number; quoteAsset: string; quoteAssetPrecision: number }[] }
  try {
    info = await (await fetch(`${api.replace(/\/$/, '')}/api/v3/exchangeInfo`)).json() as typeof info
  } catch (err) {
    throw new OperatorError(`nothing answers at ${api} (${(err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message}): is the exchange running, on that --host and --port?`)
  }
  for (const s of info.symbols ?? []) {
    if (s.baseAsset === asset) return s.baseAssetPrecision
    if (s.quoteAsset === asset) return s.quoteAssetPrecision
  }
  throw new OperatorError(`${asset} is not an asset of the exchange at ${api}`)
}

/** Refuses an --amount that is no positive decimal number (as the gateway writes one), before the exchange is asked anything. */
export function checkAmount(amount: string): void {
  if (!/^\d{1,20}(\.\d{1,20})?$/.test(amount) || !/[1-9]/.test(amount)) throw new OperatorError(`--amount must be a positive decimal number, got ${amount}`)
}

/**
 * `amount` in ledger units of `scale` decimals, exactly, as the gateway parses a withdrawal's
 * amount (gateway/decimal.ts); its refusals said as the operator's.
 */
export function ledgerUnits(amount: string, scale: number): number {
  checkAmount(amount)
  try {
    return parseAmount({ name: 'amount', scale }, amount)
  } catch (err) {
    if (!(err instanceof ApiError)) throw err
    if (err.code === -1111) throw new OperatorError(`--amount ${amount} is finer than the asset's ${scale} decimals`)
    throw new OperatorError(`--amount ${amount} is out of range`)
  }
}

/** Submits the withdrawal; what the ledger recorded. */
export async function withdrawFees(r: FeeWithdrawalRequest): Promise<{ withdrawalId: number; seq: number; asset: string; amount: string; to: string }> {
  const amount = ledgerUnits(r.amount, await scaleOf(r.api, r.asset))
  const ack = await r.submit({ type: 'FeeWithdrawal', asset: r.asset, amount, address: r.to })
  if (!ack.result.ok) {
    const why = ack.result.code === 'BALANCE_INSUFFICIENT' ? `the fees collected in ${r.asset} are less than ${r.amount}`
      : ack.result.code === 'COMMAND_UNKNOWN' ? 'the log is under rules older than 2, which have no fee withdrawals'
        : ack.result.code
    throw new OperatorError(`the fee withdrawal was refused at seq ${ack.seq}: ${why}`)
  }
  return { withdrawalId: ack.result.withdrawalId!, seq: ack.seq, asset: r.asset, amount: r.amount, to: r.to }
}
