// The standby options as an operator types them: `--standby` alone on a replica, a count of
// standbys on a sequencer, and each refused in words where it means nothing.

import t from 'tap'
import { loadConfig } from '../../bin/config.js'

t.test('--standby and --sync-replicas', async (t) => {
  t.equal(loadConfig(['replica', '--follow', 'ws://127.0.0.1:9090/replication', '--standby'], {}).standby, true)
  t.equal(loadConfig(['replica', '--follow', 'ws://127.0.0.1:9090/replication'], {}).standby, false, 'a plain follower by default')
  t.equal(loadConfig(['replica', '--follow', 'ws://127.0.0.1:9090/replication'], { EXCHANGE_STANDBY: 'yes' }).standby, true, 'or from the environment')
  t.equal(loadConfig(['sequencer', '--sync-replicas', '2'], {}).syncReplicas, 2)
  t.equal(loadConfig(['start'], {}).syncReplicas, 0, 'none by default')
  t.throws(() => loadConfig(['sequencer', '--standby'], {}), /--standby is for a replica/)
  t.throws(() => loadConfig(['replica', '--follow', 'ws://127.0.0.1:9090/replication', '--sync-replicas', '1'], {}), /--sync-replicas is for the sequencer/)
  t.throws(() => loadConfig(['sequencer', '--sync-replicas=17'], {}), /--sync-replicas must be an integer in \[0, 16\], got 17/)
  t.throws(() => loadConfig(['replica', '--follow', 'ws://x', '--standby=maybe'], {}), /--standby takes yes or no, got maybe/)
})
