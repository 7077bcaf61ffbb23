// A simulated packet network with a reliable-stream transport on top, because a replica's
// Connection (WebSocket over TCP in production) promises ordered, exactly-once delivery or a
// closed connection. Packets between two hosts are delayed (with jitter, so they overtake each
// other), lost, duplicated, cut by partitions, and on replication links occasionally corrupted
// past the transport's checksum (the hash chain is the defence there). The transport numbers
// messages, acknowledges, retransmits and reorders, so those faults reach the replica code as
// latency, stalls and connections that break (a peer silent too long, a reset from a restarted
// host), which is how they reach it in production.

import type { Connection, Listener, Network } from '../../replica/network.js'
import { REPLICATION_PATH } from '../../replica/replication.js'
import type { Rng } from '../random.js'
import type { EventLoop, Scheduled } from './loop.js'

export interface LinkFaults {
  /** Delay of one packet, uniform in [min, max] ms. */
  delayMinMs: number
  delayMaxMs: number
  loss: number
  duplicate: number
  /** Chance a data packet on a replication link arrives with a byte changed. */
  corrupt: number
}

export const CALM_LINK: LinkFaults = { delayMinMs: 0.2, delayMaxMs: 1, loss: 0, duplicate: 0, corrupt: 0 }

/** Transport timings, ms. */
const RTO_MS = 40
const TICK_MS = 20
const KEEPALIVE_MS = 200
const DEAD_MS = 1_500
const CONNECT_TIMEOUT_MS = 1_000
const SYN_RETRY_MS = 100

type Packet =
  | { k: 'syn', id: number, port: number, path: string }
  | { k: 'synack', id: number }
  | { k: 'data', id: number, seq: number, bytes: Uint8Array }
  | { k: 'ack', id: number, upTo: number }
  | { k: 'fin', id: number, reason: string }
  | { k: 'rst', id: number }

interface Host {
  name: string
  up: boolean
  listeners: Map<number, (c: Connection, path: string) => void>
  ends: Map<number, End>
}

export interface NetStats {
  packets: number
  lost: number
  duplicated: number
  corrupted: number
  connections: number
  broken: number
}

export class SimNetwork {
  private readonly hosts = new Map<string, Host>()
  private readonly links = new Map<string, LinkFaults>()
  /** Host pairs that cannot reach each other ("a|b", both orders). */
  private readonly cut = new Set<string>()
  private nextId = 1
  faults: LinkFaults = CALM_LINK
  readonly stats: NetStats = { packets: 0, lost: 0, duplicated: 0, corrupted: 0, connections: 0, broken: 0 }

  constructor(readonly loop: EventLoop, private readonly rng: Rng) {}

  host(name: string): Host {
    let h = this.hosts.get(name)
    if (h === undefined) {
      h = { name, up: true, listeners: new Map(), ends: new Map() }
      this.hosts.set(name, h)
    }
    return h
  }

  /** Per-link faults for a→b; others use `faults`. */
  setLink(from: string, to: string, f: LinkFaults | undefined): void {
    if (f === undefined) this.links.delete(`${from}>${to}`)
    else this.links.set(`${from}>${to}`, f)
  }

  partition(a: string, b: string): void {
    this.cut.add(`${a}|${b}`)
    this.cut.add(`${b}|${a}`)
  }

  heal(): void {
    this.cut.clear()
    this.links.clear()
    this.faults = CALM_LINK
  }

  reachable(a: string, b: string): boolean {
    return !this.cut.has(`${a}|${b}`)
  }

  /** The host's process dies: its connections and listeners vanish without a word. */
  crash(name: string): void {
    const h = this.host(name)
    h.up = false
    for (const end of h.ends.values()) end.vanish()
    h.ends.clear()
    h.listeners.clear()
    this.loop.record(`crash ${name}`)
  }

  restart(name: string): void {
    this.host(name).up = true
  }

  /** The Network a process on `name` uses. */
  view(name: string): Network {
    return {
      listen: async (host, port, onConnection): Promise<Listener> => {
        const h = this.host(name)
        if (host !== name && host !== '0.0.0.0') throw new Error(`${name} cannot listen as ${host}`)
        if (h.listeners.has(port)) throw new Error(`EADDRINUSE ${name}:${port}`)
        h.listeners.set(port, onConnection)
        return { url: `sim://${name}:${port}`, close: async () => { if (h.listeners.get(port) === onConnection) h.listeners.delete(port) } }
      },
      connect: (url) => this.connect(name, url),
    }
  }

