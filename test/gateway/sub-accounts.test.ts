// The sub-account API (gateway/routes/sub-accounts.ts): the master funds a bot's sub-account
// and reads every transfer; the sub-account sees its money, its income and its stream, sends
// money back or on to a sibling and reads its own history; every misuse is refused in
// Binance's form, changing nothing; on a log under rules older than 3 the transfer is refused;
// a clientTranId names one transfer only.

import t from 'tap'
import { Wallet } from 'ethers'
import { RULES_VERSION } from '../../core/rules.js'
import { UserEvents, type Payload } from '../../gateway/user-data/events.js'
import { SpotUserEvents } from '../../gateway/user-data/spot-events.js'
import { gatewayRig, openSession, signedInject, type GatewayRig, type Keys } from '../helpers/gateway.js'

const USDT = 1_000_000

async function keysFor(rig: GatewayRig, wallet: ReturnType<typeof Wallet.createRandom>, subAccount: number, permissions = 'TRADE,USER_DATA') {
  const r = await openSession(rig, wallet, { subAccount, permissions })
  if (r.statusCode !== 200) throw new Error(r.body)
  return r.json() as Keys
}

t.test('the master funds a sub-account, which trades on it, sends some back and on, and each reads its history', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  t.ok((await rig.run({ type: 'SetRules', version: RULES_VERSION, leafSeed: '0x' + '4d'.repeat(32) })).ok)
  const wallet = Wallet.createRandom()
  const address = wallet.address
  const master = await keysFor(rig, wallet, 0)
  const bot = await keysFor(rig, wallet, 1)
  await rig.run({ type: 'Deposit', account: address, sub: 0, asset: 'USDT', amount: 1_000 * USDT, wallet: 'SPOT', ref: 'd1' })
  const email = (n: number): string => `sub${n}@${address}`

  // The futures and spot user data streams of each sub-account, as the committed entries reach them.
  const users = new UserEvents()
  const spot = new SpotUserEvents()
  users.seed(rig.ex.state)
  spot.seed(rig.ex.state)
  const got: { sub: number; payload: Payload }[] = []
  const spotMoves: string[] = []
  rig.ctx.onCommitted!((c) => {
    const mine = (account: string): boolean => account === address
    for (const r of c.results) {
      users.entry(rig.ex.state, rig.ex.time, r.events, mine, (_a, sub, payload) => got.push({ sub, payload }))
      spot.entry(rig.ex.state, rig.ex.time, r.events, mine, (_a, sub, p) => {
        if (p.e === 'balanceUpdate') spotMoves.push(`${sub} ${String(p.a)} ${String(p.d)}`)
      })
    }
  })

  // Master → sub 1's futures wallet, 300 USDT, with its own id.
  const sent = await signedInject(rig, master, 'POST', '/sapi/v1/sub-account/universalTransfer', {
    toEmail: email(1), fromAccountType: 'SPOT', toAccountType: 'USDT_FUTURE', asset: 'USDT', amount: '300', clientTranId: 'fund-bot-1' })
  t.equal(sent.statusCode, 200, sent.body)
  const { tranId, clientTranId } = sent.json()
  t.equal(clientTranId, 'fund-bot-1')
  t.ok(Number.isSafeInteger(tranId) && tranId > 0)
  t.match(got.splice(0), [{ sub: 1, payload: { e: 'ACCOUNT_UPDATE', a: { m: 'DEPOSIT',
    B: [{ a: 'USDT', wb: '300.00000000', cw: '300.00000000', bc: '300.00000000' }], P: [] } } }], 'the bot\'s stream hears it')

  // The bot's own key sees the money in its futures wallet and as TRANSFER income.
  const balance = (await signedInject(rig, bot, 'GET', '/fapi/v2/balance')).json() as { asset: string; balance: string }[]
  t.equal(balance.find((b) => b.asset === 'USDT')!.balance, '300.00000000')
  const income = (await signedInject(rig, bot, 'GET', '/fapi/v1/income', { incomeType: 'TRANSFER' })).json()
  t.match(income, [{ incomeType: 'TRANSFER', income: '300.00000000', asset: 'USDT', info: 'FROM_SUB_ACCOUNT_0', tranId }])
  const masterSpot = (await signedInject(rig, master, 'GET', '/api/v3/account')).json().balances as { asset: string; free: string }[]
  t.equal(masterSpot.find((b) => b.asset === 'USDT')!.free, '700.00000000')

  // It trades on it: an order whose margin the transfer pays.
  const order = await signedInject(rig, bot, 'POST', '/fapi/v1/order', { symbol: 'BTCUSDTPERP', side: 'BUY', type: 'LIMIT',
    timeInForce: 'GTC', quantity: '0.010', price: '40000' })
  t.equal(order.statusCode, 200, order.body)

  // Spot money for the bot, then the bot sends 40 back to the master and 10 on to sub-account 2.
  t.equal((await signedInject(rig, master, 'POST', '/sapi/v1/sub-account/universalTransfer', {
    toEmail: email(1), fromAccountType: 'SPOT', toAccountType: 'SPOT', asset: 'USDT', amount: '100' })).statusCode, 200)
  const back = await signedInject(rig, bot, 'POST', '/sapi/v1/sub-account/transfer/subToMaster', { asset: 'USDT', amount: '40' })
  t.equal(back.statusCode, 200, back.body)
  t.ok(back.json().txnId > tranId)
  const on = await signedInject(rig, bot, 'POST', '/sapi/v1/sub-account/transfer/subToSub', { toEmail: email(2), asset: 'USDT', amount: '10' })
  t.equal(on.statusCode, 200, on.body)
  // The master takes 100 of the bot's futures wallet back (200 remain; the order holds 20).
  const pulled = await signedInject(rig, master, 'POST', '/sapi/v1/sub-account/universalTransfer', {
    fromEmail: email(1), fromAccountType: 'USDT_FUTURE', toAccountType: 'SPOT', asset: 'USDT', amount: '100' })
  t.equal(pulled.statusCode, 200, pulled.body)
  t.match(got.filter((g) => g.payload.e === 'ACCOUNT_UPDATE').at(-1), { sub: 1, payload: { a: { m: 'WITHDRAW',
    B: [{ a: 'USDT', wb: '200.00000000', bc: '-100.00000000' }] } } })

  t.same(spotMoves, ['0 USDT -300.00000000', '0 USDT -100.00000000', '1 USDT 100.00000000', '1 USDT -40.00000000',
    '0 USDT 40.00000000', '1 USDT -10.00000000', '2 USDT 10.00000000', '0 USDT 100.00000000'], 'each spot side on its spot stream')

  // The master's list and history: every transfer of the account, newest first.
  t.same((await signedInject(rig, master, 'GET', '/sapi/v1/sub-account/list', { limit: 10 })).json(), { subAccounts: [
    { email: email(1), isFreeze: false, isManagedSubAccount: false, isAssetManagementSubAccount: false },
    { email: email(2), isFreeze: false, isManagedSubAccount: false, isAssetManagementSubAccount: false },
  ] })
  const all = (await signedInject(rig, master, 'GET', '/sapi/v1/sub-account/universalTransfer')).json()
  t.equal(all.totalCount, 5)
  t.same(all.result.map((r: Record<string, string>) => `${r.fromEmail.split('@')[0]}>${r.toEmail.split('@')[0]} ${r.fromAccountType}>${r.toAccountType} ${r.amount}`), [
    'sub1>sub0 USDT_FUTURE>SPOT 100', 'sub1>sub2 SPOT>SPOT 10', 'sub1>sub0 SPOT>SPOT 40', 'sub0>sub1 SPOT>SPOT 100',
    'sub0>sub1 SPOT>USDT_FUTURE 300',
  ])
  t.match(all.result[4], { tranId, asset: 'USDT', status: 'SUCCESS', clientTranId: 'fund-bot-1', createTimeStamp: Number })
  const toTwo = (await signedInject(rig, master, 'GET', '/sapi/v1/sub-account/universalTransfer', { toEmail: email(2) })).json()
  t.same([toTwo.totalCount, toTwo.result[0].amount], [1, '10'])
  const byId = (await signedInject(rig, master, 'GET', '/sapi/v1/sub-account/universalTransfer', { clientTranId: 'fund-bot-1' })).json()
  t.same(byId.result.map((r: { tranId: number }) => r.tranId), [tranId])
  const paged = (await signedInject(rig, master, 'GET', '/sapi/v1/sub-account/universalTransfer', { page: 2, limit: 2 })).json()
  t.same([paged.totalCount, paged.result.map((r: { amount: string }) => r.amount)], [5, ['40', '100']])

  // The bot's own history: in (1) and out (2), with whom.
  const mine = (await signedInject(rig, bot, 'GET', '/sapi/v1/sub-account/transfer/subUserHistory')).json()
  t.same(mine.map((r: Record<string, unknown>) => `${r.type} ${r.counterParty} ${String(r.email).split('@')[0]} ${r.qty}`), [
    '2 master sub0 100', '2 subAccount sub2 10', '2 master sub0 40', '1 master sub0 100', '1 master sub0 300',
  ])
  t.equal((await signedInject(rig, bot, 'GET', '/sapi/v1/sub-account/transfer/subUserHistory', { type: 1 })).json().length, 2)

  // Where the money is now: master spot 700 − 100 + 40 + 100, bot futures 200, bot spot 50, sub 2 spot 10.
  const spotOf = async (keys: Keys): Promise<string | undefined> =>
    ((await signedInject(rig, keys, 'GET', '/api/v3/account')).json().balances as { asset: string; free: string }[])
      .find((b) => b.asset === 'USDT')?.free
  t.equal(await spotOf(master), '740.00000000')
  t.equal(await spotOf(bot), '50.00000000')
  t.equal(rig.ex.sub(address, 1).perpWallet, 200 * USDT)
  t.equal(rig.ex.sub(address, 2).spot.get('USDT')!.free, 10 * USDT)

  // The master reads the bot's balances: spot, and the futures account with the order's margin
  // (0.010 × 40000 at 20x: 20 USDT held, 180 free to withdraw).
  t.same((await signedInject(rig, master, 'GET', '/sapi/v4/sub-account/assets', { email: email(1) })).json(),
    { balances: [{ asset: 'USDT', free: '50.00000000', locked: '0.00000000', freeze: '0', withdrawing: '0' }] })
  const futures = (await signedInject(rig, master, 'GET', '/sapi/v2/sub-account/futures/account', { email: email(1), futuresType: 1 })).json()
  t.match(futures, { futureAccountResp: { email: email(1), asset: 'USDT', totalWalletBalance: '200.00000000',
    totalOpenOrderInitialMargin: '20.00000000', totalInitialMargin: '20.00000000', maxWithdrawAmount: '180.00000000',
    assets: [{ asset: 'USDT', walletBalance: '200.00000000', openOrderInitialMargin: '20.00000000', maxWithdrawAmount: '180.00000000' }] } })
  const v1 = (await signedInject(rig, master, 'GET', '/sapi/v1/sub-account/futures/account', { email: email(1) })).json()
  t.same(v1, futures.futureAccountResp, 'v1 answers the same account unwrapped')
  t.same((await signedInject(rig, master, 'GET', '/sapi/v2/sub-account/futures/account', { email: email(1), futuresType: 2 })).json(),
    { code: -1130, msg: "Data sent for parameter 'futuresType' is not valid." }, 'no COIN-M futures here')
  t.same((await signedInject(rig, bot, 'GET', '/sapi/v4/sub-account/assets', { email: email(2) })).json(),
    { code: -1002, msg: 'Only the master account (sub-account 0) may call this endpoint.' })
  t.same((await signedInject(rig, master, 'GET', '/sapi/v4/sub-account/assets', { email: email(7) })).json(), { balances: [] },
    'a sub-account that never held anything holds nothing')
})

