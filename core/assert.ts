// Assertions that stay on in production: a failed one means a broken invariant, and the
// process must stop rather than run on corrupt state.

export class InvariantError extends Error {
  override name = 'InvariantError'
}

export function assert(condition: unknown, message = 'assertion failed'): asserts condition {
  if (!condition) throw new InvariantError(message)
}

/** Asserts an integer that JS numbers hold exactly; every ledger and book figure is one. */
export function assertSafe(n: number, what: string): number {
  if (!Number.isSafeInteger(n)) throw new InvariantError(`${what} is not a safe integer: ${n}`)
  return n
}
