// A mistake of the operator's (a flag, a file, a port), said in its own words: `exchange`
// prints its message alone, not a stack (bin/main.ts).

export class OperatorError extends Error {
  override name = 'OperatorError'
}
