/**
 * Milliseconds on the process's monotonic clock, the same in every thread (each worker's
 * performance.now() counts from that worker's own start).
 */
export function monotonicMs(): number {
  const [s, ns] = process.hrtime()
  return s * 1e3 + ns / 1e6
}
