// Wallet configuration clients read before anything else: `/sapi/v1/capital/config/getall`
// (every coin with the caller's spot balances and its one withdrawal network; ccxt loads
// currencies from it), the system status, and the margin-pair lists (empty: there is no spot
// margin trading).

import type { FastifyPluginAsync } from 'fastify'
import type { Asset, ChainDeclaration, State, SubAccount } from '../../core/state.js'
import { authenticate } from '../auth.js'
import type { GatewayContext } from '../context.js'
import { formatLedger, trimZeros } from '../decimal.js'
import { invalidParam, mandatoryParam } from '../errors.js'
import { optional } from '../market-params.js'
import { arrayOf, bool, int, object, route, str } from '../schemas/common.js'
import { walletDocs } from '../schemas/wallet.js'
import type { WeightCounter } from '../weights.js'

interface Options {
  ctx: GatewayContext
  weights: WeightCounter
}

const networkSchema = object({
  network: str, coin: str, withdrawIntegerMultiple: str, isDefault: bool, depositEnable: bool, withdrawEnable: bool,
  depositDesc: str, withdrawDesc: str, specialTips: str, specialWithdrawTips: str, name: str, resetAddressStatus: bool,
  addressRegex: str, addressRule: str, memoRegex: str, withdrawFee: str, withdrawMin: str, withdrawMax: str,
  depositDust: str, minConfirm: int, unLockConfirm: int, sameAddress: bool, withdrawTag: bool, estimatedArrivalTime: int,
  busy: bool, contractAddressUrl: str, contractAddress: str,
})
const marginPairsSchema = arrayOf(object({
  id: str, symbol: str, base: str, quote: str, isMarginTrade: bool, isBuyAllowed: bool, isSellAllowed: bool,
}))

const docs = {
  // Binance's getall row, in its field order.
  configGetAll: route({
    family: 'wallet', summary: 'Every coin: spot balances, deposit and withdrawal network and limits',
    security: 'USER_DATA', weight: 10,
    response: arrayOf(object({
      coin: str, depositAllEnable: bool, withdrawAllEnable: bool, name: str, free: str, locked: str, freeze: str,
      withdrawing: str, ipoing: str, ipoable: str, storage: str, isLegalMoney: bool, trading: bool,
      networkList: arrayOf(networkSchema),
    })),
  }),
  systemStatus: route({
    family: 'wallet', summary: 'System status: 0 normal, 1 maintenance', security: 'NONE', weight: 1,
    response: object({ status: int, msg: str }),
  }),
  crossMarginPairs: route({
    family: 'market', summary: 'Cross margin pairs (none: there is no spot margin trading)', security: 'NONE', weight: 1,
    params: ['symbol'], response: marginPairsSchema,
  }),
  isolatedMarginPairs: route({
    family: 'wallet', summary: 'Isolated margin pairs (none: there is no spot margin trading)', security: 'USER_DATA',
    weight: 10, params: ['symbol'], response: marginPairsSchema,
  }),
}

/** Deposits and withdrawals settle on the exchange's chain (API.md): one EVM network per coin. */
export const NETWORK = 'ETH'
const EVM_ADDRESS = '^(0x)[0-9A-Fa-f]{40}$'

/**
 * The sum of this sub-account's withdrawals of `asset` still being processed (already debited).
 * The state keeps only pending withdrawals, all accounts' together: the scan stops once it has
 * met as many as the sub-account has pending (at most LIMITS.pendingWithdrawalsPerAccountMax).
 */
export function withdrawing(state: State, sub: SubAccount | undefined, asset: string): number {
  let total = 0
  let found = 0
  if (!sub || sub.pendingWithdrawals === 0) return total
  for (const w of state.withdrawals.values()) {
    if (w.account !== sub.address || w.sub !== sub.sub || w.status !== 'PROCESSING') continue
    if (w.asset === asset) total += w.amount
    if (++found === sub.pendingWithdrawals) break
  }
  return total
}

/**
 * How to deposit `asset` on the chain the log declared (core/chain-declaration.ts): the Vault credits whoever calls its
 * deposit(token, amount, subAccount), so the account deposits from its own address (as
 * deposit/address says).
 */
