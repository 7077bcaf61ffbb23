// `npm run demo`: the whole path for a newcomer, printed step by step. It starts an exchange
// of its own on loopback (`exchange start`: local chain, sequencer, gateway, price feed and
// the market-making bot) in a temporary directory, then, as a user would:
//   a fresh wallet gets test USDT and deposits it into the Vault on chain; the exchange
//   credits it; the wallet signs a session (EIP-712) and gets API keys; with the `binance` npm
//   package it moves margin to the futures wallet, buys BTCUSDTPERP from the bot's quotes and
//   sells it back, returns the margin and withdraws everything; the tokens arrive on chain.
// Finally it stops the exchange and runs `exchange audit` over its log against the anchors on
// chain. Exit code 0 when every step succeeded, 1 otherwise. `--keep` keeps the directory.

import { spawn, execFile, type ChildProcess } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { Contract, formatUnits, parseUnits, Wallet } from 'ethers'
import { devKey, startAnvil } from '../chain/anvil.js'
import type { Deployment } from '../chain/deploy.js'
import { mintTestTokens } from '../chain/fund.js'
import { chainProvider, mined, Operator, tokenAt, vaultAt } from '../chain/provider.js'
import { sessionDomain, SESSION_TYPES } from '../gateway/session-signature.js'
import { freePort } from '../replica/free-port.js'

const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bin/exchange.js')
const CHAIN_ID = 31337
const DEPOSIT_USDT = '1000'
const MARGIN_USDT = '500'
const SYMBOL = 'BTCUSDTPERP'
const QTY = 0.005

const out = (s = ''): void => { process.stdout.write(s + '\n') }
let stepNo = 0
const step = (title: string): void => out(`\n${++stepNo}. ${title}`)
const detail = (s: string): void => out(`   ${s}`)
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

