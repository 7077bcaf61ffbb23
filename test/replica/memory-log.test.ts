// The in-memory log store against the shared LogStore suite.

import t from 'tap'
import { MemoryLogStore } from '../../replica/memory-log.js'
import { logStoreSuite } from '../helpers/log-store-suite.js'

logStoreSuite(t, {
  async create() {
    const store = new MemoryLogStore()
    await store.open()
    return store
  },
  async reopen(store) {
    await store.close()
    await store.open()
    return store
  },
})
