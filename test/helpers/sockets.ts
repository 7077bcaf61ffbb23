// Raw TCP connections for the tests of connection bounds: ones that send nothing, held until
// the test ends (or the server closes them).

import net from 'node:net'

/** A connection to `port` on loopback, from `localAddress` (another loopback address) when given. */
export function openIdle(t: { teardown(fn: () => unknown): void }, port: number, localAddress?: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect({ port, host: '127.0.0.1', ...(localAddress === undefined ? {} : { localAddress }) })
    t.teardown(() => s.destroy())
    s.once('connect', () => resolve(s))
    s.once('error', reject)
  })
}

/** `n` such connections, opened one after another. */
export async function holdIdle(t: { teardown(fn: () => unknown): void }, port: number, n: number): Promise<net.Socket[]> {
  const held: net.Socket[] = []
  for (let i = 0; i < n; i++) held.push(await openIdle(t, port))
  return held
}
