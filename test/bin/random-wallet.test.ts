// The demo account's and the oracle's fresh keys: random, in range, and signing for their address.

import t from 'tap'
import { verifyMessage } from 'ethers'
import { randomWallet } from '../../bin/random-wallet.js'

t.test('each wallet is a new key that signs for its own address', async (t) => {
  const wallets = Array.from({ length: 20 }, () => randomWallet())
  t.equal(new Set(wallets.map((w) => w.privateKey)).size, 20, 'no key repeats')
  for (const w of wallets) {
    t.match(w.privateKey, /^0x[0-9a-f]{64}$/)
    t.equal(verifyMessage('hello', await w.signMessage('hello')), w.address)
  }
})
