// A small seeded PRNG (mulberry32) for simulators and workload generators: the same seed
// gives the same sequence on every machine, and nothing here touches Math.random.

export class Rng {
  private s: number

  constructor(seed: number) {
    this.s = seed >>> 0
  }

  /** Next 32-bit unsigned integer. */
  u32(): number {
    let t = (this.s = (this.s + 0x6d2b79f5) >>> 0)
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return (t ^ (t >>> 14)) >>> 0
  }

  /** Uniform integer in [0, n), n ≤ 2^32. */
  below(n: number): number {
    return Math.floor((this.u32() / 4294967296) * n)
  }

  /** Uniform integer in [lo, hi], both inclusive. */
  int(lo: number, hi: number): number {
    return lo + this.below(hi - lo + 1)
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.u32() < p * 4294967296
  }

  /** A `chars`-long lowercase hex string. */
  hex(chars: number): string {
    let out = ''
    while (out.length < chars) out += this.u32().toString(16).padStart(8, '0')
    return out.slice(0, chars)
  }
}
