// Deploys the test tokens and the Vault (operated by the deployer) to a chain: the embedded
// default and the tests start from here.

import { ContractFactory, type Signer } from 'ethers'
import { TestToken, Vault } from './generated/contracts.js'
import { mined } from './provider.js'

export interface TokenSpec {
  /** The exchange's asset name (USDT, BTC, ETH). */
  asset: string
  symbol: string
  decimals: number
}

/** The demo set: a 6-decimal stablecoin and base assets with common decimals. */
export const DEFAULT_TOKENS: TokenSpec[] = [
  { asset: 'USDT', symbol: 'USDT', decimals: 6 },
  { asset: 'BTC', symbol: 'WBTC', decimals: 8 },
  { asset: 'ETH', symbol: 'WETH', decimals: 18 },
]

export interface ChainToken {
  asset: string
  address: string
  decimals: number
}

export interface Deployment {
  vault: string
  /** Block the Vault was deployed in: watchers start scanning there. */
  vaultBlock: number
  tokens: ChainToken[]
}

/** Deploys with `signer`, which becomes the tokens' owner (minter) and the Vault's operator. */
export async function deployAll(signer: Signer, tokens: TokenSpec[] = DEFAULT_TOKENS): Promise<Deployment> {
  const operator = await signer.getAddress()
  const out: ChainToken[] = []
  for (const t of tokens) {
    const c = await new ContractFactory(TestToken.abi, TestToken.bytecode, signer).deploy(`Test ${t.symbol}`, t.symbol, t.decimals)
    await c.waitForDeployment()
    out.push({ asset: t.asset, address: await c.getAddress(), decimals: t.decimals })
  }
  const vault = await new ContractFactory(Vault.abi, Vault.bytecode, signer).deploy(operator)
  const receipt = await mined(vault.deploymentTransaction()!)
  return { vault: await vault.getAddress(), vaultBlock: receipt.blockNumber, tokens: out }
}
