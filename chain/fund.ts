// Funding a fresh wallet on a test chain with a real deposit: gas (anvil_setBalance), test
// tokens minted by the operator, then approve and Vault.deposit from the wallet itself. The
// watcher credits it like any other deposit.

import type { BaseWallet, Contract, JsonRpcProvider } from 'ethers'
import type { Deployment } from './deploy.js'
import { mined, tokenAt, vaultAt, type Operator } from './provider.js'

/**
 * Mints `units` of the test token `asset` to `to` with the operator's key. Another process may
 * send with that key at the same moment (`exchange account` or the demo next to a running
 * exchange, which anchors and pays with it): a nonce taken under us is read again and the mint
 * retried.
 */
export async function mintTestTokens(o: { provider: JsonRpcProvider; operator: Operator; deployment: Deployment;
  to: string; asset: string; units: bigint }): Promise<void> {
  const token = o.deployment.tokens.find((t) => t.asset === o.asset)
  if (!token) throw new Error(`no ${o.asset} token on chain`)
  for (let attempt = 1; ; attempt++) {
    try {
      await o.operator.transact(await tokenAt(token.address, o.provider).mint!.populateTransaction(o.to, o.units))
      return
    } catch (err) {
      const code = (err as { code?: string }).code
      if (attempt === 5 || (code !== 'NONCE_EXPIRED' && code !== 'REPLACEMENT_UNDERPRICED')) throw err
    }
  }
}

/** Deposits `units` of `asset` from `wallet` (sub-account 0); the deposit's ref `<txHash>:<logIndex>`. */
export async function depositFromNewWallet(o: { provider: JsonRpcProvider; operator: Operator; deployment: Deployment;
  wallet: BaseWallet; asset: string; units: bigint }): Promise<string> {
  const token = o.deployment.tokens.find((t) => t.asset === o.asset)
  if (!token) throw new Error(`no ${o.asset} token on chain`)
  await o.provider.send('anvil_setBalance', [o.wallet.address, '0x56bc75e2d63100000']) // 100 ETH of gas
  await mintTestTokens({ ...o, to: o.wallet.address })
  const from = o.wallet.connect(o.provider)
  await mined(await (tokenAt(token.address, from) as Contract).approve(o.deployment.vault, o.units))
  const vault = vaultAt(o.deployment.vault, from) as Contract
  const receipt = await mined(await vault.deposit(token.address, o.units, 0))
  const topic = vault.interface.getEvent('Deposited')!.topicHash
  const log = receipt.logs.find((l) => l.topics[0] === topic)
  if (log === undefined) throw new Error(`deposit ${receipt.hash} emitted no Deposited event`)
  return `${receipt.hash}:${log.index}`
}