  private connect(from: string, url: string): Promise<Connection> {
    const u = new URL(url)
    const to = u.hostname
    const port = Number(u.port)
    const path = u.pathname === '' ? '/' : u.pathname
    const id = this.nextId++
    const h = this.host(from)
    return new Promise((resolve, reject) => {
      const end = new End(this, id, from, to, path, false)
      h.ends.set(id, end)
      end.onEstablished = () => resolve(end)
      end.onRefused = (why) => reject(new Error(why))
      end.startConnecting(port)
    })
  }

  /** Puts a packet on the wire from `from` to `to`. */
  send(from: string, to: string, p: Packet, path: string, fromServer: boolean): void {
    this.stats.packets++
    if (!this.reachable(from, to)) return
    const f = this.links.get(`${from}>${to}`) ?? this.faults
    if (f.loss > 0 && this.rng.chance(f.loss)) { this.stats.lost++; return }
    let copies = 1
    if (f.duplicate > 0 && this.rng.chance(f.duplicate)) { copies = 2; this.stats.duplicated++ }
    for (let i = 0; i < copies; i++) {
      let q = p
      if (q.k === 'data' && fromServer && path === REPLICATION_PATH && f.corrupt > 0 && this.rng.chance(f.corrupt)) {
        const bytes = Uint8Array.from(q.bytes)
        bytes[this.rng.below(bytes.length)] ^= 1 << this.rng.below(8)
        q = { ...q, bytes }
        this.stats.corrupted++
      }
      const delay = f.delayMinMs + (f.delayMaxMs - f.delayMinMs) * (this.rng.u32() / 4294967296)
      const packet = q
      this.loop.after(delay, () => this.arrive(from, to, packet))
    }
  }

  private arrive(from: string, to: string, p: Packet): void {
    const h = this.host(to)
    if (!h.up || !this.reachable(from, to)) return
    if (p.k === 'syn') {
      const existing = h.ends.get(p.id)
      if (existing !== undefined) { existing.resendSynack(); return }
      const onConnection = h.listeners.get(p.port)
      if (onConnection === undefined) { this.send(to, from, { k: 'rst', id: p.id }, p.path, true); return }
      const end = new End(this, p.id, to, from, p.path, true)
      h.ends.set(p.id, end)
      this.stats.connections++
      this.loop.record(`accept ${from}->${to}${p.path} #${p.id}`)
      onConnection(end, p.path)
      end.accept()
      return
    }
    const end = h.ends.get(p.id)
    if (end === undefined) {
      // A connection this process does not know (it restarted): reset it.
      if (p.k !== 'rst' && p.k !== 'fin') this.send(to, from, { k: 'rst', id: p.id }, '', false)
      return
    }
    end.receive(p)
  }

  forget(host: string, id: number): void {
    this.host(host).ends.delete(id)
  }
}

/** One end of a connection: a reliable, ordered message stream over lossy packets. */
class End implements Connection {
  private state: 'connecting' | 'open' | 'closed' = 'connecting'
  private nextSend = 1
  private readonly unacked = new Map<number, Uint8Array>()
  private lastSentAt = 0
  private nextRecv = 1
  private readonly early = new Map<number, Uint8Array>()
  private lastHeard: number
  private lastAny: number
  private timer: Scheduled | null = null
  private messageFns: ((m: Uint8Array) => void)[] = []
  private closeFns: ((reason: string) => void)[] = []
  /** Messages that arrived before anyone listened. */
  private held: Uint8Array[] = []
  onEstablished: (() => void) | null = null
  onRefused: ((why: string) => void) | null = null
  private connectDeadline = 0
  private port = 0

  constructor(private readonly net: SimNetwork, readonly id: number, readonly host: string, readonly peer: string,
    readonly path: string, private readonly server: boolean) {
    this.lastHeard = net.loop.now
    this.lastAny = net.loop.now
  }

  get bufferedBytes(): number { return 0 }

  startConnecting(port: number): void {
    this.port = port
    this.connectDeadline = this.net.loop.now + CONNECT_TIMEOUT_MS
    this.sendSyn()
  }

  private sendSyn(): void {
    if (this.state !== 'connecting') return
    if (this.net.loop.now >= this.connectDeadline) {
      this.state = 'closed'
      this.net.forget(this.host, this.id)
      this.onRefused?.(`connect to ${this.peer} timed out`)
      return
    }
    this.net.send(this.host, this.peer, { k: 'syn', id: this.id, port: this.port, path: this.path }, this.path, false)
    this.timer = this.net.loop.after(SYN_RETRY_MS, () => this.sendSyn())
  }

  accept(): void {
    // Closed by the listener as it was handed over (a node not serving that path yet): stays closed.
    if (this.state !== 'connecting') return
    this.state = 'open'
    this.resendSynack()
    this.arm()
  }

