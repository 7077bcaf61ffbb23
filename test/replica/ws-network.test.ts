// The internal links' WebSocket network: a node's port takes only upgrades that carry the token
// of its master secret, so whoever can reach the port but lacks the secret can neither read
// the log nor submit a command, and can hold only a bounded number of connections.

import t from 'tap'
import { randomBytes } from 'node:crypto'
import net from 'node:net'
import { IngressClient } from '../../replica/ingress.js'
import type { Connection } from '../../replica/network.js'
import { linkToken, wsNetwork, wsNetworkWith } from '../../replica/ws-network.js'
import { holdIdle } from '../helpers/sockets.js'

t.test('a listener with a token accepts only connections that send it', async (t) => {
  const secret = randomBytes(32)
  const node = wsNetworkWith(linkToken(secret))
  const accepted: string[] = []
  const listener = await node.listen('127.0.0.1', 0, (conn: Connection, path) => {
    accepted.push(path)
    conn.onMessage((m) => conn.send(m))
  })
  t.teardown(() => listener.close())

  const peer = await node.connect(listener.url + '/replication')
  const echoed = new Promise<number[]>((resolve) => peer.onMessage((m) => resolve([...m])))
  peer.send(new Uint8Array([1, 2, 3]))
  t.same(await echoed, [1, 2, 3], 'the same secret: connected')
  peer.close()

  await t.rejects(wsNetwork.connect(listener.url + '/commands'),
    { message: `${listener.url}/commands refused the link (401): it runs with another master secret` }, 'no token: refused')
  await t.rejects(wsNetworkWith(linkToken(randomBytes(32))).connect(listener.url + '/replication'),
    { message: /refused the link \(401\)/ }, 'another secret\'s token: refused')
  await t.rejects(IngressClient.connect(wsNetwork, listener.url), { message: /401/ }, 'an ingress client without it: refused')
  t.same(accepted, ['/replication'], 'only the holder of the secret got a connection')
})

t.test('the token is a digest of the secret, not the secret', async (t) => {
  const secret = Buffer.from('ab'.repeat(32), 'hex')
  const token = linkToken(secret)
  t.match(token, /^[0-9a-f]{64}$/)
  t.not(token, secret.toString('hex'))
  t.equal(linkToken(secret), token, 'the same secret gives the same token')
  t.not(linkToken(Buffer.from('ac'.repeat(32), 'hex')), token)
})

t.test('anyone reaching the port holds at most 1,024 connections; a plain request is told to upgrade', async (t) => {
  const node = wsNetworkWith(linkToken(randomBytes(32)))
  const listener = await node.listen('127.0.0.1', 0, () => {})
  t.teardown(() => listener.close())
  const port = Number(new URL(listener.url).port)
  const plain = await fetch(`http://127.0.0.1:${port}/replication`)
  t.equal(plain.status, 426)
  t.equal(await plain.text(), 'Upgrade Required')

  // Connections that send nothing, up to the bound: the one after it is closed at once.
  const held = await holdIdle(t, port, 1_024)
  const extra = net.connect(port, '127.0.0.1')
  const ended = await new Promise<string>((resolve) => {
    extra.on('error', () => resolve('reset'))
    extra.on('close', () => resolve('closed'))
  })
  t.ok(ended === 'closed' || ended === 'reset', 'the next one is closed by the server')
  for (const s of held) s.destroy()
  await new Promise((r) => setTimeout(r, 100))
  const peer = await node.connect(listener.url + '/replication')
  t.ok(peer, 'a peer with the secret connects once they are gone')
  peer.close()
})
