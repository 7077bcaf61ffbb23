// `exchange cluster status|forget <node>|raise-epoch <n> --etcd URL [--cluster NAME]`: what an
// operator of an etcd cluster needs to see and, rarely, to do (docs/REPLICA.md, "Automatic
// fail-over"). Status reads the keys replica/leadership.ts keeps: who leads and at which epoch,
// the standbys and which of them are up, and while no one leads, the votes of the round and whom
// the election waits for. Forget removes a standby lost for good from those an election waits
// for, once it is neither up nor leading: what only it held is then given up. Raise-epoch writes
// to an etcd whose data were lost until its revision passes the log's newest term: a leader's
// epoch is the revision of its claim, and a claim not above the log's terms is given up
// (Leadership.lead).

import { nameOf, readLeader, readTerm, tallyVotes, type LeaseKv, type Leader, type Term, type Vote } from '../replica/leadership.js'
import { OperatorError } from './operator-error.js'

export interface ClusterStatus {
  cluster: string
  leader: Leader | null
  /** The newest leader's epoch and --sync-replicas: the round standbys vote in while none leads. */
  term: Term | null
  /** Every standby an election counts, and those up now (their lease live). */
  standbys: string[]
  up: string[]
  /** While no one leads: the round's votes, the winner once the tally names one, whom it waits for. */
  election?: { round: number; votes: Vote[]; winner: string | null; waitingFor: string[] }
}

const prefixOf = (cluster: string): string => `/${cluster}/`

/** The most revisions raise-epoch writes its way to (each write raises etcd's revision by one). */
export const RAISE_EPOCH_MAX = 10_000_000
/** Writes in flight at once while raising. */
const RAISE_PARALLEL = 32

export async function clusterStatus(kv: LeaseKv, cluster: string): Promise<ClusterStatus> {
  const prefix = prefixOf(cluster)
  const [leader, term, standbys, members] = await Promise.all([readLeader(kv, prefix), readTerm(kv, prefix),
    kv.list(prefix + 'standbys/'), kv.list(prefix + 'members/')])
  const status: ClusterStatus = { cluster, leader: leader ?? null, term: term ?? null, standbys: standbys.map(nameOf), up: members.map(nameOf) }
  if (leader === undefined && term !== undefined) {
    const tally = await tallyVotes(kv, prefix, term.epoch, term.syncReplicas)
    status.election = { round: term.epoch, votes: tally.votes, winner: tally.winner?.node ?? null, waitingFor: tally.waitingFor }
  }
  return status
}

/** etcd's revision now: the create revision of a key written afresh (two writes). */
async function revisionNow(kv: LeaseKv, key: string): Promise<number> {
  await kv.delete(key)
  await kv.put(key, '')
  const r = await kv.get(key)
  if (r === undefined) throw new Error(`etcd lost ${key} as it was written`)
  return r.createRevision
}

/**
 * Raises etcd's revision past `above` by writing one key over and over, so that the next leader's
 * epoch (its claim's revision) is above every term the log holds. Refused while a node leads: its
 * epoch is above the log's terms already, or it would have stopped.
 */
export async function raiseEpoch(kv: LeaseKv, cluster: string, above: number): Promise<{ cluster: string; from: number; revision: number }> {
  if (!Number.isSafeInteger(above) || above < 1 || above > RAISE_EPOCH_MAX) {
    throw new OperatorError(`raise-epoch takes the log's newest term, an integer in [1, ${RAISE_EPOCH_MAX}]; got ${above}`)
  }
  const leader = await readLeader(kv, prefixOf(cluster))
  if (leader !== undefined) throw new OperatorError(`${leader.node} leads epoch ${leader.epoch}: nothing to raise while a node leads`)
  const key = prefixOf(cluster) + 'revision-floor'
  const from = await revisionNow(kv, key)
  let revision = from
  while (revision <= above) {
    // Each write below raises it by one, and reading it back by two more.
    const left = above - revision - 1
    for (let done = 0; done < left;) {
      const n = Math.min(RAISE_PARALLEL, left - done)
      await Promise.all(Array.from({ length: n }, (_, i) => kv.put(key, String(done + i))))
      done += n
    }
    revision = await revisionNow(kv, key)
  }
  return { cluster, from, revision }
}

/** Removes `node` from the standbys an election waits for; refused while it is up or leads. */
export async function forgetStandby(kv: LeaseKv, cluster: string, node: string): Promise<ClusterStatus> {
  const before = await clusterStatus(kv, cluster)
  if (before.leader?.node === node) throw new OperatorError(`${node} leads epoch ${before.leader.epoch}: stop it first (its standbys then elect another)`)
  if (before.up.includes(node)) throw new OperatorError(`${node} is up (its lease is live): stop it first, or let it vote`)
  if (!before.standbys.includes(node)) {
    throw new OperatorError(`no standby ${node} in cluster ${cluster}; its standbys: ${before.standbys.join(', ') || 'none'}`)
  }
  await kv.delete(prefixOf(cluster) + `standbys/${node}`)
  return clusterStatus(kv, cluster)
}
