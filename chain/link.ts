// What the chain services need from the exchange: its current state (read only) and a way to
// submit commands, given by whoever runs them next to the sequencer (or by a test).

import type { Command } from '../core/commands.js'
import type { State } from '../core/state.js'
import type { Logger } from '../replica/node.js'
import type { Acknowledged } from '../replica/sequencer.js'

export interface ExchangeLink {
  state(): State
  submit(command: Command): Promise<Acknowledged>
  /**
   * The newest seq no fail-over can take back (replica.ts committedSeq): with synchronous
   * standbys, what they hold. The state runs ahead of it; what lies beyond may vanish with this
   * node, so nothing is paid or anchored for it yet. Absent: the whole state counts.
   */
  committedSeq?(): number
}

export type { Logger }

export const silentLogger: Logger = { info() {}, warn() {}, error() {} }

/**
 * Runs `step` every `intervalMs` (never two at once) until stopped. A failing step is retried at
 * the same pace, and logged as `<name>: poll failed, retrying` at its 1st, 2nd, 4th, 8th…
 * consecutive failure (with the count), so an hour without the chain is a dozen lines rather
 * than thousands; the first success after failures logs `<name>: recovered`.
 */
export function pollLoop(step: () => Promise<unknown>, intervalMs: number, logger: Logger, name: string): { stop(): Promise<void> } {
  let stopped = false
  let timer: NodeJS.Timeout | undefined
  let running: Promise<void> = Promise.resolve()
  let failures = 0
  const succeeded = (): void => {
    if (failures > 0) logger.info({ failures }, `${name}: recovered`)
    failures = 0
  }
  const failed = (err: Error): void => {
    failures += 1
    // A power of two: 1, 2, 4, 8…
    if ((failures & (failures - 1)) === 0) logger.warn({ err: err.message, failures }, `${name}: poll failed, retrying`)
  }
  const tick = (): void => {
    running = step().then(succeeded, failed).then(() => {
      if (!stopped) timer = setTimeout(tick, intervalMs)
    })
  }
  timer = setTimeout(tick, 0)
  return {
    async stop() {
      stopped = true
      clearTimeout(timer)
      await running
    },
  }
}