  resendSynack(): void {
    if (this.state === 'open') this.raw({ k: 'synack', id: this.id })
  }

  send(message: Uint8Array): void {
    if (this.state === 'closed') return
    const seq = this.nextSend++
    this.unacked.set(seq, message)
    if (this.state === 'open') this.raw({ k: 'data', id: this.id, seq, bytes: message })
  }

  onMessage(fn: (message: Uint8Array) => void): void {
    this.messageFns.push(fn)
    if (this.held.length > 0) {
      const held = this.held
      this.held = []
      for (const m of held) fn(m)
    }
  }

  onClose(fn: (reason: string) => void): void {
    this.closeFns.push(fn)
  }

  close(reason = 'closed'): void {
    if (this.state === 'closed') return
    this.raw({ k: 'fin', id: this.id, reason })
    this.shut(reason)
  }

  /** The process died: no packet, no callback. */
  vanish(): void {
    this.state = 'closed'
    this.timer?.cancel()
  }

  receive(p: Packet): void {
    if (this.state === 'closed') return
    this.lastHeard = this.net.loop.now
    switch (p.k) {
      case 'synack':
        if (this.state === 'connecting') {
          this.state = 'open'
          this.timer?.cancel()
          this.net.stats.connections++
          this.arm()
          for (const [seq, bytes] of this.unacked) this.raw({ k: 'data', id: this.id, seq, bytes })
          this.onEstablished?.()
        }
        return
      case 'data': {
        if (p.seq >= this.nextRecv && !this.early.has(p.seq)) this.early.set(p.seq, p.bytes)
        this.raw({ k: 'ack', id: this.id, upTo: this.deliverable() })
        this.deliver()
        return
      }
      case 'ack':
        for (const seq of [...this.unacked.keys()]) if (seq <= p.upTo) this.unacked.delete(seq)
        return
      case 'fin':
        // Closed before it was established (the listener closed it as it accepted): the connect fails with the reason.
        if (this.state === 'connecting') this.refuse(p.reason)
        else this.shut(p.reason)
        return
      case 'rst':
        if (this.state === 'connecting') {
          this.refuse(`connection to ${this.peer} refused`)
        } else {
          this.shut('connection reset by peer')
        }
        return
      case 'syn':
        return
    }
  }

  private refuse(why: string): void {
    this.state = 'closed'
    this.timer?.cancel()
    this.net.forget(this.host, this.id)
    this.onRefused?.(why)
  }

  /** Highest seq received with nothing missing before it. */
  private deliverable(): number {
    let n = this.nextRecv
    while (this.early.has(n)) n++
    return n - 1
  }

  private deliver(): void {
    while (this.state === 'open' && this.early.has(this.nextRecv)) {
      const bytes = this.early.get(this.nextRecv)!
      this.early.delete(this.nextRecv)
      this.nextRecv++
      this.net.loop.record(`msg ${this.peer}->${this.host}${this.path} #${this.id} ${bytes.length}B`)
      if (this.messageFns.length === 0) this.held.push(bytes)
      else for (const fn of this.messageFns) fn(bytes)
    }
  }

  /** The transport's timer: retransmits, keeps the peer aware of us, and gives up on silence. */
  private arm(): void {
    this.timer = this.net.loop.after(TICK_MS, () => {
      if (this.state !== 'open') return
      const now = this.net.loop.now
      if (now - this.lastHeard > DEAD_MS) {
        this.net.stats.broken++
        this.raw({ k: 'rst', id: this.id })
        this.shut('peer silent (timed out)')
        return
      }
      if (this.unacked.size > 0 && now - this.lastSentAt >= RTO_MS) {
        let n = 0
        for (const [seq, bytes] of this.unacked) {
          this.raw({ k: 'data', id: this.id, seq, bytes })
          if (++n >= 32) break
        }
      } else if (now - this.lastAny >= KEEPALIVE_MS) {
        this.raw({ k: 'ack', id: this.id, upTo: this.deliverable() })
      }
      this.arm()
    })
  }

  private raw(p: Packet): void {
    const now = this.net.loop.now
    this.lastAny = now
    if (p.k === 'data') this.lastSentAt = now
    this.net.send(this.host, this.peer, p, this.path, this.server)
  }

  private shut(reason: string): void {
    if (this.state === 'closed') return
    this.state = 'closed'
    this.timer?.cancel()
    this.net.forget(this.host, this.id)
    this.net.loop.record(`close ${this.host}#${this.id} ${reason}`)
    const fns = this.closeFns
    // Like a socket's close event: after the current turn, once.
    this.net.loop.after(0, () => { for (const fn of fns) fn(reason) })
  }
}
