// A real web browser for the tests that act as a web page: Debian's chromium-headless-shell
// (.ci/run installs it), headless, on a page the test serves from an origin of its own, with
// the browser builds of ethers and ccxt beside it. The page reports by POSTing JSON to its own
// /result. Where no browser is installed those tests are skipped, saying so, except under
// EXCHANGE_REQUIRE_BROWSER=1 (CI), where that fails them.

import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { ROOT } from './paths.js'
import { runs, skipWithout } from './requirements.js'

const BROWSERS = ['chromium-headless-shell', 'chromium']

function browserPath(): string | undefined {
  return BROWSERS.find((b) => runs(b, ['--version']))
}

/** The tap `skip` option for a test that needs a browser. */
export function browserSkip(): string | false {
  return skipWithout(browserPath() === undefined ? 'no headless browser is installed (apt-get install chromium-headless-shell)' : undefined,
    'EXCHANGE_REQUIRE_BROWSER')
}

interface Tap {
  teardown(fn: () => unknown): void
}

/** Browser builds of client libraries a page may load, by the path it loads them from. */
const SCRIPTS: Record<string, string> = {
  '/ethers.js': 'node_modules/ethers/dist/ethers.min.js',
  '/ccxt.js': 'node_modules/ccxt/dist/ccxt.browser.min.js',
}

/**
 * Serves `html` at http://127.0.0.1:<port>/ (and the SCRIPTS), opens it in the browser and
 * resolves with what the page POSTs to /result; rejects after `timeoutMs` with the browser's
 * console lines. The browser is stopped either way.
 */
export async function runPage(t: Tap, html: string, timeoutMs = 60_000): Promise<unknown> {
  const browser = browserPath()
  if (browser === undefined) throw new Error('no headless browser')
  let report: (body: string) => void = () => {}
  const reported = new Promise<string>((resolve) => { report = resolve })
  const server = http.createServer((req, res) => {
    const script = SCRIPTS[req.url ?? '']
    if (script !== undefined) {
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(readFileSync(path.join(ROOT, script)))
    } else if (req.url === '/result' && req.method === 'POST') {
      let body = ''
      req.on('data', (b: Buffer) => { body += b.toString() })
      req.on('end', () => { res.end('ok'); report(body) })
    } else if (req.url === '/') {
      res.writeHead(200, { 'content-type': 'text/html' }).end(html)
    } else {
      res.writeHead(404).end()
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
  const profile = await mkdtemp(path.join(os.tmpdir(), 'browser-'))
  // --no-sandbox: CI runs as root, where Chromium's sandbox will not start; --disable-dev-shm-usage:
  // a container's small /dev/shm would crash its renderer. A process group of its own: the
  // browser's helper processes (zygote, renderer, GPU) go with it.
  const child = spawn(browser, ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run',
    `--user-data-dir=${profile}`, url],
    { stdio: ['ignore', 'ignore', 'pipe'], detached: true })
  const killGroup = (signal: NodeJS.Signals): void => {
    try { process.kill(-child.pid!, signal) } catch { /* already gone */ }
  }
  process.once('exit', () => killGroup('SIGKILL'))
  let stderr = ''
  child.stderr!.on('data', (b: Buffer) => { stderr += b.toString() })
  let stopped = false
  const stop = async (): Promise<void> => {
    if (stopped) return
    stopped = true
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      killGroup('SIGTERM')
      await exited
    }
    // Helpers that outlive the browser would hold its stderr pipe, and with it this test, open.
    killGroup('SIGKILL')
    child.stderr!.destroy()
    await new Promise((resolve) => server.close(resolve))
    server.closeAllConnections()
    await rm(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 })
  }
  t.teardown(stop)
  let timer: NodeJS.Timeout | undefined
  const timedOut = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`the page did not report within ${timeoutMs} ms; browser console:\n` +
      stderr.split('\n').filter((l) => l.includes('CONSOLE')).slice(-20).join('\n'))), timeoutMs)
  })
  try {
    return JSON.parse(await Promise.race([reported, timedOut]))
  } finally {
    clearTimeout(timer)
    await stop()
  }
}
