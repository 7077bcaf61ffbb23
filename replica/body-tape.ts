// Log bodies pre-read on the chain verifier's thread, so the replaying thread builds commands
// without parsing msgpack. Decoding and applying on one thread could not pass ~350k entries/s:
// msgpackr builds each command map with a keyed store per field, and every string anew. The
// verifier, which walks the bodies anyway, writes each one as a tape of numbers (fields in
// order, strings as indexes into the batch's own table, each distinct string once); the main
// thread builds each command as one object literal per key set, sharing the batch's strings.
//
// The tape covers what commands hold: a body [seq, time, {key: value, ...}] whose values are
// integers up to 32 bits, float64s, booleans, nil and ASCII strings, with ASCII keys. Any other
// body (nested values, wider integers, non-ASCII text) is marked to be decoded from its bytes
// by msgpackr, so what comes out is always what msgpackr gives for those bytes.

import { assert } from '../core/assert.js'
import { COMMAND_WORDS } from '../core/commands.js'
import { REPLICA_LIMITS } from '../core/limits.js'

export interface BodyTape {
  /**
   * Per body: DECODE, or TAPED then its key set and per field a kind, followed for INT and
   * STRING by the value or the string's index. Four bytes a number: the tape is the largest
   * buffer a replay allocates per entry, and its allocations drive the collections.
   */
  ints: Int32Array
  /** Per taped body its seq and time, and the value of each NUMBER field, in order. */
  floats: Float64Array
  /** The batch's strings, each once, indexed from `ints`. */
  strs: string[]
  /** Per string that is a command word: its index in `strs`, then in COMMAND_WORDS (core/commands.ts). */
  words: number[]
  /** The key sets, in the order the fields are on the tape, indexed from `ints`. */
  keySets: string[][]
}

/** A body left to msgpackr. */
const DECODE = 0
/** A body on the tape. */
const TAPED = 1
// Field kinds.
const NUMBER = 0
const STRING = 1
const TRUE = 2
const FALSE = 3
const NIL = 4
/** A number that is an int32 (not -0): kept as one, so it comes back a small integer, as a literal would be. */
const INT = 5

/** Words of a cached string: CACHED_STRING_BYTES_MAX bytes. */
const SLOT_WORDS = 16

const EMPTY = new Uint8Array(0)

/** Thrown while a body is read when it is not one the tape covers. */
const NOT_TAPED = new Error('not taped')

/**
 * Writes the bodies (end to end, ending at `ends`) to a tape. Runs on the verifier's thread,
 * after the hashes are checked over the same extents.
 */
export function tapeBodies(bodies: Uint8Array, ends: Uint32Array): BodyTape {
  const w = new TapeWriter()
  w.write(bodies, ends)
  return w.finish()
}

/** A batch's bodies, end to end, and where each ends. */
export interface TapeBatch {
  bodies: Uint8Array
  ends: Uint32Array
}

/**
 * Writes several batches' bodies to one tape, in order: `starts` holds where each batch's
 * bodies begin on it (its ints, then its floats), for a TapeReader of that batch.
 */
export function tapeBatches(batches: readonly TapeBatch[]): { tape: BodyTape, starts: number[] } {
  const w = new TapeWriter()
  const starts: number[] = []
  for (const { bodies, ends } of batches) starts.push(...w.write(bodies, ends))
  return { tape: w.finish(), starts }
}

/** A key set met on the verifier's thread: a node of the trie of key sequences. */
interface KeySetNode {
  keys: string[]
  next: Map<string, KeySetNode>
  /** A key appears twice: msgpackr keeps the last value at the first place; no command has this shape. */
  repeats: boolean
  /** The key that followed this one last time (its encoded bytes, as words), and where it led: most often it does again. */
  last: { words: Int32Array, length: number, child: KeySetNode } | undefined
}

/** A node with every field present from the start, so all nodes share one shape. */
function newKeySetNode(keys: string[], repeats: boolean): KeySetNode {
  return { keys, next: new Map(), repeats, last: undefined }
}

