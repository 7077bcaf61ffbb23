// `exchange cluster status|forget <node> --etcd URL [--cluster NAME]`: what an operator of an
// etcd cluster needs to see and, rarely, to do (docs/REPLICA.md, "Automatic fail-over"). Status
// reads the keys replica/leadership.ts keeps: who leads and at which epoch, the standbys and
// which of them are up, and while no one leads, the votes of the round and whom the election
// waits for. Forget removes a standby lost for good from those an election waits for, once it
// is neither up nor leading: what only it held is then given up.

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
