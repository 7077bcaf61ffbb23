// A local EVM for development and tests: the anvil binary from @foundry-rs/anvil-linux-amd64,
// spawned directly on loopback with a free port, its output drained, ready once it answers
// JSON-RPC, killed on stop.

import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { open, readFile, rename, rm } from 'node:fs/promises'
import { createRequire } from 'node:module'
import path from 'node:path'
import { gunzipSync } from 'node:zlib'
import { HDNodeWallet } from 'ethers'
import { freePort } from '../replica/free-port.js'
import { syncPath } from '../replica/sync-path.js'

/** Anvil's default dev mnemonic: its first accounts are funded with ETH at start. */
export const DEV_MNEMONIC = 'test test test test test test test test test test test junk'
export const DEV_CHAIN_ID = 31337

export interface AnvilOptions {
  chainId?: number
  /**
   * Keeps chain state in this file across restarts: anvil loads it (--load-state) and dumps its
   * state beside it as it exits (--dump-state), which the next start adopts if it reads whole.
   */
  stateFile?: string
  /** Extra arguments for anvil. */
  args?: string[]
  readyTimeoutMs?: number
  /**
   * Ends anvil when this process dies, even by SIGKILL: anvil runs under a tiny shell that
   * waits for its stdin (a pipe from this process) to close, then stops it. For long-running
   * servers; tests spawn the binary alone.
   */
  dieWithParent?: boolean
}

// $0 is anvil, $@ its arguments. A terminal's Ctrl-C is ignored here (a background job ignores
// it anyway): the exchange handles it and stops anvil through the pipe, with SIGTERM, so
// anvil writes its exit dump. The pipe is read in a background group (on fd 3: a background
// job's stdin is /dev/null) while the shell waits for anvil, so the shell ends when anvil does,
// stopped or failing at once (a state file it cannot read), and its exit code is anvil's.
const WATCHDOG = 'trap "" INT; exec 3<&0; "$0" "$@" </dev/null 3<&- & a=$!; { read -r _ <&3; kill $a 2>/dev/null; } & exec 3<&-; wait $a'

/** Anvil exited or did not answer in time: said to the operator with what anvil printed (bin/main.ts). */
export class AnvilStartError extends Error {
  override name = 'AnvilStartError'
}

export interface Anvil {
  url: string
  port: number
  chainId: number
  /**
   * What became of anvil's dump from its last exit: none there, adopted as the state file, or
   * cut short (a kill while anvil wrote it) and dropped, the state file's last whole save kept.
   */
  exitDump: ExitDump
  /**
   * Writes the chain's state to the state file now (anvil itself dumps it only when it
   * exits, so a kill of its whole process group or of the machine would lose the chain): once
   * this resolves, what the chain held when it was called survives a crash. Calls run one
   * after another. Without a state file, nothing to do.
   */
  saveState(): Promise<void>
  /**
   * Stops anvil. Its exit dump then becomes the state file, unless `discardState`: a run whose
   * chain must not replace the file (a start that was refused).
   */
  stop(o?: { discardState?: boolean }): Promise<void>
}

export function anvilBinary(): string {
  const pkg = createRequire(import.meta.url).resolve('@foundry-rs/anvil-linux-amd64/package.json')
  return path.join(path.dirname(pkg), 'bin', 'anvil')
}

async function rpc(url: string, method: string): Promise<unknown> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }) })
  const body = await res.json() as { result?: unknown; error?: { message?: string } }
  if (body.error || body.result === undefined) throw new Error(`${method}: ${body.error?.message ?? 'no result'}`)
  return body.result
}

export type ExitDump = 'none' | 'adopted' | 'cut'

/** Where anvil dumps its state as it exits, beside the state file. */
export const exitDumpOf = (stateFile: string): string => `${stateFile}.exit`

/**
 * Anvil writes its exit dump in place, not atomically, and a kill during it leaves a cut file;
 * so anvil loads the state file, which is only ever replaced whole, and dumps beside it. A dump
 * that reads whole is synced and renamed over the state file (it is the newest state: anvil
 * writes it last); a cut one is dropped, and the last whole save stands.
 */
async function adoptExitDump(stateFile: string): Promise<ExitDump> {
  const exit = exitDumpOf(stateFile)
  let text: string
  try {
    text = await readFile(exit, 'utf8')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'none'
    throw err
  }
  try {
    JSON.parse(text)
  } catch {
    await rm(exit, { force: true })
    return 'cut'
  }
  await syncPath(exit)
  await rename(exit, stateFile)
  await syncPath(path.dirname(stateFile))
  return 'adopted'
}

