// A real nginx (Debian's nginx-light; .ci/run installs it) as the reverse proxy in front of a
// gateway, configured as an operator would: HTTP/1.1 to the upstream, WebSocket upgrades passed
// through, X-Forwarded-For appended. It runs in the foreground on a loopback port, its
// configuration, logs and temporary files in a directory of its own.

import { spawn } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { freePort } from '../../replica/free-port.js'
import { reaped } from './reaper.js'
import { runs, skipWithout } from './requirements.js'

const NGINX = ['nginx', '/usr/sbin/nginx'].find((n) => runs(n, ['-v']))

/** The tap `skip` option for a test that needs nginx. */
export function nginxSkip(): string | false {
  return skipWithout(NGINX === undefined ? 'nginx is not installed (apt-get install nginx-light)' : undefined, 'EXCHANGE_REQUIRE_NGINX')
}

function config(dir: string, port: number, upstreamPort: number): string {
  const root = process.getuid?.() === 0
  return `daemon off;
worker_processes 1;
${root ? 'user root;' : ''}
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 512; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  map $http_upgrade $connection_upgrade { default upgrade; '' close; }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://127.0.0.1:${upstreamPort};
      proxy_http_version 1.1;
      proxy_set_header Host $host;
      proxy_set_header Upgrade $http_upgrade;
      proxy_set_header Connection $connection_upgrade;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_read_timeout 1h;
    }
  }
}
`
}

interface Tap {
  teardown(fn: () => unknown): void
}

/** nginx on a free loopback port, proxying to `upstreamPort`; stopped when the test ends. */
export async function startNginx(t: Tap, upstreamPort: number): Promise<{ port: number }> {
  if (NGINX === undefined) throw new Error('nginx is not installed')
  const dir = await mkdtemp(path.join(os.tmpdir(), 'nginx-'))
  const port = await freePort()
  const conf = path.join(dir, 'nginx.conf')
  await writeFile(conf, config(dir, port, upstreamPort))
  const child = reaped(spawn(NGINX, ['-c', conf, '-p', dir, '-e', path.join(dir, 'error.log')], { stdio: ['ignore', 'ignore', 'pipe'] }))
  let stderr = ''
  child.stderr!.on('data', (b: Buffer) => { stderr += b.toString() })
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
    }
    await rm(dir, { recursive: true, force: true })
  })
  const deadline = Date.now() + 20_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited (${child.exitCode}): ${stderr}`)
    const up = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => { s.end(); resolve(true) })
      s.on('error', () => resolve(false))
    })
    if (up) return { port }
    if (Date.now() > deadline) throw new Error(`nginx did not listen on ${port}: ${stderr}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}
