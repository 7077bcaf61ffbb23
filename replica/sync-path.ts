// fsync of a file or a directory by its path: what makes a write, or a rename within the
// directory, survive a power cut. A file replaced whole is written beside it, synced, renamed
// over it, and then its directory synced.

import { open } from 'node:fs/promises'

/** Syncs the file or directory at `p` to disk. */
export async function syncPath(p: string): Promise<void> {
  const handle = await open(p, 'r')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}