t.test('misuse is refused in Binance\'s form and changes nothing', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const wallet = Wallet.createRandom()
  const address = wallet.address
  const master = await keysFor(rig, wallet, 0)
  await rig.run({ type: 'Deposit', account: address, sub: 0, asset: 'USDT', amount: 100 * USDT, wallet: 'SPOT', ref: 'd1' })
  const send = (keys: Keys, params: Record<string, string>) => signedInject(rig, keys, 'POST', '/sapi/v1/sub-account/universalTransfer',
    { fromAccountType: 'SPOT', toAccountType: 'SPOT', asset: 'USDT', amount: '1', ...params })

  // A log under rules older than 3: the operation is not supported.
  t.same((await send(master, { toEmail: `sub1@${address}` })).json(), { code: -1020, msg: 'This operation is not supported.' })
  t.ok((await rig.run({ type: 'SetRules', version: RULES_VERSION, leafSeed: '0x' + '4e'.repeat(32) })).ok)
  const bot = await keysFor(rig, wallet, 1)
  const readOnly = await keysFor(rig, wallet, 3, 'USER_DATA')
  const other = Wallet.createRandom()
  const stranger = await keysFor(rig, other, 0)
  const root = rig.ex.state.seq

  const cases: [string, Promise<{ statusCode: number; json(): unknown }>, number, unknown][] = [
    ['a sub-account\'s key on the master\'s transfer', send(bot, { toEmail: `sub2@${address}` }), 403,
      { code: -1002, msg: 'Only the master account (sub-account 0) may call this endpoint.' }],
    ['the master\'s key on subToMaster', signedInject(rig, master, 'POST', '/sapi/v1/sub-account/transfer/subToMaster', { asset: 'USDT', amount: '1' }), 403,
      { code: -1002, msg: 'Only a sub-account (not the master, sub-account 0) may call this endpoint.' }],
    ['another account\'s sub-account', send(master, { toEmail: `sub1@${other.address}` }), 400,
      { code: -1130, msg: "Data sent for parameter 'toEmail' is not valid." }],
    ['a name that is no sub-account email', send(master, { toEmail: 'bot@example.com' }), 400,
      { code: -1130, msg: "Data sent for parameter 'toEmail' is not valid." }],
    ['a sub-account past the bound', send(master, { toEmail: `sub32@${address}` }), 400,
      { code: -1130, msg: "Data sent for parameter 'toEmail' is not valid." }],
    ['from and to the master', send(master, {}), 400, { code: -1130, msg: "Data sent for parameter 'toEmail' is not valid." }],
    ['an account type not here', send(master, { toEmail: `sub1@${address}`, toAccountType: 'MARGIN' }), 400,
      { code: -1130, msg: "Data sent for parameter 'toAccountType' is not valid." }],
    ['no account type', signedInject(rig, master, 'POST', '/sapi/v1/sub-account/universalTransfer', { toEmail: `sub1@${address}`, asset: 'USDT', amount: '1' }), 400,
      { code: -1102, msg: "Mandatory parameter 'fromAccountType' was not sent, was empty/null, or malformed." }],
    ['more than the master holds', send(master, { toEmail: `sub1@${address}`, amount: '100.000001' }), 400,
      { code: -2018, msg: 'Balance is insufficient.' }],
    ['BTC into a futures wallet', send(master, { toEmail: `sub1@${address}`, asset: 'BTC', toAccountType: 'USDT_FUTURE' }), 400,
      { code: -1108, msg: 'Invalid asset.' }],
    ['an unknown asset', send(master, { toEmail: `sub1@${address}`, asset: 'DOGE' }), 400,
      { code: -1130, msg: "Data sent for parameter 'asset' is not valid." }],
    ['a number written with a leading zero', send(master, { toEmail: `sub01@${address}` }), 400,
      { code: -1130, msg: "Data sent for parameter 'toEmail' is not valid." }],
    ['a client id with a space', send(master, { toEmail: `sub1@${address}`, clientTranId: 'a b' }), 400,
      { code: -1130, msg: "Data sent for parameter 'clientTranId' is not valid." }],
    ['a key without TRADE', signedInject(rig, readOnly, 'POST', '/sapi/v1/sub-account/transfer/subToMaster', { asset: 'USDT', amount: '1' }), 403,
      { code: -2015, msg: 'Invalid API-key, IP, or permissions for action.' }],
    ['a sub-account sending to itself', signedInject(rig, bot, 'POST', '/sapi/v1/sub-account/transfer/subToSub', { toEmail: `sub1@${address}`, asset: 'USDT', amount: '1' }), 400,
      { code: -1130, msg: "Data sent for parameter 'toEmail' is not valid." }],
    ['a sub-account sending what it has not', signedInject(rig, bot, 'POST', '/sapi/v1/sub-account/transfer/subToMaster', { asset: 'USDT', amount: '1' }), 400,
      { code: -2018, msg: 'Balance is insufficient.' }],
    ['another account\'s master listing', signedInject(rig, bot, 'GET', '/sapi/v1/sub-account/list'), 403,
      { code: -1002, msg: 'Only the master account (sub-account 0) may call this endpoint.' }],
    ['a history range past 30 days', signedInject(rig, master, 'GET', '/sapi/v1/sub-account/universalTransfer',
      { startTime: 0, endTime: 31 * 86_400_000 }), 400, { code: -1130, msg: "Data sent for parameter 'startTime' is not valid." }],
  ]
  for (const [name, pending, status, body] of cases) {
    const r = await pending
    t.same([r.statusCode, r.json()], [status, body], name)
  }
  t.equal(rig.ex.state.seq - root, 3, 'only the three the core refuses (two balances, an asset) reached the log')
  t.same((await signedInject(rig, stranger, 'GET', '/sapi/v1/sub-account/list')).json(), { subAccounts: [] }, 'a stranger sees none of it')
  t.equal(rig.ex.sub(address).spot.get('USDT')!.free, 100 * USDT)
})

