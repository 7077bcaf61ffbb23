// A chain for a test file: a fresh anvil on loopback, the contracts deployed by the operator
// (anvil's first dev account), and funded user wallets.

import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { ContractFactory, HDNodeWallet, type Contract, type InterfaceAbi } from 'ethers'
import { DEV_MNEMONIC, startAnvil, type Anvil } from '../../chain/anvil.js'
import { deployAll, type Deployment } from '../../chain/deploy.js'
import { chainProvider, mined, Operator, tokenAt, vaultAt } from '../../chain/provider.js'
import type { JsonRpcProvider } from 'ethers'

export interface ChainRig {
  anvil: Anvil
  provider: JsonRpcProvider
  operator: Operator
  operatorKey: string
  deployment: Deployment
  /** The Vault, read-only (connect a signer to send). */
  vault: Contract
  token(asset: string): Contract
  /** Anvil dev account i (1..9; 0 is the operator), connected to the provider. */
  wallet(i: number): HDNodeWallet
  /** Mints `amount` token units of `asset` to `to` (the operator owns the test tokens). */
  mint(asset: string, to: string, amount: bigint): Promise<void>
  /** Approves and deposits from `from` into the Vault; the receipt's hash and block, and the ref the watcher credits it by. */
  deposit(from: HDNodeWallet, asset: string, amount: bigint, sub?: number): Promise<{ hash: string; block: number; ref: string }>
  mine(blocks?: number): Promise<void>
  /**
   * Gives the Vault the code of a build before it refused sub-accounts no address has (its
   * storage and operator kept), as a Vault deployed then still runs: it takes a deposit for any.
   */
  legacyVault(): Promise<void>
  close(): Promise<void>
}

export function devWallet(i: number): HDNodeWallet {
  return HDNodeWallet.fromPhrase(DEV_MNEMONIC, undefined, `m/44'/60'/0'/0/${i}`)
}

export async function chainRig(): Promise<ChainRig> {
  const anvil = await startAnvil()
  const provider = chainProvider(anvil.url, anvil.chainId, 20)
  const operatorKey = devWallet(0).privateKey
  const operator = new Operator(operatorKey, provider)
  const deployment = await operator.run((s) => deployAll(s))
  const vault = vaultAt(deployment.vault, provider)
  const tokenAddress = (asset: string): string => {
    const t = deployment.tokens.find((x) => x.asset === asset)
    if (!t) throw new Error(`no token for ${asset}`)
    return t.address
  }
  const rig: ChainRig = {
    anvil, provider, operator, operatorKey, deployment, vault,
    token: (asset) => tokenAt(tokenAddress(asset), provider),
    wallet: (i) => devWallet(i).connect(provider),
    async mint(asset, to, amount) {
      await operator.run(async (s) => {
        const tx = await (rig.token(asset).connect(s) as Contract).mint(to, amount)
        await mined(tx)
      })
    },
    async deposit(from, asset, amount, sub = 0) {
      const token = rig.token(asset).connect(from) as Contract
      await mined(await token.approve(deployment.vault, amount))
      const tx = await (vault.connect(from) as Contract).deposit(tokenAddress(asset), amount, sub)
      const receipt = await mined(tx)
      const deposited = receipt.logs.find((l) => l.topics[0] === vault.interface.getEvent('Deposited')!.topicHash)!
      return { hash: receipt.hash as string, block: receipt.blockNumber as number, ref: `${receipt.hash}:${deposited.index}` }
    },
    async mine(blocks = 1) {
      await provider.send('anvil_mine', [`0x${blocks.toString(16)}`])
    },
    async legacyVault() {
      const { abi, bytecode } = compileVaultWithoutSubCheck()
      const address = await operator.run(async (s) => {
        const legacy = await new ContractFactory(abi, bytecode, s).deploy(await s.getAddress())
        await legacy.waitForDeployment()
        return legacy.getAddress()
      })
      await provider.send('anvil_setCode', [deployment.vault, await provider.getCode(address)])
    },
    async close() {
      provider.destroy()
      await anvil.stop()
    },
  }
  return rig
}

/** The Vault's source with its sub-account check taken out, compiled as chain/compile.mjs does. */
function compileVaultWithoutSubCheck(): { abi: InterfaceAbi; bytecode: string } {
  const source = readFileSync(new URL('../../../chain/contracts/Vault.sol', import.meta.url), 'utf8')
  const check = /\n\s*if \(subAccount >= SUB_ACCOUNTS\) revert SubAccountInvalid\(subAccount\);/
  if (!check.test(source)) throw new Error('the Vault no longer has the sub-account check this replaces')
  const solc = createRequire(import.meta.url)('solc') as { compile(input: string): string }
  const out = JSON.parse(solc.compile(JSON.stringify({ language: 'Solidity',
    sources: { 'Vault.sol': { content: source.replace(check, '') } },
    settings: { evmVersion: 'shanghai', optimizer: { enabled: true, runs: 200 }, outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } } })))
  const c = out.contracts?.['Vault.sol']?.Vault
  if (!c) throw new Error(`the Vault did not compile: ${JSON.stringify(out.errors)}`)
  return { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` }
}