/** Polls `read` every 100 ms until it gives a value, for at most `ms`; `what` names it in the failure. */
async function waitFor<T>(what: string, read: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const v = await read()
    if (v !== undefined) return v
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what} after ${ms} ms`)
    await sleep(100)
  }
}

/** `exchange start` as a child process; its JSON log lines are watched for what it announces. */
function startExchange(args: string[]): { child: ChildProcess; line(pred: (l: Record<string, unknown>) => boolean, ms?: number): Promise<Record<string, unknown>>; stderr(): string } {
  const child = spawn(process.execPath, [BIN, 'start', ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
  const lines: Record<string, unknown>[] = []
  let buf = ''
  let err = ''
  child.stdout!.on('data', (d: Buffer) => {
    buf += d.toString()
    let i: number
    while ((i = buf.indexOf('\n')) >= 0) {
      const text = buf.slice(0, i)
      buf = buf.slice(i + 1)
      try { lines.push(JSON.parse(text)) } catch { /* the human-readable banner */ }
    }
  })
  child.stderr!.on('data', (d: Buffer) => { err = (err + d.toString()).slice(-4000) })
  return {
    child,
    stderr: () => err,
    line: (pred, ms = 60_000) => waitFor('the exchange to start', async () => {
      if (child.exitCode !== null) throw new Error(`the exchange exited (${child.exitCode}): ${err.slice(-1000)}`)
      return lines.find(pred)
    }, ms),
  }
}

async function loadBinance(): Promise<typeof import('binance')> {
  try {
    return await import('binance')
  } catch {
    throw new Error('the demo trades through the `binance` npm package (a dev dependency): run `npm install` first')
  }
}

async function main(argv: string[]): Promise<void> {
  const keep = argv.includes('--keep')
  const { MainClient, USDMClient } = await loadBinance()
  const dir = await mkdtemp(path.join(os.tmpdir(), 'exchange-demo-'))
  const [port, replicationPort, metricsPort] = [await freePort(), await freePort(), await freePort()]
  const base = `http://127.0.0.1:${port}`
  let exchange: ReturnType<typeof startExchange> | undefined
  const cleanups: (() => Promise<unknown> | unknown)[] = []
  try {
    step('Starting an exchange on loopback: local chain (anvil), sequencer, gateway, price feed, market-making bot')
    // A checkpoint every 50 entries: the bot and the ticks reach the first (and it is anchored)
    // while the steps run; at 200 the last step waited about 15 s for it.
    exchange = startExchange(['--data', dir, '--port', String(port), '--replication-port', String(replicationPort),
      '--metrics-port', String(metricsPort), '--checkpoint-interval', '50', '--anchor-interval-ms', '1000', '--chain-poll-ms', '100'])
    const chain = await exchange.line((l) => l.msg === 'chain services running')
    await exchange.line((l) => l.msg === 'market maker running')
    const rpc = chain.rpc as string
    const vaultAddress = chain.vault as string
    detail(`REST API   ${base}`)
    detail(`chain      ${rpc} (chain id ${CHAIN_ID}), Vault ${vaultAddress}`)
    detail(`data       ${dir}`)
    const provider = chainProvider(rpc, CHAIN_ID)
    cleanups.push(() => provider.destroy())
    const deployment = JSON.parse(await readFile(path.join(dir, 'chain', 'deployment.json'), 'utf8')) as Deployment
    const usdtToken = deployment.tokens.find((t) => t.asset === 'USDT')!
    const usdt = tokenAt(usdtToken.address, provider)

    step('A fresh wallet gets test USDT and gas from the local chain\'s faucet (the operator mints the test token)')
    const wallet = Wallet.createRandom().connect(provider)
    const units = parseUnits(DEPOSIT_USDT, 6)
    await provider.send('anvil_setBalance', [wallet.address, '0x56bc75e2d63100000'])
    // The operator's key is the running exchange's too (its anchors): the mint retries a nonce taken under it.
    await mintTestTokens({ provider, operator: new Operator(devKey(0), provider), deployment, to: wallet.address, asset: 'USDT', units })
    detail(`wallet     ${wallet.address}`)
    detail(`holds      ${formatUnits(await usdt.balanceOf(wallet.address), 6)} USDT on chain`)

    step(`The wallet deposits ${DEPOSIT_USDT} USDT into the Vault on chain (approve, then Vault.deposit)`)
    await mined(await (tokenAt(usdtToken.address, wallet) as Contract).approve(vaultAddress, units))
    const receipt = await mined(await (vaultAt(vaultAddress, wallet) as Contract).deposit(usdtToken.address, units, 0))
    detail(`tx         ${receipt.hash} (block ${receipt.blockNumber})`)

    step('The wallet signs a trading session (EIP-712) and gets an API key and secret (POST /fapi/v1/session)')
    const nonce = Date.now()
    const request = { address: wallet.address, subAccount: 0, permissions: 'TRADE,USER_DATA,WITHDRAW', expiresAt: nonce + 86_400_000, nonce }
    const signature = await wallet.signTypedData(sessionDomain(CHAIN_ID), SESSION_TYPES, request)
    const res = await fetch(`${base}/fapi/v1/session`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...Object.fromEntries(Object.entries(request).map(([k, v]) => [k, String(v)])), signature }).toString() })
    const session = await res.json() as { apiKey: string; secretKey: string; code?: number; msg?: string }
    if (!res.ok) throw new Error(`session refused: ${session.code} ${session.msg}`)
    detail(`API key    ${session.apiKey}`)
    const keys = { api_key: session.apiKey, api_secret: session.secretKey, baseUrl: base }
    const spot = new MainClient(keys)
    const futures = new USDMClient(keys)

    step('The exchange credits the deposit once the chain has it (GET /sapi/v1/capital/deposit/hisrec, via `binance`)')
    const deposit = await waitFor('the deposit to be credited', async () =>
      (await spot.getDepositHistory({ coin: 'USDT' })).find((d) => d.status === 1))
    detail(`credited   ${deposit.amount} ${deposit.coin}, txId ${deposit.txId}`)

    step(`Moves ${MARGIN_USDT} USDT of margin to the futures wallet (POST /sapi/v1/asset/transfer)`)
    const transfer = await spot.submitUniversalTransfer({ type: 'MAIN_UMFUTURE', asset: 'USDT', amount: Number(MARGIN_USDT) } as never)
    detail(`tranId     ${transfer.tranId}`)
    detail(`futures    ${(await futures.getBalanceV3()).find((b) => b.asset === 'USDT')!.balance} USDT`)

    step(`Buys ${QTY} ${SYMBOL} at market from the bot's quotes, then sells it back (USDMClient.submitNewOrder)`)
    const book = await waitFor('the bot\'s quotes', async () => {
      const b = await futures.getOrderBook({ symbol: SYMBOL, limit: 5 })
      return b.asks.length > 0 && b.bids.length > 0 ? b : undefined
    })
    detail(`book       best bid ${book.bids[0]![0]}, best ask ${book.asks[0]![0]}`)
    const buy = await futures.submitNewOrder({ symbol: SYMBOL, side: 'BUY', type: 'MARKET', quantity: QTY, newOrderRespType: 'RESULT' })
    if (buy.status !== 'FILLED') throw new Error(`the buy was not filled: ${JSON.stringify(buy)}`)
    detail(`bought     ${buy.executedQty} at ${buy.avgPrice} (order ${buy.orderId}, ${buy.status})`)
    const position = (await futures.getPositionsV3({ symbol: SYMBOL }))[0]!
    detail(`position   ${position.positionAmt} at entry ${position.entryPrice}`)
    const sell = await futures.submitNewOrder({ symbol: SYMBOL, side: 'SELL', type: 'MARKET', quantity: QTY, reduceOnly: 'true', newOrderRespType: 'RESULT' })
    if (sell.status !== 'FILLED') throw new Error(`the sell was not filled: ${JSON.stringify(sell)}`)
    detail(`sold       ${sell.executedQty} at ${sell.avgPrice} (order ${sell.orderId}, ${sell.status})`)
    for (const trade of await futures.getAccountTrades({ symbol: SYMBOL })) {
      detail(`fill       ${trade.side} ${trade.qty} @ ${trade.price}, fee ${trade.commission} ${trade.commissionAsset}, realized ${trade.realizedPnl}`)
    }

    step('Moves the margin back to the spot wallet and withdraws everything to the wallet on chain')
    const balance = (await futures.getBalanceV3()).find((b) => b.asset === 'USDT')!
    // The ledger keeps 6 decimals of USDT: the futures figures print 8, the last two zero.
    const back = String(balance.maxWithdrawAmount).replace(/(\.\d{6})\d*$/, '$1')
    await spot.submitUniversalTransfer({ type: 'UMFUTURE_MAIN', asset: 'USDT', amount: back } as never)
    const free = String((await spot.getBalances()).find((c) => c.coin === 'USDT')!.free)
    detail(`spot       ${free} USDT (after ${back} back from futures)`)
    const withdrawal = await spot.withdraw({ coin: 'USDT', address: wallet.address, amount: Number(free) })
    detail(`withdrawal id ${withdrawal.id}: debited, the exchange pays it from the Vault`)
    const paid = await waitFor('the withdrawal to be paid', async () =>
      (await spot.getWithdrawHistory({ coin: 'USDT' })).find((w) => w.id === withdrawal.id && (w.status === 6 || w.status === 5)))
    if (paid.status !== 6) throw new Error(`the withdrawal failed: ${JSON.stringify(paid)}`)
    detail(`paid       tx ${paid.txId}`)
    const onChain = await usdt.balanceOf(wallet.address) as bigint
    detail(`on chain   the wallet holds ${formatUnits(onChain, 6)} USDT`)
    if (onChain !== parseUnits(free, 6)) throw new Error(`expected ${free} USDT on chain, found ${formatUnits(onChain, 6)}`)

    step('Stops the exchange and audits its log against the state roots anchored in the Vault')
    const vault = vaultAt(vaultAddress, provider)
    await waitFor('an anchor on chain', async () => ((await vault.latestSeq()) as bigint) > 0n ? true : undefined)
    provider.destroy()
    cleanups.pop()
    const exited = new Promise((r) => exchange!.child.once('exit', r))
    exchange.child.kill('SIGTERM')
    await exited
    exchange = undefined
    // The chain as the exchange left it (anvil keeps its state in the data directory).
    const anvil = await startAnvil({ chainId: CHAIN_ID, stateFile: path.join(dir, 'chain', 'anvil-state.json') })
    cleanups.push(() => anvil.stop())
    const auditArgs = ['audit', '--data', dir, '--rpc', anvil.url, '--vault', vaultAddress]
    detail(`$ exchange ${auditArgs.join(' ')}`)
    const audit = await promisify(execFile)(process.execPath, [BIN, ...auditArgs]).catch((err: { stdout?: string; stderr?: string; message: string }) => {
      for (const l of (err.stdout ?? '').trim().split('\n')) detail(`  ${l}`)
      throw new Error(`the audit failed: ${err.stderr || err.message}`)
    })
    for (const l of audit.stdout.trim().split('\n')) detail(`  ${l}`)
    if (!/^PASS/m.test(audit.stdout)) throw new Error('the audit did not pass')
    out('\nDemo complete: deposit, session, trades, withdrawal and audit all succeeded.')
  } finally {
    if (exchange) {
      const exited = new Promise((r) => exchange!.child.once('exit', r))
      if (exchange.child.exitCode === null) exchange.child.kill('SIGKILL')
      await exited
    }
    for (const fn of cleanups.reverse()) await fn()
    if (keep) out(`(kept ${dir})`)
    else await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 })
  }
}

main(process.argv.slice(2)).then(() => process.exit(0), (err: Error) => {
  process.stderr.write(`\ndemo FAILED: ${err.message}\n`)
  process.exit(1)
})
