// What the Vault's own history says about money, as an auditor reads it: every Deposited and
// Withdrawn event up to one block, each token's decimals, and what the Vault holds of each token
// at that block. The audit's money check (chain/money-audit.ts) holds the log against these.

import { getAddress, type JsonRpcProvider, type Log } from 'ethers'
import { LOG_BLOCK_RANGE, tokenAt, vaultAt } from './provider.js'

export interface VaultDeposit {
  /** As the deposit watcher writes it in the log: `<txHash>:<logIndex>`. */
  ref: string
  block: number
  index: number
  /** Checksummed. */
  account: string
  sub: number
  token: string
  amount: bigint
}

export interface VaultPayment {
  id: number
  txHash: string
  block: number
  token: string
  to: string
  amount: bigint
}

export interface VaultRecords {
  /** The chain they were read from. */
  chainId: number
  /** The block everything was read at. */
  block: number
  /** In chain order. */
  deposits: VaultDeposit[]
  /** By withdrawal id (the Vault pays each id once). */
  payments: Map<number, VaultPayment>
  /**
   * Per token seen in either (and each asked for), checksummed: its decimals (undefined: no
   * ERC-20 answers there) and the Vault's balance of it at `block`.
   */
  tokens: Map<string, { decimals: number | undefined; held: bigint }>
}

/** Reads the Vault's deposits and payments from `fromBlock` to the current block; `tokens`: others to read holdings of. */
export async function readVaultRecords(provider: JsonRpcProvider, vaultAddress: string, o: { fromBlock?: number; tokens?: string[] } = {}):
Promise<VaultRecords> {
  const fromBlock = o.fromBlock ?? 0
  const vault = vaultAt(vaultAddress, provider)
  const block = await provider.getBlockNumber()
  const topics = [[vault.interface.getEvent('Deposited')!.topicHash, vault.interface.getEvent('Withdrawn')!.topicHash]]
  const logs: Log[] = []
  for (let from = fromBlock; from <= block; from += LOG_BLOCK_RANGE) {
    logs.push(...await provider.getLogs({ address: vaultAddress, topics, fromBlock: from, toBlock: Math.min(block, from + LOG_BLOCK_RANGE - 1) }))
  }
  logs.sort((a, b) => a.blockNumber - b.blockNumber || a.index - b.index)
  const deposits: VaultDeposit[] = []
  const payments = new Map<number, VaultPayment>()
  for (const log of logs) {
    const ev = vault.interface.parseLog(log)
    if (ev?.name === 'Deposited') {
      deposits.push({ ref: `${log.transactionHash}:${log.index}`, block: log.blockNumber, index: log.index,
        account: getAddress(ev.args.account as string), sub: Number(ev.args.subAccount), token: getAddress(ev.args.token as string),
        amount: ev.args.amount as bigint })
    } else if (ev?.name === 'Withdrawn') {
      const id = Number(ev.args.id)
      payments.set(id, { id, txHash: log.transactionHash, block: log.blockNumber, token: getAddress(ev.args.token as string), to: getAddress(ev.args.to as string),
        amount: ev.args.amount as bigint })
    }
  }
  const tokens = new Map<string, { decimals: number | undefined; held: bigint }>()
  const seen = [...deposits.map((d) => d.token), ...[...payments.values()].map((p) => p.token), ...(o.tokens ?? []).map((t) => getAddress(t))]
  for (const token of new Set(seen)) {
    const erc20 = tokenAt(token, provider)
    try {
      tokens.set(token, { decimals: Number(await erc20.decimals!()), held: await erc20.balanceOf!(vaultAddress, { blockTag: block }) as bigint })
    } catch {
      tokens.set(token, { decimals: undefined, held: 0n }) // no contract there, or not an ERC-20
    }
  }
  return { chainId: Number(await provider.send('eth_chainId', [])), block, deposits, payments, tokens }
}
