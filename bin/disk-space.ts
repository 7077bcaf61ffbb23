// The free space of the disks a node writes (its --data, and its --log-archive with --log-keep):
// gauges on /metrics, and a warning in the log when one falls below a twentieth of its size. A
// node that cannot write stops (bin/main.ts: a write fault stops the process, and what it
// acknowledged is on disk); the operator should hear of it before, from either.

import { statfsSync } from 'node:fs'
import type { Logger } from '../replica/node.js'

export interface WatchedDir {
  /** The gauges' `dir` label: data, log-archive. */
  name: string
  path: string
}

/** Below this share of its size a disk's free space is logged as a warning. */
export const DISK_WARN_FRACTION = 0.05
/** How often the space is read when nothing scrapes /metrics. */
const CHECK_MS = 60_000

interface Space { free: number; size: number }

export class DiskSpace {
  /** The dirs whose disk is nearly full and was said so (said again only after it recovers). */
  private readonly warned = new Set<string>()
  private readonly timer: NodeJS.Timeout

  constructor(private readonly dirs: WatchedDir[], private readonly logger?: Logger) {
    this.check()
    this.timer = setInterval(() => this.check(), CHECK_MS)
    this.timer.unref()
  }

  /** `exchange_disk_free_bytes{dir}` and `exchange_disk_size_bytes{dir}`, read now (and checked). */
  gauges(): Record<string, number> {
    const out: Record<string, number> = {}
    for (const [d, s] of this.check()) {
      out[`exchange_disk_free_bytes{dir="${d.name}"}`] = s.free
      out[`exchange_disk_size_bytes{dir="${d.name}"}`] = s.size
    }
    return out
  }

  close(): void {
    clearInterval(this.timer)
  }

  /** Reads each dir's disk and warns of one newly below the fraction; a dir that cannot be read is left out. */
  private check(): [WatchedDir, Space][] {
    const out: [WatchedDir, Space][] = []
    for (const d of this.dirs) {
      const s = spaceOf(d.path)
      if (s === undefined) continue
      out.push([d, s])
      const low = s.free < s.size * DISK_WARN_FRACTION
      if (low && !this.warned.has(d.name)) {
        this.warned.add(d.name)
        this.logger?.warn({ dir: d.name, path: d.path, freeBytes: s.free, sizeBytes: s.size },
          'disk nearly full: the node stops when it cannot write')
      } else if (!low && this.warned.delete(d.name)) {
        this.logger?.info({ dir: d.name, path: d.path, freeBytes: s.free, sizeBytes: s.size }, 'disk space recovered')
      }
    }
    return out
  }
}

/** What an unprivileged writer may still use (a disk's root reserve is not free to the node), and the whole. */
function spaceOf(path: string): Space | undefined {
  try {
    const s = statfsSync(path)
    return { free: s.bavail * s.bsize, size: s.blocks * s.bsize }
  } catch {
    return undefined
  }
}
