/**
 * bench/codecs: parse + validate throughput per format on realistic documents.
 *
 * The unit is a "five-agent document": for multi-agent formats (woa, agents-json) one document listing the five
 * shared fixture agents; for single-agent formats, the five documents describing them one each. Each round reads
 * JSON text, detects the format and parses and validates it, as `agentry validate` does. The baseline, measured in
 * the same run on the same bytes (in alternating slices, best of each), is JSON.parse alone. Target (issue 2):
 * ≥ 10,000 five-agent documents/s per format.
 *
 *   npm run bench            human-readable table
 *   npm run bench -- --json  machine-readable figures
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Agent, codecs, FORMAT_NAMES, type FormatName, readDocumentText } from '@agentry/core';

const TARGET_PER_SECOND = 10_000;
const here = dirname(fileURLToPath(import.meta.url));
const fixtures = JSON.parse(
  readFileSync(join(here, '../../packages/core/test/vectors/round-trip-agents.json'), 'utf8'),
) as { baseUrl: string; cases: Array<{ agent: Agent }> };
const agents = fixtures.cases.map((c) => c.agent);
const baseUrl = fixtures.baseUrl;

function documentsFor(format: FormatName): string[] {
  const codec = codecs[format];
  if (codec.cardinality === 'many') {
    return [JSON.stringify(codec.emit(agents, { baseUrl }).document)];
  }
  return agents.map((agent) => JSON.stringify(codec.emit([agent], { baseUrl }).document));
}

/** Rounds per second of `round`, run repeatedly for about `ms` milliseconds. */
function rate(round: () => void, ms: number): number {
  let rounds = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < ms) {
    for (let i = 0; i < 100; i++) round();
    rounds += 100;
    elapsed = performance.now() - start;
  }
  return (rounds * 1000) / elapsed;
}

/**
 * The best rate of `subject` and of `baseline` over several short slices taken in turn, after a warm-up: on a
 * shared machine, other work slows some slices down, and alternating keeps both figures under the same conditions.
 */
function measure(
  subject: () => void,
  baseline: () => void,
  ms = Number(process.env['BENCH_MS'] ?? 1000),
): { subject: number; baseline: number } {
  for (let i = 0; i < 500; i++) {
    subject();
    baseline();
  }
  const slices = 10;
  let best = { subject: 0, baseline: 0 };
  for (let i = 0; i < slices; i++) {
    best = {
      subject: Math.max(best.subject, rate(subject, ms / slices)),
      baseline: Math.max(best.baseline, rate(baseline, ms / slices)),
    };
  }
  return best;
}

interface Row {
  format: FormatName;
  bytes: number;
  documentsPerSecond: number;
  microsecondsPerDocument: number;
  jsonParsePerSecond: number;
  /** How many times slower than JSON.parse of the same text. */
  costVsJsonParse: number;
  meetsTarget: boolean;
}

const rows: Row[] = [];
for (const format of FORMAT_NAMES) {
  const texts = documentsFor(format);
  for (const text of texts) {
    const result = readDocumentText(text);
    if (!result.valid || result.format !== format) {
      throw new Error(
        `${format}: benchmark document does not read back cleanly: ${JSON.stringify(result.issues)}`,
      );
    }
  }
  const { subject: perSecond, baseline } = measure(
    () => {
      for (const text of texts) readDocumentText(text);
    },
    () => {
      for (const text of texts) JSON.parse(text);
    },
  );
  rows.push({
    format,
    bytes: texts.reduce((sum, text) => sum + text.length, 0),
    documentsPerSecond: Math.round(perSecond),
    microsecondsPerDocument: Number((1e6 / perSecond).toFixed(1)),
    jsonParsePerSecond: Math.round(baseline),
    costVsJsonParse: Number((baseline / perSecond).toFixed(1)),
    meetsTarget: perSecond >= TARGET_PER_SECOND,
  });
}

if (process.argv.includes('--json')) {
  process.stdout.write(
    `${JSON.stringify({ target: TARGET_PER_SECOND, node: process.version, rows }, null, 2)}\n`,
  );
} else {
  console.log(
    `bench/codecs — five-agent documents read (JSON text → detect → parse → validate), ${process.version}`,
  );
  console.log(`target ≥ ${TARGET_PER_SECOND.toLocaleString('en')} documents/s per format\n`);
  console.log('format        bytes   docs/s     µs/doc   JSON.parse docs/s   × JSON.parse   target');
  for (const r of rows) {
    console.log(
      `${r.format.padEnd(12)} ${String(r.bytes).padStart(6)}  ${r.documentsPerSecond.toLocaleString('en').padStart(8)}  ${String(r.microsecondsPerDocument).padStart(8)}   ${r.jsonParsePerSecond.toLocaleString('en').padStart(17)}   ${String(r.costVsJsonParse).padStart(12)}   ${r.meetsTarget ? 'met' : 'MISSED'}`,
    );
  }
}
