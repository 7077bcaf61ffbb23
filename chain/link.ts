// What the chain services need from the exchange: its current state (read only) and a way to
// submit commands, given by whoever runs them next to the sequencer (or by a test).

import type { Command } from '../core/commands.js'
import type { State } from '../core/state.js'
import type { Logger } from '../replica/node.js'
import type { Acknowledged } from '../replica/sequencer.js'

export interface ExchangeLink {
  state(): State
  submit(command: Command): Promise<Acknowledged>
}

export type { Logger }

export const silentLogger: Logger = { info() {}, warn() {}, error() {} }

/** Runs `step` every `intervalMs` (never two at once) until stopped; errors go to `onError`. */
export function pollLoop(step: () => Promise<unknown>, intervalMs: number, onError: (err: Error) => void): { stop(): Promise<void> } {
  let stopped = false
  let timer: NodeJS.Timeout | undefined
  let running: Promise<void> = Promise.resolve()
  const tick = (): void => {
    running = step().then(() => undefined, (err: Error) => onError(err)).then(() => {
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