t.test('a clientTranId names one transfer: a retry, or two sent at once, move the money once', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  t.ok((await rig.run({ type: 'SetRules', version: RULES_VERSION, leafSeed: '0x' + '4f'.repeat(32) })).ok)
  const wallet = Wallet.createRandom()
  const master = await keysFor(rig, wallet, 0)
  await rig.run({ type: 'Deposit', account: wallet.address, sub: 0, asset: 'USDT', amount: 100 * USDT, wallet: 'SPOT', ref: 'd1' })
  const send = (params: Record<string, string>) => signedInject(rig, master, 'POST', '/sapi/v1/sub-account/universalTransfer',
    { fromAccountType: 'SPOT', toAccountType: 'SPOT', asset: 'USDT', amount: '1', ...params })
  const held = (sub: number): number => rig.ex.sub(wallet.address, sub).spot.get('USDT')!.free

  const first = await send({ toEmail: `sub1@${wallet.address}`, clientTranId: 'pay-1' })
  t.equal(first.statusCode, 200)
  const { tranId } = first.json()
  // The answer lost, the bot sends it again; or sends the id with another transfer by mistake.
  const retries: Record<string, string>[] = [{ toEmail: `sub1@${wallet.address}` }, { fromEmail: `sub1@${wallet.address}`, toEmail: `sub2@${wallet.address}` }]
  for (const params of retries) {
    const again = await send({ ...params, clientTranId: 'pay-1' })
    t.same([again.statusCode, again.json()], [400, { code: -1130,
      msg: `Data sent for parameter 'clientTranId' is not valid: transfer ${tranId} has it; it must be unique.` }])
  }
  t.same([held(0), held(1)], [99 * USDT, 1 * USDT], 'moved once')
  const twice = await Promise.all([0, 1].map(() => send({ toEmail: `sub2@${wallet.address}`, clientTranId: 'pay-2' })))
  t.same(twice.map((r) => r.statusCode).sort(), [200, 400], 'two at once: one goes through')
  t.match(twice.find((r) => r.statusCode === 400)!.json(), { code: -1130, msg: /a transfer with it is being made/ })
  t.same([held(0), held(2)], [98 * USDT, 1 * USDT])
  t.equal((await send({ toEmail: `sub2@${wallet.address}` })).statusCode, 200, 'without a clientTranId, as many as asked')
  t.equal((await send({ toEmail: `sub2@${wallet.address}` })).statusCode, 200)
  t.equal(held(2), 3 * USDT)
})

