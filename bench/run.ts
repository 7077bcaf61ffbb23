// The benchmark entry: `node dist/bench/run.js [name...]` runs `bench/<name>.js` for each
// name given, or every benchmark in this folder when none is. Each prints its table, then
// its JSON summary as its last line. A new benchmark is a new file exporting `benchmark`.

import { readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { Benchmark } from './lib/bench.js'

const here = fileURLToPath(new URL('.', import.meta.url))

function allNames(): string[] {
  return readdirSync(here)
    .filter((f) => f.endsWith('.js') && f !== 'run.js')
    .map((f) => f.slice(0, -'.js'.length))
    .sort()
}

async function load(name: string): Promise<Benchmark> {
  const known = allNames()
  if (!known.includes(name)) throw new Error(`no benchmark '${name}'; there are: ${known.join(', ')}`)
  const mod = (await import(`./${name}.js`)) as { benchmark?: Benchmark }
  if (mod.benchmark === undefined) throw new Error(`bench/${name}.js exports no benchmark`)
  return mod.benchmark
}

async function main(): Promise<void> {
  const requested = process.argv.slice(2)
  const names = requested.length > 0 ? requested : allNames()
  const out = (line: string): void => { process.stdout.write(line + '\n') }
  for (const [i, name] of names.entries()) {
    const b = await load(name)
    if (i > 0) out('')
    const summary = await b.run(out)
    out(JSON.stringify(summary))
  }
}

main().catch((err: unknown) => {
  process.stderr.write((err instanceof Error ? err.stack ?? err.message : String(err)) + '\n')
  process.exitCode = 1
})