function depositTips(chain: ChainDeclaration | null, token: string | undefined, sub: number): string {
  if (chain === null || token === undefined) return ''
  return `Deposit from this account's own address on chain ${chain.chainId}: approve the Vault ${chain.vault} for the token ${token}, `
    + `then call deposit(token, amount, ${sub}) on the Vault (${sub}: this sub-account). A plain transfer to the Vault is not credited.`
}

function coinJson(state: State, sub: SubAccount | undefined, subId: number, asset: Asset): object {
  const chain = state.chain
  const token = chain?.tokens.find((t) => t.asset === asset.name)?.address
  const b = sub?.spot.get(asset.name)
  // Binance prints these amounts without padding: "34941.1", "0".
  const f = (units: number): string => trimZeros(formatLedger(units, asset.scale))
  const unit = f(1)
  return {
    coin: asset.name, depositAllEnable: true, withdrawAllEnable: true, name: asset.name,
    free: f(b?.free ?? 0), locked: f(b?.locked ?? 0), freeze: f(0), withdrawing: f(withdrawing(state, sub, asset.name)),
    ipoing: f(0), ipoable: f(0), storage: f(0), isLegalMoney: false, trading: true,
    networkList: [{
      network: NETWORK, coin: asset.name, withdrawIntegerMultiple: unit, isDefault: true, depositEnable: true,
      withdrawEnable: true, depositDesc: '', withdrawDesc: '', specialTips: depositTips(chain, token, subId), specialWithdrawTips: '',
      name: 'Ethereum (ERC20)', resetAddressStatus: false, addressRegex: EVM_ADDRESS, addressRule: '', memoRegex: '',
      // No withdrawal fee and no minimum beyond one ledger unit: the core charges none.
      withdrawFee: f(0), withdrawMin: unit, withdrawMax: '9999999999', depositDust: unit, minConfirm: 1, unLockConfirm: 0,
      sameAddress: false, withdrawTag: false, estimatedArrivalTime: 1, busy: false,
      // The asset's token contract; no block explorer is known for a chain of the operator's.
      contractAddressUrl: '', contractAddress: token ?? '',
    }],
  }
}

export const capitalRoutes: FastifyPluginAsync<Options> = async (app, { ctx, weights }) => {
  app.get('/sapi/v1/capital/config/getall', docs.configGetAll, async (req) => {
    weights.charge(req.ip, 10)
    const a = authenticate(ctx, req, 'USER_DATA')
    const state = ctx.state()
    return [...state.assets.values()].map((asset) => coinJson(state, a.sub, a.session.sub, asset))
  })

  // Deposits are made on chain from the account's own wallet into the Vault, which credits the
  // sender: the account's address is where its deposits come from, so it stands as the address.
  app.get('/sapi/v1/capital/deposit/address', walletDocs.depositAddress, async (req) => {
    weights.charge(req.ip, 10)
    const a = authenticate(ctx, req, 'USER_DATA')
    const coin = optional(a.params, 'coin')
    if (coin === undefined) throw mandatoryParam('coin')
    if (!ctx.state().assets.has(coin)) throw invalidParam('coin')
    const network = optional(a.params, 'network')
    if (network !== undefined && network !== NETWORK) throw invalidParam('network')
    return { address: a.session.account, coin, tag: '', url: '' }
  })

  // A gateway that answers is serving: maintenance is not a state the exchange has.
  app.get('/sapi/v1/system/status', docs.systemStatus, async (req) => {
    weights.charge(req.ip, 1)
    return { status: 0, msg: 'normal' }
  })

  // Cross margin pairs are public market data; isolated ones are USER_DATA. Neither exists here.
  app.get('/sapi/v1/margin/allPairs', docs.crossMarginPairs, async (req) => {
    weights.charge(req.ip, 1)
    return []
  })
  app.get('/sapi/v1/margin/isolated/allPairs', docs.isolatedMarginPairs, async (req) => {
    weights.charge(req.ip, 10)
    authenticate(ctx, req, 'USER_DATA')
    return []
  })
}
