// Response serializers built on a route's first response instead of at start. fastify
// compiles every route's response schema (fast-json-stringify, and again for each GET's
// HEAD) when the routes register: about a third of a second of every gateway's start, for
// routes most processes never answer. The compiler is fastify's own default, so what a
// response serializes to is unchanged. A schema it cannot compile would fail its route's
// first response instead of the start: `compileAll` (the app's `compileSerializers`)
// builds every one, and a test runs it.

import { SerializerSelector } from '@fastify/fast-json-stringify-compiler'

type Factory = ReturnType<typeof SerializerSelector>

declare module 'fastify' {
  interface FastifyInstance {
    /** Builds every response serializer not built yet; returns how many there are. */
    compileSerializers: () => number
  }
}

export function lazySerializers(): { factory: Factory; compileAll: () => number } {
  const build = SerializerSelector()
  const all: (() => unknown)[] = []
  const factory: Factory = (externalSchemas, options) => {
    const compile = build(externalSchemas, options)
    return (route) => {
      let serialize: ((doc: unknown) => string) | undefined
      const built = () => (serialize ??= compile(route))
      all.push(built)
      return (doc) => built()(doc)
    }
  }
  return { factory, compileAll: () => { for (const built of all) built(); return all.length } }
}