// Kept across batches on the verifier's thread: the key sequences met, as a trie walked key by
// key (no name is built per body), and recent strings by their bytes, so a key or an account
// met before is found, not made again. Both are caches: the trie is dropped past its bound,
// and a string slot is overwritten by the next string that hashes to it.
let keySetRoot = newKeySetNode([], false)
let keySetNodes = 0
const STRING_SLOTS = 4096
const slotStrings: (string | undefined)[] = new Array(STRING_SLOTS)
/** Per slot, its string's bytes as words (see wordsOf()), at slot × SLOT_WORDS. */
const slotWords = new Int32Array(STRING_SLOTS * SLOT_WORDS)
/** Per slot: the batch (a TapeWriter's number) that listed its string last, and where. */
const slotBatch = new Float64Array(STRING_SLOTS).fill(-1)
const slotIndex = new Uint32Array(STRING_SLOTS)
/** Per slot, its string's index in COMMAND_WORDS, or -1: found once, as the slot is filled. */
const slotWord = new Int16Array(STRING_SLOTS).fill(-1)
let writersMade = 0
/** Strings longer than this are made each time (no command field is). */
const CACHED_STRING_BYTES_MAX = 64
/** The tape's numbers are written here, kept across batches; a tape takes a copy of its part. */
let tapeInts = new Int32Array(16_384)
let tapeFloats = new Float64Array(4096)

const WORD_INDEX = new Map<string, number>(COMMAND_WORDS.map((w, i) => [w, i]))
const WORD_LENGTH_MAX = Math.max(...COMMAND_WORDS.map((w) => w.length))

/** The string's index in COMMAND_WORDS, or -1. Every word starts with a capital: most strings are ruled out unhashed. */
function commandWord(s: string): number {
  if (s.length > WORD_LENGTH_MAX || s.charCodeAt(0) < 65 || s.charCodeAt(0) > 90) return -1
  return WORD_INDEX.get(s) ?? -1
}

function childKeySet(node: KeySetNode, key: string): KeySetNode {
  let child = node.next.get(key)
  if (child === undefined) {
    if (keySetNodes >= REPLICA_LIMITS.tapeKeySetsMax * 16) {
      keySetRoot = newKeySetNode([], false)
      keySetNodes = 0
    }
    child = newKeySetNode([...node.keys, key], node.repeats || node.keys.includes(key))
    node.next.set(key, child)
    keySetNodes++
  }
  return child
}

class TapeWriter {
  private ints = tapeInts
  private n = 0
  private floats = tapeFloats
  private f = 0
  private pos = 0
  private readonly strs: string[] = []
  private readonly words: number[] = []
  private readonly strIndex = new Map<string, number>()
  private readonly keySets: string[][] = []
  private readonly keySetIndex = new Map<KeySetNode, number>()
  private readonly batch = writersMade++
  /** The last string too long for the cache. */
  private text = ''
  /** The bodies being written. */
  private b: Uint8Array = EMPTY
  /** The same bytes, for words and float64s read 4 or 8 at a time (big-endian, as msgpack writes them). */
  private dv: DataView = new DataView(EMPTY.buffer)

  /** Writes the bodies (end to end, ending at `ends`); returns where they begin on the tape (ints, floats). */
  write(bodies: Uint8Array, ends: Uint32Array): [number, number] {
    const at: [number, number] = [this.n, this.f]
    this.b = bodies
    this.dv = new DataView(bodies.buffer, bodies.byteOffset, bodies.byteLength)
    let start = 0
    for (const end of ends) {
      this.body(start, end)
      start = end
    }
    return at
  }

  finish(): BodyTape {
    tapeInts = this.ints
    tapeFloats = this.floats
    return { ints: this.ints.slice(0, this.n), floats: this.floats.slice(0, this.f), strs: this.strs, words: this.words, keySets: this.keySets }
  }

  private body(start: number, end: number): void {
    const mark = this.n
    const floatMark = this.f
    this.pos = start
    try {
      this.taped(end)
    } catch (err) {
      if (err !== NOT_TAPED) throw err
      this.n = mark
      this.f = floatMark
      this.push(DECODE)
    }
  }