t.test('the master makes sub-accounts (virtualSubAccount): numbered, listed, funded; misuse refused', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  const wallet = Wallet.createRandom()
  const address = wallet.address
  const master = await keysFor(rig, wallet, 0)
  const make = (keys: Keys, params: Record<string, string> = { subAccountString: 'grid-bot' }) =>
    signedInject(rig, keys, 'POST', '/sapi/v1/sub-account/virtualSubAccount', params)

  // Under rules 3 (a log a build before this one wrote) there is no such operation.
  t.ok((await rig.run({ type: 'SetRules', version: 3, leafSeed: '0x' + '4f'.repeat(32) })).ok)
  t.same((await make(master)).json(), { code: -1020, msg: 'This operation is not supported.' })
  t.ok((await rig.run({ type: 'SetRules', version: RULES_VERSION })).ok)

  const first = await make(master)
  t.equal(first.statusCode, 200, first.body)
  t.same(first.json(), { email: `sub1@${address}` })
  t.same((await make(master, { subAccountString: 'arb.2' })).json(), { email: `sub2@${address}` }, 'the next, the next number')
  const list = (await signedInject(rig, master, 'GET', '/sapi/v1/sub-account/list', { limit: '10' })).json() as { subAccounts: { email: string }[] }
  t.same(list.subAccounts.map((s) => s.email), [`sub1@${address}`, `sub2@${address}`], 'listed at once, empty as they are')

  // The new sub-account is funded and used as any.
  await rig.run({ type: 'Deposit', account: address, sub: 0, asset: 'USDT', amount: 50 * USDT, wallet: 'SPOT', ref: 'd1' })
  const sent = await signedInject(rig, master, 'POST', '/sapi/v1/sub-account/universalTransfer', {
    toEmail: `sub2@${address}`, fromAccountType: 'SPOT', toAccountType: 'USDT_FUTURE', asset: 'USDT', amount: '20' })
  t.equal(sent.statusCode, 200, sent.body)
  const bot = await keysFor(rig, wallet, 2)
  const balance = (await signedInject(rig, bot, 'GET', '/fapi/v2/balance')).json() as { asset: string; balance: string }[]
  t.equal(balance.find((b) => b.asset === 'USDT')!.balance, '20.00000000', 'its own key sees the money')

  // Sub-accounts 1 to 31: past the last, refused.
  for (let n = 3; n <= 31; n++) t.equal((await make(master)).statusCode, 200)
  const full = await make(master)
  t.same([full.statusCode, full.json()], [400, { code: -1130, msg: 'The account has every sub-account it may have (31).' }])

  // Misuse: refused in Binance's form, nothing reaching the log. (A read-only key for the
  // master replaces its session: one per sub-account, so it comes last.)
  const seq = rig.ex.state.seq
  const cases: [string, () => Promise<{ statusCode: number; json(): unknown }>, number, unknown][] = [
    ['no subAccountString', () => make(master, {}), 400,
      { code: -1102, msg: "Mandatory parameter 'subAccountString' was not sent, was empty/null, or malformed." }],
    ['a subAccountString with a space', () => make(master, { subAccountString: 'grid bot' }), 400,
      { code: -1130, msg: "Data sent for parameter 'subAccountString' is not valid." }],
    ['a sub-account\'s key', () => make(bot), 403, { code: -1002, msg: 'Only the master account (sub-account 0) may call this endpoint.' }],
    ['a key without TRADE', async () => make(await keysFor(rig, wallet, 0, 'USER_DATA')), 403,
      { code: -2015, msg: 'Invalid API-key, IP, or permissions for action.' }],
  ]
  for (const [name, request, status, body] of cases) {
    const r = await request()
    t.same([r.statusCode, r.json()], [status, body], name)
  }
  t.equal(rig.ex.state.seq, seq + 1, 'none reached the log (the read-only key\'s session did)')
})

