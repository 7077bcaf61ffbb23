// `exchange start`'s market-making bot (bin/market-maker.ts) with its accounts: a maker and a
// taker, each funded by real deposits on the embedded chain (operator deposits without one)
// and kept in `<data>/bot-accounts.json`, so a restart goes on with the same accounts.

import { readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import type { BaseWallet } from 'ethers'
import type { Command } from '../core/commands.js'
import type { State } from '../core/state.js'
import type { Logger } from '../replica/node.js'
import type { Acknowledged } from '../replica/sequencer.js'
import type { Deployment } from '../chain/deploy.js'
import { createFundedAccount, type DemoAccount } from './demo-account.js'
import { startMarketMaker, type MarketMaker } from './market-maker.js'
import { RestClient, RestError } from './rest-client.js'

/** What each bot account is funded with: USDT (half spot, half perp) and base assets for the spot books. */
const FUNDING = {
  maker: { usdt: 1_000_000, coins: { BTC: 20, ETH: 300 } },
  taker: { usdt: 100_000, coins: { BTC: 2, ETH: 30 } },
} as const

interface BotAccounts {
  maker: DemoAccount
  taker: DemoAccount
}

/** Whether the saved accounts' sessions still work here (they expire, and a data directory may be reset). */
async function usable(api: string, accounts: BotAccounts): Promise<boolean> {
  try {
    for (const a of [accounts.maker, accounts.taker]) await new RestClient(api, a).signed('GET', '/fapi/v2/balance')
    return true
  } catch (err) {
    if (err instanceof RestError && err.status < 500) return false
    throw err
  }
}

export async function startBot(o: {
  api: string
  dataDir: string
  intervalMs: number
  chainId: number
  masterSecret: Uint8Array
  state: () => State
  submit: (c: Command) => Promise<Acknowledged>
  fundOnChain?: (wallet: BaseWallet, asset: string, units: bigint) => Promise<void>
  deployment?: Deployment
  logger: Logger
}): Promise<MarketMaker> {
  const file = path.join(o.dataDir, 'bot-accounts.json')
  let accounts: BotAccounts | undefined
  try {
    accounts = JSON.parse(await readFile(file, 'utf8')) as BotAccounts
    if (!(await usable(o.api, accounts))) accounts = undefined
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
  }
  if (accounts === undefined) {
    const fund = async (f: { usdt: number; coins: Record<string, number> }): Promise<DemoAccount> => {
      const assets = Object.entries(f.coins).flatMap(([asset, coins]) => {
        const scale = o.state().assets.get(asset)?.scale
        const decimals = o.deployment?.tokens.find((t) => t.asset === asset)?.decimals ?? scale
        if (scale === undefined || decimals === undefined) return []
        return [{ asset, tokenUnits: BigInt(coins) * 10n ** BigInt(decimals), ledgerUnits: coins * 10 ** scale }]
      })
      return createFundedAccount({ submit: o.submit, now: () => Date.now(), chainId: o.chainId, masterSecret: o.masterSecret,
        usdt: f.usdt, fundOnChain: o.fundOnChain, assets })
    }
    accounts = { maker: await fund(FUNDING.maker), taker: await fund(FUNDING.taker) }
    await writeFile(file, JSON.stringify(accounts, null, 2) + '\n', { mode: 0o600 })
    o.logger.info({ maker: accounts.maker.address, taker: accounts.taker.address, file }, 'market maker accounts funded')
  }
  return startMarketMaker({ baseUrl: o.api, maker: accounts.maker, taker: accounts.taker, intervalMs: o.intervalMs, logger: o.logger })
}
