// The binary heap behind the core's waiting lists (goodTillDate expiries in gtd.ts, conditional
// triggers in trigger-index.ts, liquidation check triggers in liquidation/watch.ts). Sifts move
// a hole rather than swapping, so each level costs one write. With a strict total order the
// layout, and so the pop sequence, depends only on the pushes and pops made; users whose order
// has ties must not depend on which of the tied items surfaces first.

export class Heap<T> {
  readonly items: T[] = []

  /** `before(a, b)`: a must surface before b (strictly). */
  constructor(private readonly before: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.items.length
  }

  peek(): T | undefined {
    return this.items[0]
  }

  push(x: T): void {
    const a = this.items
    let i = a.length
    a.push(x)
    while (i > 0) {
      const parent = (i - 1) >> 1
      const p = a[parent]!
      if (!this.before(x, p)) break
      a[i] = p
      i = parent
    }
    a[i] = x
  }

  pop(): T | undefined {
    const a = this.items
    const top = a[0]
    const last = a.pop()
    const n = a.length
    if (n > 0 && last !== undefined) {
      let i = 0
      for (;;) {
        const l = 2 * i + 1
        if (l >= n) break
        const r = l + 1
        const c = r < n && this.before(a[r]!, a[l]!) ? r : l
        const child = a[c]!
        if (!this.before(child, last)) break
        a[i] = child
        i = c
      }
      a[i] = last
    }
    return top
  }

  /** Keeps only the items `keep` accepts, in heap order again. */
  retain(keep: (x: T) => boolean): void {
    const kept = this.items.filter(keep)
    this.items.length = 0
    for (const x of kept) this.push(x)
  }
}
