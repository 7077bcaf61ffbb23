// Debian packages some tests run for real: etcd (fail-over), Chromium (web pages) and nginx (a
// reverse proxy). Where one is not installed, its tests are skipped, saying so, except under
// its EXCHANGE_REQUIRE_* variable (.ci/run sets them all), where its absence fails them.

import { spawnSync } from 'node:child_process'

/** Whether `command args` runs and exits 0 here. */
export function runs(command: string, args: string[]): boolean {
  return spawnSync(command, args, { encoding: 'utf8' }).status === 0
}

/** The tap `skip` option: false when nothing is `missing`, else its reason, or a throw under `requireVar`=1. */
export function skipWithout(missing: string | undefined, requireVar: string): string | false {
  if (missing === undefined) return false
  if (process.env[requireVar] === '1') throw new Error(missing)
  return missing
}