  private taped(end: number): void {
    const b = this.b
    if (b[this.pos++] !== 0x93) throw NOT_TAPED
    this.push(TAPED)
    this.pushFloat(this.number())
    this.pushFloat(this.number())
    const size = this.mapSize()
    if (size > REPLICA_LIMITS.tapeFieldsMax) throw NOT_TAPED
    const at = this.n
    this.push(0) // the key set, known once the keys are read
    let node = keySetRoot
    for (let i = 0; i < size; i++) {
      node = this.nextKey(node)
      this.value()
    }
    if (this.pos !== end || node.repeats) throw NOT_TAPED
    this.ints[at] = this.keySet(node)
  }

  /** Reads a key: the node's last next key when the bytes are the same, else the trie's child. */
  private nextKey(node: KeySetNode): KeySetNode {
    const last = node.last
    if (last !== undefined && this.pos + last.length <= this.b.length && wordsAre(this.dv, this.b, this.pos, last.length, last.words, 0)) {
      this.pos += last.length
      return last.child
    }
    const start = this.pos
    const key = this.string()
    if (key === '__proto__') throw NOT_TAPED
    const child = childKeySet(node, key)
    const length = this.pos - start
    const words = new Int32Array(wordCount(length))
    wordsOf(this.dv, this.b, start, length, words, 0)
    node.last = { words, length, child }
    return child
  }

  private keySet(node: KeySetNode): number {
    let i = this.keySetIndex.get(node)
    if (i === undefined) {
      i = this.keySets.length
      this.keySets.push(node.keys)
      this.keySetIndex.set(node, i)
    }
    return i
  }

  private mapSize(): number {
    const tag = this.b[this.pos++]!
    if (tag >= 0x80 && tag <= 0x8f) return tag & 0x0f
    if (tag === 0xde) return this.uint(2)
    throw NOT_TAPED
  }

  private value(): void {
    const tag = this.b[this.pos]!
    if (tag >= 0xa0 && tag <= 0xbf || tag >= 0xd9 && tag <= 0xdb) {
      const slot = this.stringSlot()
      this.push(STRING)
      this.push(slot < 0 ? this.indexOf(this.text) : this.indexOfSlot(slot))
      return
    }
    if (tag === 0xc0 || tag === 0xc2 || tag === 0xc3) {
      this.pos++
      this.push(tag === 0xc0 ? NIL : tag === 0xc3 ? TRUE : FALSE)
      return
    }
    const v = this.number()
    if (v === (v | 0) && (v !== 0 || 1 / v > 0)) {
      this.push(INT)
      this.push(v)
    } else {
      this.push(NUMBER)
      this.pushFloat(v)
    }
  }

  /** An integer of at most 32 bits or a float64; anything else is not taped. */
  private number(): number {
    const b = this.b
    const tag = b[this.pos++]!
    if (tag < 0x80) return tag
    if (tag >= 0xe0) return tag - 0x100
    switch (tag) {
      case 0xcc: return this.uint(1)
      case 0xcd: return this.uint(2)
      case 0xce: return this.uint(4)
      case 0xd0: return (this.uint(1) << 24) >> 24
      case 0xd1: return (this.uint(2) << 16) >> 16
      case 0xd2: return this.uint(4) | 0
      case 0xcb: {
        if (this.pos + 8 > b.length) throw NOT_TAPED
        const v = this.dv.getFloat64(this.pos)
        this.pos += 8
        return v
      }
      default: throw NOT_TAPED
    }
  }

  /** An ASCII string (keys); anything else is not taped. */
  private string(): string {
    const slot = this.stringSlot()
    return slot < 0 ? this.text : slotStrings[slot]!
  }

  /** The batch's index of the string in `slot`, added to the batch's strings at its first use. */
  private indexOfSlot(slot: number): number {
    if (slotBatch[slot] === this.batch) return slotIndex[slot]!
    const i = this.strs.length
    this.strs.push(slotStrings[slot]!)
    if (slotWord[slot]! >= 0) this.words.push(i, slotWord[slot]!)
    slotBatch[slot] = this.batch
    slotIndex[slot] = i
    return i
  }

  /** The batch's index of a string too long to be cached. */
  private indexOf(s: string): number {
    let i = this.strIndex.get(s)
    if (i === undefined) {
      i = this.strs.length
      this.strs.push(s)
      this.strIndex.set(s, i)
    }
    return i
  }

