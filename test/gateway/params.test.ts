// Request parameters: the gateway's own split of a plain query string or form body gives
// exactly the pairs the WHATWG form-urlencoded parser (URLSearchParams) gives, in the same
// order, the query winning over the body; texts with escapes, '+' or a leading '?' are
// decoded as URLSearchParams decodes them; a name sent twice within the query, or within the
// body, is told apart from one sent in both (the first is refused, -1101; the second is not).

import t from 'tap'
import { parseParams } from '../../gateway/params.js'

/** The reference: URLSearchParams over the body, then the query. */
function reference(rawQuery: string, rawBody: string): [string, string][] {
  const m = new Map<string, string>()
  for (const [k, v] of new URLSearchParams(rawBody)) m.set(k, v)
  for (const [k, v] of new URLSearchParams(rawQuery)) m.set(k, v)
  return [...m]
}

/** Whether a name comes twice within the query or within the body, as URLSearchParams reads them. */
function referenceDuplicate(rawQuery: string, rawBody: string): boolean {
  return [rawQuery, rawBody].some((raw) => {
    const keys = [...new URLSearchParams(raw).keys()]
    return new Set(keys).size < keys.length
  })
}

t.test('a signed order body, as a bot sends it', async (t) => {
  const body = 'symbol=BTCUSDTPERP&side=BUY&type=LIMIT&timeInForce=GTC&quantity=0.005&price=49999.9&recvWindow=5000' +
    '&timestamp=1763800000000&signature=ab12'
  t.same([...parseParams('', body).params], [
    ['symbol', 'BTCUSDTPERP'], ['side', 'BUY'], ['type', 'LIMIT'], ['timeInForce', 'GTC'], ['quantity', '0.005'],
    ['price', '49999.9'], ['recvWindow', '5000'], ['timestamp', '1763800000000'], ['signature', 'ab12'],
  ])
})

t.test('the query wins over the body and keeps the body\'s position', async (t) => {
  t.same([...parseParams('b=query&c=3', 'a=1&b=body').params], [['a', '1'], ['b', 'query'], ['c', '3']])
})

t.test('edge cases read as URLSearchParams reads them', async (t) => {
  const cases: [string, [string, string][]][] = [
    ['', []],
    ['a', [['a', '']]],
    ['a=', [['a', '']]],
    ['=x', [['', 'x']]],
    ['=', [['', '']]],
    ['a=b=c', [['a', 'b=c']]],
    ['&&a=1&&', [['a', '1']]],
    ['a=1&a=2', [['a', '2']]],
    ['?a=1', [['a', '1']]],
    ['a=%41%zz', [['a', 'A%zz']]],
    ['a+b=c+d', [['a b', 'c d']]],
    ['clientId=x%26y', [['clientId', 'x&y']]],
    ['k=é', [['k', 'é']]],
  ]
  for (const [raw, pairs] of cases) {
    t.same([...parseParams(raw, '').params], pairs, `query ${JSON.stringify(raw)}`)
    t.same([...parseParams('', raw).params], pairs, `body ${JSON.stringify(raw)}`)
  }
})

t.test('random texts agree with URLSearchParams', async (t) => {
  const alphabet = ['a', 'b', '=', '&', '%', '%41', '+', '?', 'é', '\uD800', '0', '.']
  let seed = 12345
  // xorshift32: a float LCG (seed * 1103515245 + …) loses its low bits, and seed % n with them.
  const rand = (n: number): number => {
    seed ^= seed << 13
    seed ^= seed >>> 17
    seed ^= seed << 5
    return (seed >>> 0) % n
  }
  const text = (): string => Array.from({ length: rand(16) }, () => alphabet[rand(alphabet.length)]).join('')
  let disagreements = 0
  let duplicateDisagreements = 0
  for (let i = 0; i < 5000; i++) {
    const q = text()
    const b = text()
    const got = parseParams(q, b)
    if (JSON.stringify([...got.params]) !== JSON.stringify(reference(q, b))) disagreements++
    if (got.duplicate !== referenceDuplicate(q, b)) duplicateDisagreements++
  }
  t.equal(disagreements, 0)
  t.equal(duplicateDisagreements, 0, 'a name twice in one part is told apart from one in both')
})
