// GET /sapi/v1/account/balanceProof: the caller's balances proven against a checkpoint's state
// root, by default the newest one the Vault has anchored, served by a running node (no Binance
// equivalent: Binance publishes a Merkle proof of reserves, not one a client fetches). The
// answer is the file `exchange verify-proof --proof` checks against the chain without the log.

import type { FastifyPluginAsync } from 'fastify'
import { authenticate } from '../auth.js'
import type { GatewayContext } from '../context.js'
import { ApiError, invalidParam } from '../errors.js'
import { idParam } from '../market-params.js'
import { arrayOf, bool, int, object, route, str } from '../schemas/common.js'
import type { WeightCounter } from '../weights.js'

interface Options {
  ctx: GatewayContext
  weights: WeightCounter
}

/** Building a checkpoint's tree hashes the whole state once; later requests at that seq read it. */
const WEIGHT = 10

const docs = {
  balanceProof: route({
    family: 'wallet', summary: "The caller's balances proven against an anchored state root (no Binance equivalent)",
    description: 'The sub-account\'s money leaves (perp wallet, spot balances, holdings, isolated wallets) as the state root '
      + 'hashes them, each with its Merkle path to the root of checkpoint `seq` (default: the newest the Vault, named in `vault`, has anchored, '
      + 'which followers learn from their sequencer; before any anchor is known, the newest checkpoint held), and that entry\'s log hash. '
      + 'Under rules 2 (`version` 2) each leaf carries its `salt`, with which it is hashed, so no path gives away a neighbouring leaf. '
      + '`exchange verify-proof --proof FILE --rpc URL` checks it against that Vault on chain (or `--api URL --keys FILE` '
      + 'fetches and checks it in one step). A node holds the last '
      + 'few checkpoints and the anchored one; another `seq` is -1130 naming those it holds. No checkpoint yet, or '
      + 'nothing held at it: 404 -1099.',
    security: 'USER_DATA', weight: WEIGHT, params: ['seq'],
    response: object({
      format: str, version: int, seq: int, root: str, logHash: str, account: str, sub: int,
      leaves: arrayOf(object({ leaf: str, salt: str, proof: arrayOf(object({ sibling: str, left: bool })) })), vault: str,
    }),
  }),
}

const notProvable = (msg: string): ApiError => new ApiError(404, -1099, msg)

export const balanceProofRoutes: FastifyPluginAsync<Options> = async (app, { ctx, weights }) => {
  app.get('/sapi/v1/account/balanceProof', docs.balanceProof, async (req) => {
    weights.charge(req.ip, WEIGHT)
    const { params, session } = authenticate(ctx, req, 'USER_DATA')
    const seq = idParam(params, 'seq')
    if (seq === 0) throw invalidParam('seq')
    const proofs = ctx.balanceProofs
    if (proofs === undefined) throw notProvable('This node serves no balance proofs.')
    const r = await proofs.prove(session.account, session.sub, seq)
    if (!('refused' in r)) return r
    switch (r.refused) {
      case 'no-checkpoint':
        throw notProvable('No checkpoint to prove balances at yet: one comes every checkpoint interval of log entries.')
      case 'seq-not-held':
        // A follower behind its sequencer, or a node restarted after its anchored snapshot was pruned.
        if (seq === undefined) throw notProvable(`This node does not hold the anchored checkpoint ${r.seq} (not reached yet, or pruned); ask with seq, one of: ${r.held.join(', ') || 'none yet'}.`)
        throw new ApiError(400, -1130, `Data sent for parameter 'seq' is not valid: this node holds the checkpoints ${r.held.join(', ') || 'none yet'}.`)
      case 'nothing-held':
        throw notProvable(`Sub-account ${session.sub} of ${session.account} held nothing at checkpoint ${r.seq}.`)
    }
  })
}