  /**
   * Reads an ASCII string (anything else is not taped): returns its cache slot, or -1 for one
   * too long to cache, left in `text`.
   */
  private stringSlot(): number {
    const b = this.b
    const tag = b[this.pos++]!
    let length: number
    if (tag >= 0xa0 && tag <= 0xbf) length = tag & 0x1f
    else if (tag === 0xd9) length = this.uint(1)
    else if (tag === 0xda) length = this.uint(2)
    else if (tag === 0xdb) length = this.uint(4)
    else throw NOT_TAPED
    const start = this.pos
    const end = start + length
    if (end > b.length) throw NOT_TAPED
    this.pos = end
    if (length > CACHED_STRING_BYTES_MAX) {
      this.text = asciiText(b, start, end)
      return -1
    }
    // Hashed over at most the first and last 8 bytes (an address's); the match is checked in
    // full, against the cached string's bytes, a word at a time.
    const dv = this.dv
    let h = length
    if (length < 4) h = Math.imul(h, 31) + shortWord(b, start, length) | 0
    else {
      h = Math.imul(h, 31) + dv.getInt32(start) | 0
      h = Math.imul(h, 31) + dv.getInt32(end - 4) | 0
      if (length >= 16) {
        h = Math.imul(h, 31) + dv.getInt32(start + 4) | 0
        h = Math.imul(h, 31) + dv.getInt32(end - 8) | 0
      }
    }
    const slot = (h ^ (h >>> 15)) & (STRING_SLOTS - 1)
    const known = slotStrings[slot]
    if (known !== undefined && known.length === length && wordsAre(dv, b, start, length, slotWords, slot * SLOT_WORDS)) return slot
    const text = asciiText(b, start, end)
    slotStrings[slot] = text
    wordsOf(dv, b, start, length, slotWords, slot * SLOT_WORDS)
    slotBatch[slot] = -1
    slotWord[slot] = commandWord(text)
    return slot
  }

  private uint(width: number): number {
    const b = this.b
    if (this.pos + width > b.length) throw NOT_TAPED
    let v = 0
    for (let i = 0; i < width; i++) v = v * 256 + b[this.pos + i]!
    this.pos += width
    return v
  }

  /** Appends an int32 (a kind, an int32 value, an index). */
  private push(v: number): void {
    if (this.n === this.ints.length) this.ints = doubled(this.ints, new Int32Array(this.n * 2))
    this.ints[this.n++] = v
  }

  private pushFloat(v: number): void {
    if (this.f === this.floats.length) this.floats = doubled(this.floats, new Float64Array(this.f * 2))
    this.floats[this.f++] = v
  }
}

/** `to` (twice the size) holding `from`'s numbers first: a tape outgrowing its buffer. */
function doubled<T extends Int32Array | Float64Array>(from: T, to: T): T {
  to.set(from)
  return to
}

// A run of bytes as words, to compare 4 bytes at a time: for 4 bytes or more, the 4 bytes at
// 0, 4, 8... and the last 4 (overlapping the one before: no partial word); fewer, as one word.

/** Words of a run of `length` bytes. */
function wordCount(length: number): number {
  return length < 4 ? 1 : (length + 3) >> 2
}

/** A run of fewer than 4 bytes as one word. */
function shortWord(b: Uint8Array, start: number, length: number): number {
  let v = 0
  for (let i = 0; i < length; i++) v = (v << 8) | b[start + i]!
  return v
}

/** Writes the words of the `length` bytes at `start` to `out` from `at`. */
function wordsOf(dv: DataView, b: Uint8Array, start: number, length: number, out: Int32Array, at: number): void {
  if (length < 4) {
    out[at] = shortWord(b, start, length)
    return
  }
  const last = length - 4
  for (let p = 0; p < last; p += 4) out[at++] = dv.getInt32(start + p)
  out[at] = dv.getInt32(start + last)
}

/** Whether the `length` bytes at `start` (all within `b`) are those whose words are in `words` from `at`. */
function wordsAre(dv: DataView, b: Uint8Array, start: number, length: number, words: Int32Array, at: number): boolean {
  if (length < 4) return shortWord(b, start, length) === words[at]
  const last = length - 4
  for (let p = 0; p < last; p += 4) if (dv.getInt32(start + p) !== words[at++]) return false
  return dv.getInt32(start + last) === words[at]
}

