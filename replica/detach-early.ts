// V8 compiles code that reads typed arrays on the promise that no ArrayBuffer in the isolate
// has ever been detached, and the first detach (a buffer transferred to or from a worker
// thread) breaks the promise for good: every optimized function built on it is thrown away
// at once. In a node that has run for a while that is most of the core and the codecs,
// compiled again under load (in the log benchmark, ~50 functions at once). Each module
// that transfers buffers calls detachEarly() as
// it loads, so the first detach happens before anything is optimized (docs/REPLICA.md).

let detached = false

/** Detaches one empty buffer in this isolate, once. */
export function detachEarly(): void {
  if (detached) return
  detached = true
  const b = new ArrayBuffer(0)
  structuredClone(b, { transfer: [b] })
}
