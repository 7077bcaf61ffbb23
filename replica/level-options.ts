// LevelDB settings for the projections, which a node writes all the time.
//
// LevelDB turns its in-memory write buffer into a level-0 table each time the buffer fills,
// and merges those tables down the levels on one background thread per process. With the
// default 4 MiB buffer the projections (many small records, most of them rewritten soon
// after: an order's record at each fill, the open candle at each trade) kept that thread
// at ~70% of a core under the gateway benchmark's order flow, more than the gateway's own
// thread. A 64 MiB buffer (RocksDB's default) absorbs the rewrites before they reach disk
// and flushes a sixteenth as often: measured over a 60-second closed loop, the thread's CPU
// fell from 35.0 to 15.6 CPU-seconds and the exchange's CPU per order from 305 to 253 µs
// (docs/BENCHMARKS.md, session 8). The price is memory, at most two buffers per database
// (one filling, one being written out), and up to 64 MiB of LevelDB's own log to replay when
// a database opens after a crash. A database only uses what is written to it, so the many
// small databases of the tests stay small. The log keeps LevelDB's default: its keys only
// ever grow, so its level-0 tables move down the levels without being rewritten, and the
// log benchmark showed no difference either way.

/** Open options of the projections' own database (passed to `new Level(dir, …)`). */
export const PROJECTIONS_DB_OPTIONS = { writeBufferSize: 64 * 1024 * 1024 } as const