/** Per length, an array of that many char codes for String.fromCharCode(): no view is made. */
const charCodes: number[][] = Array.from({ length: CACHED_STRING_BYTES_MAX + 1 }, (_, n) => new Array<number>(n).fill(0))

/** The bytes start..end as text when they are ASCII; otherwise the body is not taped. */
function asciiText(b: Uint8Array, start: number, end: number): string {
  const n = end - start
  if (n > CACHED_STRING_BYTES_MAX) {
    for (let i = start; i < end; i++) if (b[i]! >= 0x80) throw NOT_TAPED
    return Buffer.from(b.buffer, b.byteOffset + start, n).toString('latin1')
  }
  const codes = charCodes[n]!
  for (let i = 0; i < n; i++) {
    const c = b[start + i]!
    if (c >= 0x80) throw NOT_TAPED
    codes[i] = c
  }
  return String.fromCharCode.apply(null, codes)
}

/** A key set's name: its keys in order, with their count, so no two sets share one ([] and ['']). */
function keySetName(keys: readonly string[]): string {
  return `${keys.length}:${keys.join('\0')}`
}

/** Builds a command of one key set from the tape's next fields (`next` reads one field). */
type Build = (next: () => unknown) => object

// One builder per key set seen, an object literal in key order: the objects come out with
// their fields in place, as the commands the gateway makes do. Keys are written as JSON
// string literals, so no key can be anything but a property name.
const builders = new Map<string, Build>()

function builder(keys: readonly string[]): Build {
  const name = keySetName(keys)
  let build = builders.get(name)
  if (build === undefined) {
    if (builders.size >= REPLICA_LIMITS.tapeKeySetsMax) return (next) => buildByKeys(keys, next)
    build = new Function('next', `return {${keys.map((k) => `${JSON.stringify(k)}: next()`).join(', ')}}`) as Build
    builders.set(name, build)
  }
  return build
}

/** The same object, field by field: for key sets past the builders' bound. */
function buildByKeys(keys: readonly string[], next: () => unknown): object {
  const o: Record<string, unknown> = {}
  for (const k of keys) o[k] = next()
  return o
}

/** Per tape, its builders: the batches written to one tape share them. */
const preparedTapes = new WeakMap<BodyTape, Build[]>()

/**
 * The tape's builders; its first reader also makes its command words the core's own strings
 * (core/commands.ts, COMMAND_WORDS), which V8 compares by reference.
 */
function prepared(tape: BodyTape): Build[] {
  let builds = preparedTapes.get(tape)
  if (builds === undefined) {
    const { strs, words } = tape
    for (let i = 0; i < words.length; i += 2) strs[words[i]!] = COMMAND_WORDS[words[i + 1]!]!
    builds = tape.keySets.map(builder)
    preparedTapes.set(tape, builds)
  }
  return builds
}

/** Reads a tape body by body, on the thread that applies them. */
export class TapeReader {
  private at = 0
  private af = 0
  /** Seq and time of the body next() returned a command for. */
  seq = 0
  time = 0
  private readonly builds: Build[]

  /** A reader of the bodies that begin on `tape` at `at` (ints) and `af` (floats): tapeBatches() says where. */
  constructor(private readonly tape: BodyTape, at = 0, af = 0) {
    this.at = at
    this.af = af
    this.builds = prepared(tape)
  }

  /** The next body's command (seq and time set), or undefined when it is to be decoded from its bytes. */
  next(): object | undefined {
    const { ints, floats } = this.tape
    assert(this.at < ints.length, 'tape read past its end')
    if (ints[this.at++] === DECODE) return undefined
    this.seq = floats[this.af]!
    this.time = floats[this.af + 1]!
    this.af += 2
    const build = this.builds[ints[this.at++]!]!
    return build(this.field)
  }

  private readonly field = (): unknown => {
    const { ints } = this.tape
    switch (ints[this.at++]) {
      case INT: return ints[this.at++]
      case NUMBER: return this.tape.floats[this.af++]
      case STRING: return this.tape.strs[ints[this.at++]!]
      case TRUE: return true
      case FALSE: return false
      default: return null
    }
  }
}
