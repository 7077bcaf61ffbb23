// fast-check's parameters for the suite's properties. The suite gates every landing, so each
// property runs from a fixed seed and cannot fail at random. A hunt for new cases runs the same
// compiled test with PROPERTY_SEED (a number, or `random`) and PROPERTY_RUNS (a multiplier of
// every property's runs); a case a hunt finds is kept as a test of its own.

const FIXED = 20261127

/** The seed: PROPERTY_SEED, a random one (written to stderr, to run again) or the fixed one. */
export const SEED: number = (() => {
  const s = process.env.PROPERTY_SEED
  if (s === undefined || s === '') return FIXED
  if (s !== 'random') return Number(s)
  const seed = Math.floor(Math.random() * 2 ** 31)
  process.stderr.write(`PROPERTY_SEED=${seed}\n`)
  return seed
})()

const MULTIPLIER = Number(process.env.PROPERTY_RUNS ?? 1)

/** `numRuns` runs (times PROPERTY_RUNS) from the seed, for fc.assert and fc.sample. */
export function runs(numRuns: number): { numRuns: number; seed: number } {
  return { numRuns: Math.max(1, Math.round(numRuns * MULTIPLIER)), seed: SEED }
}