t.test('the master moves futures money between sub-accounts and within one (futures/internalTransfer, futures/transfer)', async (t) => {
  const rig = await gatewayRig()
  t.teardown(() => rig.close())
  t.ok((await rig.run({ type: 'SetRules', version: RULES_VERSION, leafSeed: '0x' + '50'.repeat(32) })).ok)
  const wallet = Wallet.createRandom()
  const address = wallet.address
  const master = await keysFor(rig, wallet, 0)
  const email = (n: number): string => `sub${n}@${address}`
  await rig.run({ type: 'Deposit', account: address, sub: 0, asset: 'USDT', amount: 100 * USDT, wallet: 'SPOT', ref: 'd1' })
  t.equal((await signedInject(rig, master, 'POST', '/sapi/v1/sub-account/universalTransfer', {
    toEmail: email(1), fromAccountType: 'SPOT', toAccountType: 'USDT_FUTURE', asset: 'USDT', amount: '30' })).statusCode, 200)
  const internal = (params: Record<string, string>, keys = master) => signedInject(rig, keys, 'POST', '/sapi/v1/sub-account/futures/internalTransfer',
    { fromEmail: email(1), toEmail: email(2), futuresType: '1', asset: 'USDT', amount: '10', ...params })
  const within = (params: Record<string, string>, keys = master) => signedInject(rig, keys, 'POST', '/sapi/v1/sub-account/futures/transfer',
    { email: email(2), asset: 'USDT', amount: '4', type: '2', ...params })
  const sub = (n: number) => rig.ex.state.accounts.get(address)!.subs[n]!

  const moved = await internal({})
  t.equal(moved.statusCode, 200, moved.body)
  t.match(moved.json(), { success: true, txnId: /^[0-9]+$/ })
  t.same([sub(1).perpWallet, sub(2).perpWallet], [20 * USDT, 10 * USDT], 'futures wallet to futures wallet')
  const back = await within({})
  t.equal(back.statusCode, 200, back.body)
  t.match(back.json(), { txnId: /^[0-9]+$/ })
  t.same([sub(2).perpWallet, sub(2).spot.get('USDT')!.free], [6 * USDT, 4 * USDT], 'sub-account 2\'s futures wallet to its spot wallet')
  t.equal((await within({ type: '1', amount: '1' })).statusCode, 200)
  t.same([sub(2).perpWallet, sub(2).spot.get('USDT')!.free], [7 * USDT, 3 * USDT], 'and back the other way')
  const history = (await signedInject(rig, master, 'GET', '/sapi/v1/sub-account/universalTransfer')).json() as { result: { toAccountType: string }[] }
  t.equal(history.result.length, 2, 'the universal transfer history lists the transfers between sub-accounts')
  const futures = (await signedInject(rig, master, 'GET', '/sapi/v1/sub-account/futures/internalTransfer',
    { email: email(2), futuresType: '1' })).json()
  t.match(futures, { success: true, futuresType: 1, transfers: [{ from: email(1), to: email(2), asset: 'USDT', qty: '10', tranId: Number(moved.json().txnId) }] },
    'the futures internal transfers sub-account 2 took part in (not its spot ones)')
  t.same((await signedInject(rig, master, 'GET', '/sapi/v1/sub-account/futures/internalTransfer', { email: email(3), futuresType: '1' })).json(),
    { success: true, futuresType: 1, transfers: [] }, 'none for a sub-account without any')

  const bot = await keysFor(rig, wallet, 1)
  const seq = rig.ex.state.seq
  const cases: [string, () => Promise<{ statusCode: number; json(): unknown }>, number, unknown][] = [
    ['COIN-M futures', () => internal({ futuresType: '2' }), 400, { code: -1130, msg: "Data sent for parameter 'futuresType' is not valid." }],
    ['no fromEmail', () => internal({ fromEmail: '' }), 400,
      { code: -1102, msg: "Mandatory parameter 'fromEmail' was not sent, was empty/null, or malformed." }],
    ['to itself', () => internal({ toEmail: email(1) }), 400, { code: -1130, msg: "Data sent for parameter 'toEmail' is not valid." }],
    ['BTC between futures wallets', () => internal({ asset: 'BTC' }), 400, { code: -1108, msg: 'Invalid asset.' }],
    ['more than the futures wallet holds', () => internal({ amount: '21' }), 400, { code: -2018, msg: 'Balance is insufficient.' }],
    ['a sub-account\'s key', () => internal({}, bot), 403, { code: -1002, msg: 'Only the master account (sub-account 0) may call this endpoint.' }],
    ['COIN-M type', () => within({ type: '3' }), 400, { code: -1130, msg: "Data sent for parameter 'type' is not valid." }],
    ['BTC to futures', () => within({ asset: 'BTC' }), 400, { code: -1130, msg: "Data sent for parameter 'asset' is not valid." }],
    ['no email', () => within({ email: '' }), 400,
      { code: -1102, msg: "Mandatory parameter 'email' was not sent, was empty/null, or malformed." }],
    ['the history without futuresType', () => signedInject(rig, master, 'GET', '/sapi/v1/sub-account/futures/internalTransfer', { email: email(2) }), 400,
      { code: -1102, msg: "Mandatory parameter 'futuresType' was not sent, was empty/null, or malformed." }],
    ['the history from a sub-account\'s key', () => signedInject(rig, bot, 'GET', '/sapi/v1/sub-account/futures/internalTransfer',
      { email: email(2), futuresType: '1' }), 403, { code: -1002, msg: 'Only the master account (sub-account 0) may call this endpoint.' }],
  ]
  for (const [name, request, status, body] of cases) {
    const r = await request()
    t.same([r.statusCode, r.json()], [status, body], name)
  }
  t.equal(rig.ex.state.seq - seq, 2, 'only the two the core refuses (an asset, a balance) reached the log')
})
