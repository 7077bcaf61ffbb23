// The `binance` package's sub-account calls (MainClient, base URL moved) against a real
// exchange process: a user opens a session for sub-account 1 with their wallet, funds it from
// the master's spot wallet into its futures wallet, the bot on it sends part back, and both read
// the transfers, as a trader running a bot on a sub-account would; then `exchange session` opens
// another sub-account's session from the keys file.

import t from 'tap'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { Wallet } from 'ethers'
import { MainClient, USDMClient } from 'binance'
import { startLiveExchange, type LiveAccount } from '../helpers/live-exchange.js'

t.test('binance MainClient: universal transfer to a sub-account, its transfer back, both histories, a sub-account made', { timeout: 120_000 }, async (t) => {
  const live = await startLiveExchange(t)
  const { base } = live
  const owner = new Wallet(String((live.taker as LiveAccount & { privateKey: string }).privateKey))

  // The bot's session on sub-account 1, signed by the owner's wallet from the served typed data.
  const typed = await (await fetch(`${base}/fapi/v1/session/typedData`)).json() as {
    domain: { name: string; version: string; chainId: number }; types: Record<string, { name: string; type: string }[]>
  }
  const message = { address: owner.address, subAccount: 1, permissions: 'TRADE,USER_DATA', expiresAt: Date.now() + 3_600_000, nonce: Date.now() }
  const signature = await owner.signTypedData(typed.domain, { Session: typed.types.Session! }, message)
  const opened = await fetch(`${base}/fapi/v1/session`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...Object.fromEntries(Object.entries(message).map(([k, v]) => [k, String(v)])), signature }) })
  t.equal(opened.status, 200)
  const bot = await opened.json() as { apiKey: string; secretKey: string }

  const options = (k: { apiKey: string; secretKey: string }) => ({ api_key: k.apiKey, api_secret: k.secretKey, baseUrl: base })
  const master = new MainClient(options({ apiKey: live.taker.apiKey, secretKey: live.taker.secretKey }))
  const sub = new MainClient(options(bot))
  const subFutures = new USDMClient(options(bot))
  const email = (n: number): string => `sub${n}@${owner.address}`

  const sent = await master.subAccountUniversalTransfer({ toEmail: email(1), fromAccountType: 'SPOT', toAccountType: 'USDT_FUTURE',
    asset: 'USDT', amount: 2_500, clientTranId: 'fund-bot' } as never)
  t.match(sent, { tranId: Number, clientTranId: 'fund-bot' })
  const balances = await subFutures.getBalanceV3()
  t.equal(balances.find((b) => b.asset === 'USDT')?.balance, '2500.00000000', 'the bot\'s futures wallet holds it')

  // Spot money for the bot, and 300 of it back to the master by the bot's own key.
  await master.subAccountUniversalTransfer({ toEmail: email(1), fromAccountType: 'SPOT', toAccountType: 'SPOT', asset: 'USDT', amount: 500 } as never)
  const back = await sub.subAccountTransferToMaster({ asset: 'USDT', amount: 300 } as never)
  t.match(back, { txnId: Number })

  const list = await master.getSubAccountList({ limit: 10 } as never) as unknown as { subAccounts: { email: string }[] }
  t.same(list.subAccounts.map((s) => s.email), [email(1)])
  const history = await master.getSubAccountUniversalTransferHistory({} as never) as unknown as
    { totalCount: number; result: { fromEmail: string; toEmail: string; amount: string; toAccountType: string }[] }
  t.equal(history.totalCount, 3)
  t.same(history.result.map((r) => [r.fromEmail, r.toEmail, r.amount, r.toAccountType]), [
    [email(1), email(0), '300', 'SPOT'], [email(0), email(1), '500', 'SPOT'], [email(0), email(1), '2500', 'USDT_FUTURE'],
  ])
  const mine = await sub.subAccountTransferHistory({} as never) as unknown as { type: number; qty: string; counterParty: string }[]
  t.same(mine.map((r) => [r.type, r.qty, r.counterParty]), [[2, '300', 'master'], [1, '500', 'master'], [1, '2500', 'master']])

  // The master's spot wallet, read by hand: 10,000 − 2,500 − 500 + 300.
  const account = await live.signed(live.taker, 'GET', '/api/v3/account') as { balances: { asset: string; free: string }[] }
  t.equal(account.balances.find((b) => b.asset === 'USDT')?.free, '7300.00000000')

  // `exchange session`: the owner opens sub-account 2's session from the keys file, and the
  // master funds it; its key reads the money.
  const dir = await mkdtemp(path.join(os.tmpdir(), 'keys-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const keysFile = path.join(dir, 'keys.json')
  await writeFile(keysFile, JSON.stringify(live.taker))
  const second = JSON.parse(await live.cli(['session', '--api', base, '--keys', keysFile, '--sub', '2'])) as
    { apiKey: string; secretKey: string; address: string; subAccount: number; permissions: string[] }
  t.match(second, { address: owner.address, subAccount: 2, permissions: ['TRADE', 'USER_DATA'] })
  await master.subAccountUniversalTransfer({ toEmail: email(2), fromAccountType: 'SPOT', toAccountType: 'USDT_FUTURE', asset: 'USDT', amount: 50 } as never)
  const hers = await new USDMClient(options(second)).getBalanceV3()
  t.equal(hers.find((b) => b.asset === 'USDT')?.balance, '50.00000000')

  // A sub-account made by the master's key: the lowest number not in use (1 and 2 are).
  t.same(await master.createVirtualSubAccount({ subAccountString: 'grid' } as never), { email: email(3) })
  const after = await master.getSubAccountList({ limit: 10 } as never) as unknown as { subAccounts: { email: string }[] }
  t.same(after.subAccounts.map((s) => s.email), [email(1), email(2), email(3)])

  // Futures money moved by the master: sub-account 1's futures wallet to the new one's, then
  // part of it to the new one's spot wallet.
  t.match(await master.subAccountFuturesAssetTransfer({ fromEmail: email(1), toEmail: email(3), futuresType: 1, asset: 'USDT', amount: 100 } as never),
    { success: true, txnId: /^[0-9]+$/ })
  t.match(await master.subAccountFuturesTransfer({ email: email(3), asset: 'USDT', amount: 40, type: 2 } as never), { txnId: /^[0-9]+$/ })
  const third = await master.getSubAccountAssetsMaster({ email: email(3) } as never) as unknown as { balances: { asset: string; free: string }[] }
  t.same(third.balances.map((b) => [b.asset, b.free]), [['USDT', '40.00000000']], 'its spot wallet holds the 40')
  const thirdFutures = await master.getSubAccountDetailOnFuturesAccountV2({ email: email(3), futuresType: 1 } as never) as unknown as
    { futureAccountResp: { totalWalletBalance: string } }
  t.match(thirdFutures.futureAccountResp, { totalWalletBalance: /^60(\.0+)?$/ }, 'its futures wallet the other 60')
  const moves = await master.getSubAccountFuturesAssetTransferHistory({ email: email(3), futuresType: 1 } as never) as unknown as
    { success: boolean; transfers: { from: string; to: string; qty: string }[] }
  t.same(moves.transfers.map((m) => [m.from, m.to, m.qty]), [[email(1), email(3), '100']], 'its futures internal transfers')
  t.same(live.offMachine, [], 'no request left the machine')
})
