// The `id` of a market-stream control request: a 64-bit signed integer or null, as Binance spot
// documents it, or a string (Binance: alphanumeric, at most 36 characters; here any string of
// at most 64, as API.md's "numbers or strings" has always been read). Replies echo it as sent,
// so an integer is echoed from its own digits: past 2^53 a JS number would round it (a
// nanosecond clock, a common id, is past 2^60).

/** The longest string id taken (a UUID is 36 characters). */
const ID_STRING_MAX = 64
/** An integer as JSON writes one: no fraction, no exponent (1.0 and 1e3 are not ids). */
const ID_INTEGER = /^-?(?:0|[1-9][0-9]{0,18})$/
const I64_MIN = -(2n ** 63n)
const I64_MAX = 2n ** 63n - 1n

/**
 * The JSON text a reply gives as the id of `request` (parsed from `text`), or undefined when it
 * has none or one of another form (Binance: "request ID must be an unsigned integer").
 */
export function requestIdJson(text: string, request: Readonly<Record<string, unknown>>): string | undefined {
  if (!Object.hasOwn(request, 'id')) return undefined
  const id = request.id
  if (id === null) return 'null'
  if (typeof id === 'string') return id.length <= ID_STRING_MAX ? JSON.stringify(id) : undefined
  if (typeof id !== 'number') return undefined
  const raw = memberText(text, 'id')
  if (raw === undefined || !ID_INTEGER.test(raw)) return undefined
  const n = BigInt(raw)
  // BigInt's text drops a "-0"'s sign, as a number's would.
  return n >= I64_MIN && n <= I64_MAX ? n.toString() : undefined
}

const WHITESPACE = ' \t\n\r'

function skipWhitespace(text: string, i: number): number {
  while (i < text.length && WHITESPACE.includes(text[i]!)) i++
  return i
}

/** The index after the string that opens at `i` (its closing quote's, + 1). */
function stringEnd(text: string, i: number): number {
  for (let j = i + 1; j < text.length; j++) {
    if (text[j] === '\\') j++
    else if (text[j] === '"') return j + 1
  }
  return text.length
}

/** The index after the value that starts at `i`. */
function valueEnd(text: string, i: number): number {
  const c = text[i]
  if (c === '"') return stringEnd(text, i)
  if (c === '{' || c === '[') {
    let depth = 0
    for (let j = i; j < text.length; j++) {
      const d = text[j]
      if (d === '"') j = stringEnd(text, j) - 1
      else if (d === '{' || d === '[') depth++
      else if ((d === '}' || d === ']') && --depth === 0) return j + 1
    }
    return text.length
  }
  let j = i
  while (j < text.length && !',}]'.includes(text[j]!) && !WHITESPACE.includes(text[j]!)) j++
  return j
}

/**
 * The text of the value of the top-level object's member `name` in `text` (JSON that
 * JSON.parse took), the last one when it is there twice, as JSON.parse keeps the last. Every
 * loop stops at the end of the text, which the connection's payload limit bounds.
 */
export function memberText(text: string, name: string): string | undefined {
  let i = skipWhitespace(text, 0)
  if (text[i] !== '{') return undefined
  let found: string | undefined
  for (i = skipWhitespace(text, i + 1); i < text.length && text[i] === '"';) {
    const keyEnd = stringEnd(text, i)
    const key = JSON.parse(text.slice(i, keyEnd)) as string
    const start = skipWhitespace(text, skipWhitespace(text, keyEnd) + 1) // past the ':'
    const end = valueEnd(text, start)
    if (key === name) found = text.slice(start, end)
    i = skipWhitespace(text, end)
    if (text[i] !== ',') break
    i = skipWhitespace(text, i + 1)
  }
  return found
}
