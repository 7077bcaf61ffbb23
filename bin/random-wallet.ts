// A fresh random key as a plain Wallet. ethers' Wallet.createRandom makes an HD wallet
// (a mnemonic, then a BIP-32 derivation): ~0.1 s of every start, for keys nobody restores
// from words.

import { randomBytes } from 'node:crypto'
import { Wallet } from 'ethers'

/** secp256k1's group order: a private key is in [1, N). */
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n

export function randomWallet(): Wallet {
  for (;;) {
    const key = BigInt('0x' + randomBytes(32).toString('hex'))
    if (key > 0n && key < N) return new Wallet('0x' + key.toString(16).padStart(64, '0'))
  }
}
