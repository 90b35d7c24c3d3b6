/**
 * The off-heap id table (packages/embeddings/src/ids/id-table.ts) against what it replaced, a `Map<string, number>`
 * and a `string[]`, measured in the same run: what a full garbage collection costs while three indexes' worth of
 * ids are held (the lexical, vector and facet indexes of a 1,000,000-agent registry each number every agent), and
 * what a lookup and an id read cost. Ratios are the table's figure over the Map's.
 *
 *   node --expose-gc --max-old-space-size=8192 --import tsx bench/registry/id-table.ts [--ids 1000000] [--lookups 2000000]
 *
 * Ids look like the registry bench's (`weather-123456`) and like URLs (`https://…/agents/…`), half each.
 */
import { parseArgs } from 'node:util';
import { IdTable } from '@agentry/embeddings';
import { random } from './agents.js';

const { values } = parseArgs({
  options: {
    ids: { type: 'string', default: '1000000' },
    lookups: { type: 'string', default: '2000000' },
  },
});
const count = Number(values.ids);
const lookups = Number(values.lookups);
const collect = (globalThis as { gc?: () => void }).gc;
if (collect === undefined) throw new Error('run with node --expose-gc (see the header)');

function idAt(index: number): string {
  return index % 2 === 0
    ? `weather-${index}`
    : `https://agents.example.org/publishers/p${index % 997}/agents/summarise-invoices-${index}`;
}

/** The fastest of five full collections, in ms, and the heap they leave. */
function fullCollection(): { ms: number; heapMB: number } {
  collect!();
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round < 5; round++) {
    const start = performance.now();
    collect!();
    best = Math.min(best, performance.now() - start);
  }
  return { ms: best, heapMB: process.memoryUsage().heapUsed / 1e6 };
}

interface Tables {
  slotOf(id: string): number;
  idAt(slot: number): string | undefined;
}

function mapTables(): Tables {
  const slots = new Map<string, number>();
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = idAt(i);
    slots.set(id, i);
    ids.push(id);
  }
  return { slotOf: (id) => slots.get(id) ?? -1, idAt: (slot) => ids[slot] };
}

function idTables(): Tables {
  const table = new IdTable();
  for (let i = 0; i < count; i++) table.set(i, idAt(i));
  return table;
}

function measure(
  name: string,
  make: () => Tables,
): { build: number; gc: number; heapMB: number; lookup: number; read: number } {
  collect!();
  const started = performance.now();
  // Three indexes' worth, as a registry holds them.
  const tables = [make(), make(), make()];
  const build = (performance.now() - started) / 3;
  const { ms, heapMB } = fullCollection();
  const next = random(7);
  const asked = Array.from({ length: 10_000 }, () => idAt(Math.floor(next() * count)));
  let found = 0;
  let start = performance.now();
  for (let i = 0; i < lookups; i++) found += tables[i % 3]!.slotOf(asked[i % asked.length]!) >= 0 ? 1 : 0;
  const lookup = ((performance.now() - start) * 1e6) / lookups;
  if (found !== lookups) throw new Error(`${name}: ${lookups - found} ids not found`);
  let length = 0;
  start = performance.now();
  for (let i = 0; i < lookups; i++) length += tables[i % 3]!.idAt((i * 7919) % count)!.length;
  const read = ((performance.now() - start) * 1e6) / lookups;
  if (length === 0) throw new Error('no ids read');
  console.log(
    `${name.padEnd(10)} build ${build.toFixed(0)} ms a table; full GC ${ms.toFixed(1)} ms, heap ${heapMB.toFixed(0)} MB; ` +
      `lookup ${lookup.toFixed(0)} ns, id read ${read.toFixed(0)} ns`,
  );
  tables.length = 0;
  return { build, gc: ms, heapMB, lookup, read };
}

console.log(`${count} ids × 3 tables, ${lookups} lookups and reads`);
const map = measure('Map+array', mapTables);
const table = measure('IdTable', idTables);
console.log(
  `ratios (IdTable / Map+array): full GC ${(table.gc / map.gc).toFixed(3)}×, heap ${(table.heapMB / map.heapMB).toFixed(3)}×, ` +
    `lookup ${(table.lookup / map.lookup).toFixed(2)}×, id read ${(table.read / map.read).toFixed(2)}×, build ${(table.build / map.build).toFixed(2)}×`,
);
