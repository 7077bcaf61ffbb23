// The simulator's checkers. Online: every replica that reaches a checkpoint has the same state
// root there; a client's acknowledged seqs only grow; a node never serves a seq below one it
// served before. At the end: every acknowledged command is in the final log at its seq, and
// no submitted command is in the log more often than it was sent; the core's invariants hold.
// With an election, a node may have held a tail no one acknowledged and rooted checkpoints in
// it: its roots past where it rewound are forgotten (rewound), and roots that still differ
// fail at the end (finalRoots) rather than at once.

import type { Command } from '../core/commands.js'
import type { State } from '../core/state.js'
import { hex, packr, type LogEntry } from '../replica/entry.js'
import type { ReplicaNode } from '../replica/node.js'
import type { Committed } from '../replica/sequencer.js'
import { maintenanceViolations, stateViolations } from './model/invariants.js'
import type { EventLoop } from './world/loop.js'

const FAILURES_KEPT = 20

export class Checks {
  readonly failures: string[] = []
  /** Per checkpoint seq, each root seen there and who computed it. */
  private readonly roots = new Map<number, Map<string, Set<string>>>()
  private readonly sent = new Map<string, number>()
  private readonly acks: { client: string, seq: number, key: string }[] = []
  private readonly lastAck = new Map<string, number>()
  private readonly servedMax = new Map<string, number>()
  /**
   * Per node, the newest entry its listeners (its gateway's projections and streams) took while
   * it ran, not replaying its log at a start: committed, so never cut by a rewind. (A restart
   * replays the whole log, whose tail a rewind may cut later.)
   */
  private readonly liveMax = new Map<string, number>()

  constructor(private readonly loop?: EventLoop, private readonly rootsDifferUntilEnd = false) {}

  get checkpoints(): number { return this.roots.size }

  fail(msg: string): void {
    this.loop?.record(`FAIL ${msg}`)
    if (this.failures.length < FAILURES_KEPT && !this.failures.includes(msg)) this.failures.push(msg)
  }

  /**
   * Follows a node's durable batches (replayed or new) from before it restores; those before
   * `ready()` (its start done: served() called) count only then. A sequencer with a standby
   * replays a log whose tail no standby may hold yet, and serves it only once one does: if it
   * is lost before, no one was served that tail.
   */
  watch(name: string, node: ReplicaNode): { ready(): void } {
    const n = node.checkpointInterval
    let pending: Committed[] | null = []
    const take = (c: Committed, live: boolean): void => {
      const last = c.entries[c.entries.length - 1]!.seq
      this.servedMax.set(name, Math.max(this.servedMax.get(name) ?? 0, last))
      if (live) this.liveMax.set(name, Math.max(this.liveMax.get(name) ?? 0, last))
      if (n <= 0) return
      for (let seq = Math.ceil(c.entries[0]!.seq / n) * n; seq <= last; seq += n) {
        let cp: { root: string } | undefined
        for (let i = node.roots.length - 1; i >= 0 && cp === undefined; i--) if (node.roots[i]!.seq === seq) cp = node.roots[i]
        if (cp === undefined) this.fail(`${name} passed checkpoint ${seq} without a root`)
        else this.checkpoint(name, seq, cp.root)
      }
    }
    node.onCommitted((c) => { if (pending !== null) pending.push(c); else take(c, true) })
    return {
      ready: () => {
        const before = pending ?? []
        pending = null
        for (const c of before) take(c, false)
      },
    }
  }

  /** A node's machine was replaced by an empty one: it serves from nothing again. */
  replaced(name: string): void {
    this.servedMax.delete(name)
    this.liveMax.delete(name)
  }

  /**
   * A node cut its log back to `fork`, dropping entries the leader does not hold (never
   * acknowledged: finalLog checks that): it serves from there, and its roots past it are forgotten.
   */
  rewound(name: string, fork: number): void {
    const live = this.liveMax.get(name) ?? 0
    if (live > fork) this.fail(`${name} rewound to seq ${fork}, below the ${live} its listeners had taken as it ran`)
    this.liveMax.set(name, Math.min(live, fork))
    this.servedMax.set(name, Math.min(this.servedMax.get(name) ?? 0, fork))
    for (const [seq, at] of this.roots) {
      if (seq <= fork) continue
      for (const [root, by] of at) if (by.delete(name) && by.size === 0) at.delete(root)
      if (at.size === 0) this.roots.delete(seq)
    }
  }

  /** A node (re)started serving at `seq`. */
  served(name: string, seq: number): void {
    const before = this.servedMax.get(name) ?? 0
    if (seq < before) this.fail(`${name} restarted at seq ${seq}, below the ${before} it had applied`)
  }

  checkpoint(by: string, seq: number, root: string): void {
    let at = this.roots.get(seq)
    if (at === undefined) this.roots.set(seq, at = new Map())
    const [known] = at
    if (known !== undefined && known[0] !== root && !this.rootsDifferUntilEnd) this.fail(`checkpoint ${seq}: ${by} has root ${root}, ${[...known[1]][0]} had ${known[0]}`)
    const names = at.get(root) ?? new Set<string>()
    at.set(root, names.add(by))
  }

  /** Fails each checkpoint whose roots still differ (with an election: every node that held another tail has rewound). */
  finalRoots(): void {
    for (const [seq, at] of this.roots) {
      if (at.size > 1) this.fail(`checkpoint ${seq}: roots differ: ${[...at].map(([root, by]) => `${root} (${[...by].join(', ')})`).join(' vs ')}`)
    }
  }

  /** Records a command a client is about to send; returns the key its log entry must have. */
  submitted(command: Command): string {
    const key = keyOf(command)
    this.sent.set(key, (this.sent.get(key) ?? 0) + 1)
    return key
  }

  acked(client: string, seq: number, key: string): void {
    const last = this.lastAck.get(client) ?? 0
    if (seq <= last) this.fail(`client ${client} was acknowledged seq ${seq} after seq ${last}`)
    this.lastAck.set(client, Math.max(last, seq))
    this.acks.push({ client, seq, key })
  }

  finalLog(entries: readonly LogEntry[]): void {
    const keys = new Map<number, string>()
    const counts = new Map<string, number>()
    for (const e of entries) {
      const key = keyOf(e.command)
      keys.set(e.seq, key)
      counts.set(key, (counts.get(key) ?? 0) + 1)
    }
    for (const a of this.acks) {
      const key = keys.get(a.seq)
      if (key === undefined) this.fail(`acknowledged seq ${a.seq} (client ${a.client}) is missing from the final log`)
      else if (key !== a.key) this.fail(`acknowledged seq ${a.seq} (client ${a.client}) holds another command in the final log`)
    }
    for (const [key, n] of counts) {
      const sent = this.sent.get(key)
      if (sent !== undefined && n > sent) this.fail(`a command sent ${sent} time(s) is in the log ${n} times: ${describe(key)}`)
    }
  }

  invariants(where: string, state: State): void {
    for (const v of [...stateViolations(state), ...maintenanceViolations(state)].slice(0, 5)) this.fail(`${where} at seq ${state.seq}: ${v}`)
  }
}

function keyOf(command: Command): string {
  return hex(packr.pack(command))
}

function describe(key: string): string {
  return JSON.stringify(packr.unpack(Buffer.from(key, 'hex'))).slice(0, 200)
}
