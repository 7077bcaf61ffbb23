// The core's own hash tables (a book's orders by orderId, a sub-account's by clientOrderId)
// against a plain Map on random add/remove/lookup sequences: same answers, same size, and
// the iteration order a Map filled the same way would give; and the client id index's
// rename, which keeps an entry's place.

import t from 'tap'
import fc from 'fast-check'
import { ClientIdIndex } from '../../core/client-id-index.js'
import { OrderIndex } from '../../core/order-index.js'
import type { Order } from '../../core/state.js'
import { runs } from '../helpers/property.js'

/** Stand-ins for orders: the indexes only store and return them. */
function fakeOrder(orderId: number, clientOrderId: string): Order {
  return { orderId, clientOrderId } as Order
}

type Op = { kind: 'add' | 'remove' | 'lookup'; key: number }

const ops = (keys: number): fc.Arbitrary<Op[]> => fc.array(
  fc.record({ kind: fc.constantFrom('add', 'add', 'remove', 'lookup'), key: fc.integer({ min: 1, max: keys }) }) as fc.Arbitrary<Op>,
  { maxLength: 600 },
)

t.test('OrderIndex answers as a Map and iterates in ascending orderId', async (t) => {
  // A narrow key range makes probe runs collide and wrap; a wide one makes the table grow.
  for (const keys of [40, 5000]) {
    fc.assert(fc.property(ops(keys), (seq) => {
      const index = new OrderIndex()
      const model = new Map<number, Order>()
      for (const { kind, key } of seq) {
        if (kind === 'add') {
          const o = fakeOrder(key, '')
          index.set(key, o)
          model.set(key, o)
        } else if (kind === 'remove') {
          if (index.delete(key) !== model.delete(key)) return false
        } else if (index.get(key) !== model.get(key) || index.has(key) !== model.has(key)) {
          return false
        }
        if (index.size !== model.size) return false
      }
      for (const key of model.keys()) if (index.get(key) !== model.get(key)) return false
      const expected = [...model.keys()].sort((a, b) => a - b)
      return JSON.stringify([...index.values()].map((o) => o.orderId)) === JSON.stringify(expected)
    }), runs(150))
  }
  t.pass()
})

t.test('OrderIndex finds nothing for ids no order can have', async (t) => {
  const index = new OrderIndex()
  index.set(1, fakeOrder(1, ''))
  for (const id of [0, -1, 1.5, NaN, Infinity, 2 ** 53, 1 + 2 ** 32]) {
    t.equal(index.get(id), undefined, `get(${id})`)
    t.equal(index.delete(id), false, `delete(${id})`)
  }
  t.equal(index.size, 1)
  // Ids past 32 bits hash by their low bits and still round-trip.
  const big = 2 ** 40 + 1
  index.set(big, fakeOrder(big, ''))
  t.equal(index.get(big)?.orderId, big)
  t.same([...index.values()].map((o) => o.orderId), [1, big])
})

t.test('ClientIdIndex answers as a Map and keeps placement order', async (t) => {
  for (const keys of [30, 3000]) {
    fc.assert(fc.property(ops(keys), (seq) => {
      const index = new ClientIdIndex()
      const model = new Map<string, Order>()
      for (const { kind, key } of seq) {
        const id = 'c' + key.toString(36)
        if (kind === 'add') {
          const o = fakeOrder(key, id)
          index.set(id, o)
          model.set(id, o)
        } else if (kind === 'remove') {
          if (index.delete(id) !== model.delete(id)) return false
        } else if (index.get(id) !== model.get(id) || index.has(id) !== model.has(id)) {
          return false
        }
        if (index.size !== model.size) return false
      }
      const same = (a: unknown[], b: unknown[]): boolean => a.length === b.length && a.every((x, i) => x === b[i])
      return same([...index.values()], [...model.values()]) &&
        same([...index.keys()], [...model.keys()]) &&
        same([...index].map(([k]) => k), [...model.keys()])
    }), runs(150))
  }
  t.pass()
})

t.test('ClientIdIndex renames an entry in its place', async (t) => {
  // The model: entries in placement order, a rename changing the key where it stands.
  type RenameOp = { kind: 'add' | 'remove' | 'rename' | 'lookup'; key: number; to: number }
  const renameOps = (keys: number): fc.Arbitrary<RenameOp[]> => fc.array(fc.record({
    kind: fc.constantFrom('add', 'add', 'remove', 'rename', 'lookup'), key: fc.integer({ min: 1, max: keys }),
    to: fc.integer({ min: 1, max: keys }),
  }) as fc.Arbitrary<RenameOp>, { maxLength: 600 })
  for (const keys of [30, 3000]) {
    fc.assert(fc.property(renameOps(keys), (seq) => {
      const index = new ClientIdIndex()
      let model: [string, Order][] = []
      const at = (id: string): number => model.findIndex(([k]) => k === id)
      for (const { kind, key, to } of seq) {
        const id = 'c' + key.toString(36)
        const toId = 'c' + to.toString(36)
        if (kind === 'add') {
          if (at(id) >= 0) continue
          const o = fakeOrder(key, id)
          index.set(id, o)
          model.push([id, o])
        } else if (kind === 'remove') {
          const deleted = at(id) >= 0
          model = model.filter(([k]) => k !== id)
          if (index.delete(id) !== deleted) return false
        } else if (kind === 'rename') {
          // Only to a key not in use, as the core renames (a duplicate id is refused before).
          const i = at(id)
          if (i < 0 || at(toId) >= 0) continue
          index.rename(id, toId)
          model[i] = [toId, model[i]![1]]
        }
        const i = at(id)
        if (index.get(id) !== (i < 0 ? undefined : model[i]![1]) || index.has(id) !== i >= 0) return false
        if (index.size !== model.length) return false
      }
      const same = (a: unknown[], b: unknown[]): boolean => a.length === b.length && a.every((x, i) => x === b[i])
      return same([...index.values()], model.map(([, o]) => o)) && same([...index.keys()], model.map(([k]) => k)) &&
        model.every(([k, o]) => index.get(k) === o)
    }), runs(100))
  }
  t.pass()
})

t.test('ClientIdIndex tells apart ids that differ only in case or length, and ignores non-strings', async (t) => {
  const index = new ClientIdIndex()
  const ids = ['a', 'A', 'aa', 'a.', 'x-1-2', 'x-1-2-1', '0123456789abcdefghijABCDEFGHIJ:/._-']
  ids.forEach((id, i) => index.set(id, fakeOrder(i + 1, id)))
  t.same(ids.map((id) => index.get(id)?.orderId), [1, 2, 3, 4, 5, 6, 7])
  t.equal(index.get('b'), undefined)
  t.equal(index.get(7 as unknown as string), undefined)
  t.equal(index.has(undefined as unknown as string), false)
  t.equal(index.delete('A'), true)
  t.equal(index.delete('A'), false)
  t.same([...index.keys()], ['a', 'aa', 'a.', 'x-1-2', 'x-1-2-1', '0123456789abcdefghijABCDEFGHIJ:/._-'])
})
