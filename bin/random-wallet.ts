// A fresh random key as a plain Wallet. ethers' Wallet.createRandom makes an HD wallet
// (a mnemonic, then a BIP-32 derivation): ~0.19 s of every start, for keys nobody restores
// from words.

import { randomBytes } from 'node:crypto'
import { Wallet } from 'ethers'

/** secp256k1's group order: a private key is in [1, N). */
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n

export function randomWallet(): Wallet {
  for (;;) {
    const key = '0x' + randomBytes(32).toString('hex')
    const k = BigInt(key)
    if (k > 0n && k < N) return new Wallet(key)
  }
}
