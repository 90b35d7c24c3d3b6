/** The off-heap id table against a Map and an array doing the same operations. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { IdTable } from '../src/index.js';

/** Ids from a small alphabet (so sets collide with held ones), with astral and lone-surrogate units among them. */
const ids = fc.oneof(
  fc.string({ unit: fc.constantFrom('a', 'b', 'é', '\u{1F600}', '\uD800', '\uFFFF'), maxLength: 4 }),
  fc.string({ maxLength: 80 }),
);
const slots = fc.nat(40);
const operations = fc.array(
  fc.oneof(
    { weight: 6, arbitrary: fc.record({ kind: fc.constant('set' as const), slot: slots, id: ids }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('deleteAt' as const), slot: slots }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('deleteFound' as const), id: ids }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('move' as const), from: slots, to: slots }) },
  ),
  { maxLength: 300 },
);

function order(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

describe('id table', () => {
  it('answers as a Map and an array would through sets, deletes and moves (property)', () => {
    fc.assert(
      fc.property(operations, fc.nat(8), (steps, initialSlots) => {
        const table = new IdTable(initialSlots);
        const slotOf = new Map<string, number>();
        const idAt: Array<string | undefined> = [];
        let highest = 0;
        for (const step of steps) {
          if (step.kind === 'set') {
            const refused = idAt[step.slot] !== undefined || slotOf.has(step.id);
            if (refused) assert.throws(() => table.set(step.slot, step.id));
            else {
              table.set(step.slot, step.id);
              slotOf.set(step.id, step.slot);
              idAt[step.slot] = step.id;
              highest = Math.max(highest, step.slot + 1);
            }
          } else if (step.kind === 'deleteAt') {
            const held = idAt[step.slot];
            assert.equal(table.deleteAt(step.slot), held !== undefined);
            if (held !== undefined) {
              slotOf.delete(held);
              idAt[step.slot] = undefined;
            }
          } else if (step.kind === 'deleteFound') {
            // As the indexes take an agent out: find its slot, then empty it.
            const slot = slotOf.get(step.id);
            const found = table.slotOf(step.id);
            assert.equal(found, slot ?? -1);
            if (found >= 0) assert.equal(table.deleteAt(found), true);
            if (slot !== undefined) {
              slotOf.delete(step.id);
              idAt[slot] = undefined;
            }
          } else {
            const id = idAt[step.from];
            if (id === undefined || idAt[step.to] !== undefined) {
              assert.throws(() => table.move(step.from, step.to));
            } else {
              table.move(step.from, step.to);
              idAt[step.from] = undefined;
              idAt[step.to] = id;
              slotOf.set(id, step.to);
              highest = Math.max(highest, step.to + 1);
            }
          }
          assert.equal(table.size, slotOf.size);
        }
        assert.equal(table.slotCount, highest);
        for (const [id, slot] of slotOf) {
          assert.equal(table.slotOf(id), slot);
          assert.equal(table.idAt(slot), id);
          assert.ok(table.holds(slot));
        }
        const held = [...slotOf.entries()];
        for (const [id, slot] of held) {
          for (const [other, otherSlot] of held.slice(0, 6)) {
            assert.equal(Math.sign(table.compareAt(slot, other)), order(id, other));
            assert.equal(Math.sign(table.compareSlots(slot, otherSlot)), order(id, other));
            assert.equal(table.startsWithAt(slot, other.slice(0, 2)), id.startsWith(other.slice(0, 2)));
          }
        }
        for (let slot = 0; slot < idAt.length + 2; slot++) {
          if (idAt[slot] === undefined) {
            assert.equal(table.idAt(slot), undefined);
            assert.equal(table.holds(slot), false);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('finds a hundred thousand ids after they are set, some deleted and their slots reused', () => {
    const table = new IdTable(1);
    const count = 100_000;
    for (let slot = 0; slot < count; slot++) table.set(slot, `agent-${slot}`);
    for (let slot = 0; slot < count; slot += 3) table.deleteAt(slot);
    for (let slot = 0; slot < count; slot += 3) table.set(slot, `again-${slot}`);
    assert.equal(table.size, count);
    for (let slot = 0; slot < count; slot++) {
      const id = slot % 3 === 0 ? `again-${slot}` : `agent-${slot}`;
      assert.equal(table.slotOf(id), slot);
      assert.equal(table.idAt(slot), id);
    }
    assert.equal(table.slotOf('agent-0'), -1);
    // Long ids are read back whole.
    const long = 'x'.repeat(5000);
    table.set(count, long);
    assert.equal(table.idAt(count), long);
  });
});
