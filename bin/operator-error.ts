// A mistake of the operator's (a flag, a file, a port), said in its own words: `exchange`
// prints its message alone, not a stack (bin/main.ts).

export class OperatorError extends Error {
  override name = 'OperatorError'
}

/**
 * `err` as the operator should read it, in `context`: an OperatorError or a system error (a code
 * bin/main.ts names: a refused connection, a missing file) as it is; anything else, its message
 * alone (a refused link, a log that no longer starts at genesis, a bad hash), not its stack.
 */
export function saidAs(err: unknown, context: string): Error {
  if (err instanceof OperatorError || (err as { code?: string }).code !== undefined) return err as Error
  return new OperatorError(`${context}: ${(err as Error).message}`)
}
