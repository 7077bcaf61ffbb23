// `exchange replay <dataDir>`: re-applies a log from genesis, with a progress bar on stderr,
// and prints the state root at each checkpoint and at the end.

import { apply } from '../core/apply.js'
import { stateRoot } from '../core/root.js'
import { createState } from '../core/state.js'
import { hex } from '../replica/entry.js'
import { openLogFromGenesis } from './log-from-genesis.js'

export async function replay(dataDir: string, checkpointInterval: number, out: (line: string) => void): Promise<string> {
  const log = await openLogFromGenesis(dataDir, 'replay')
  try {
    const total = log.lastSeq
    const state = createState()
    const started = performance.now()
    let lastDraw = 0
    let lastHash = ''
    for await (const batch of log.readBatches(1)) {
      for (const entry of batch) {
        apply(state, entry)
        if (checkpointInterval > 0 && entry.seq % checkpointInterval === 0) out(`checkpoint ${entry.seq} ${stateRoot(state)}`)
      }
      lastHash = hex(batch[batch.length - 1]!.hash)
      const now = performance.now()
      if (process.stderr.isTTY && now - lastDraw > 100) {
        lastDraw = now
        const frac = total === 0 ? 1 : state.seq / total
        const bar = '#'.repeat(Math.round(frac * 30)).padEnd(30, '.')
        process.stderr.write(`\r[${bar}] ${state.seq}/${total}`)
      }
    }
    if (process.stderr.isTTY) process.stderr.write('\n')
    const secs = (performance.now() - started) / 1000
    const root = stateRoot(state)
    out(`final ${state.seq} ${root} logHash ${lastHash}`)
    out(`replayed ${state.seq} entries in ${secs.toFixed(2)} s (${Math.round(state.seq / Math.max(secs, 1e-9))} entries/s)`)
    return root
  } finally {
    await log.close()
  }
}
