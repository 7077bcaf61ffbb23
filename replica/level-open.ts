// Opening a LevelDB of a node's data directory. LevelDB locks its directory; a second process
// opening it (an audit, a replay or an export of a running node's data, or a second node on
// the same --data) is refused with LEVEL_LOCKED, which abstract-level reports as a bare
// "Database failed to open". This says what happened and what to do.

export class DatabaseInUseError extends Error {
  override name = 'DatabaseInUseError'
  constructor(readonly dir: string) {
    super(`${dir} is in use (by a node running on this data directory?): stop it first`)
  }
}

export async function openLevel(db: { open(): Promise<void> }, dir: string): Promise<void> {
  try {
    await db.open()
  } catch (err) {
    if ((err as { cause?: { code?: unknown } }).cause?.code === 'LEVEL_LOCKED') throw new DatabaseInUseError(dir)
    throw err
  }
}

/** A read-only tool (audit, replay, export, proof) was pointed at a directory that holds no log. */
export class NoLogError extends Error {
  override name = 'NoLogError'
  constructor(readonly dir: string, why: string) {
    super(`${why} in ${dir}: is --data the data directory of a node that has run?`)
  }
}