/**
 * The chain's state as `--load-state` reads it, written beside the file, synced, then renamed over
 * it (and the directory synced), so the file is always a whole state, the old one or the new.
 */
async function saveStateFile(url: string, file: string): Promise<void> {
  // anvil_dumpState answers the gzipped JSON as hex; the file holds the JSON itself.
  const hex = await rpc(url, 'anvil_dumpState') as string
  const json = gunzipSync(Buffer.from(hex.slice(2), 'hex'))
  const temp = `${file}.saving`
  const out = await open(temp, 'w')
  try {
    await out.writeFile(json)
    await out.sync()
  } finally {
    await out.close()
  }
  await rename(temp, file)
  await syncPath(path.dirname(file))
}

async function rpcReady(url: string): Promise<boolean> {
  try {
    await rpc(url, 'eth_chainId')
    return true
  } catch {
    return false
  }
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once('exit', () => resolve()))
}

/** Starts anvil; a port taken between choosing and binding it costs another try. */
export async function startAnvil(o: AnvilOptions = {}): Promise<Anvil> {
  const exitDump = o.stateFile === undefined ? 'none' : await adoptExitDump(o.stateFile)
  for (let attempt = 1; ; attempt++) {
    try {
      return await launch(o, await freePort(), exitDump)
    } catch (err) {
      if (attempt === 3) throw err
    }
  }
}

async function launch(o: AnvilOptions, port: number, exitDump: ExitDump): Promise<Anvil> {
  const chainId = o.chainId ?? DEV_CHAIN_ID
  const args = ['--host', '127.0.0.1', '--port', String(port), '--chain-id', String(chainId), ...(o.args ?? [])]
  if (o.stateFile) {
    if (existsSync(o.stateFile)) args.push('--load-state', o.stateFile)
    args.push('--dump-state', exitDumpOf(o.stateFile))
  }
  const child = o.dieWithParent
    ? spawn('/bin/sh', ['-c', WATCHDOG, anvilBinary(), ...args], { stdio: ['pipe', 'pipe', 'pipe'] })
    : spawn(anvilBinary(), args, { stdio: ['ignore', 'pipe', 'pipe'] })
  // Drained, or anvil blocks once a pipe fills; the tail is kept for the error message.
  let tail = ''
  const keep = (b: Buffer): void => { tail = (tail + b.toString()).slice(-2000) }
  child.stdout!.on('data', keep)
  child.stderr!.on('data', keep)
  let spawnError: Error | undefined
  child.once('error', (err) => { spawnError = err })
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + (o.readyTimeoutMs ?? 10_000)
  while (!(await rpcReady(url))) {
    if (spawnError || child.exitCode !== null || Date.now() > deadline) {
      if (o.dieWithParent) child.stdin!.end()
      else child.kill('SIGKILL')
      // What anvil said, less its pointer to its own --help.
      const said = spawnError?.message ?? tail.replace(/For more information, try '--help'\./, '').trim()
      throw new AnvilStartError(`the chain (anvil) did not start on ${url}: ${said}`)
    }
    await new Promise((r) => setTimeout(r, 20))
  }
  let saving: Promise<void> = Promise.resolve()
  return {
    url, port, chainId, exitDump,
    saveState() {
      const file = o.stateFile
      if (file === undefined) return Promise.resolve()
      const next = saving.then(() => saveStateFile(url, file))
      saving = next.catch(() => {})
      return next
    },
    async stop(how = {}) {
      // SIGTERM lets anvil write its exit dump before it exits. The pipe is closed even when
      // anvil has exited already, which ends the watchdog's reader.
      if (o.dieWithParent) child.stdin!.end()
      else if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      await exited(child)
      if (o.stateFile === undefined) return
      // Stopped cleanly, the state file is the final state at once (for an auditor's own anvil too).
      if (how.discardState === true) await rm(exitDumpOf(o.stateFile), { force: true })
      else await adoptExitDump(o.stateFile)
    },
  }
}

/** The private key of anvil's dev account `i` (0 operates the embedded chain). */
export function devKey(i: number): string {
  return HDNodeWallet.fromPhrase(DEV_MNEMONIC, undefined, `m/44'/60'/0'/0/${i}`).privateKey
}
