// A mistake of the operator's (a flag, a file, a port), said in its own words: `exchange`
// prints its message alone, not a stack (bin/main.ts).

export class OperatorError extends Error {
  override name = 'OperatorError'
}

type SystemError = Error & { code?: string; address?: string; port?: number; path?: string }

/** What a file system refusal means, for the path it names (a --data, --keys, --log …). */
const FS_PROBLEMS: Record<string, string> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOTDIR: 'not a directory (a file where a folder is needed)',
  EISDIR: 'is a directory (a file is needed)',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on device',
}

/** A system error as the operator should read it (a port in use, nothing listening, a file refused), or undefined for one it names nothing of. */
export function systemErrorMessage(err: SystemError): string | undefined {
  if (err.code === 'EADDRINUSE') {
    return `${err.address}:${err.port} is in use (another exchange running?): choose other ports (--port, --replication-port, --metrics-port)`
  }
  if (err.code === 'ECONNREFUSED') return `nothing answers at ${err.address}:${err.port}`
  const fsProblem = err.code === undefined || err.path === undefined ? undefined : FS_PROBLEMS[err.code]
  return fsProblem === undefined ? undefined : `${fsProblem}: ${err.path}`
}

/**
 * `err` as the operator should read it, in `context`: an OperatorError or a system error that
 * systemErrorMessage says (a refused connection, a missing file) as it is; anything else, its
 * message alone (a refused link, a certificate not trusted, a name that does not resolve, a log
 * that no longer starts at genesis, a bad hash), not its stack.
 */
export function saidAs(err: unknown, context: string): Error {
  if (err instanceof OperatorError || systemErrorMessage(err as SystemError) !== undefined) return err as Error
  return new OperatorError(`${context}: ${(err as Error).message}`)
}
