// A test file that dies of an uncaught error takes the processes it started with it.

import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import t from 'tap'
import { DIST, NODE, NODE_ARGS } from './paths.js'

/** Whether `pid` still runs: a killed child no one has reaped yet (a zombie) does not. */
const alive = (pid: number): boolean => {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '')[0] !== 'Z'
  } catch {
    return false
  }
}

t.test('a file that throws leaves no process it started running', async (t) => {
  const reaper = pathToFileURL(path.join(DIST, 'test', 'helpers', 'reaper.js')).href
  const script = `import { spawn } from 'node:child_process'
import { reaped } from ${JSON.stringify(reaper)}
const child = reaped(spawn('sleep', ['60'], { stdio: 'ignore' }))
console.log(child.pid)
setTimeout(() => { throw new Error('a test gone wrong') }, 50)
`
  const p = spawn(NODE, [...NODE_ARGS, '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  p.stdout.on('data', (b: Buffer) => { stdout += b.toString() })
  p.stderr.on('data', (b: Buffer) => { stderr += b.toString() })
  const code = await new Promise<number | null>((resolve) => p.on('close', resolve))
  t.equal(code, 1)
  t.match(stderr, 'a test gone wrong')
  const pid = Number(stdout.trim())
  t.ok(pid > 0, 'the child was started')
  // The SIGKILL was sent before the script exited; only its delivery may lag.
  for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 20))
  t.notOk(alive(pid), 'the child is gone')
})
