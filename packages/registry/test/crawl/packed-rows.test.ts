/**
 * Rows read packed (one JSON array per row, built by SQLite) must come back exactly as Kysely's `selectAll` reads
 * them: the re-crawl plans from them and writes them back.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { packedColumns, unpackRow } from '../../src/crawl/packed-rows.js';
import { DOCUMENT_COLUMNS } from '../../src/crawl/queue.js';
import type { CrawlDocumentRow } from '../../src/crawl/tables.js';
import { openTestDatabase, type TestDatabase } from './support/db.js';

// The queue's own list: reading back exactly what selectAll reads also checks that it names every column.
const COLUMNS = DOCUMENT_COLUMNS;

function documentRow(
  origin: string,
  url: string,
  overrides: Partial<CrawlDocumentRow> = {},
): CrawlDocumentRow {
  return {
    origin,
    url,
    kind: null,
    status: 'ok',
    reason: null,
    http_status: null,
    etag: null,
    last_modified: null,
    fetched_at: '2026-11-22T06:00:00.000Z',
    expires_at: '2026-11-22T06:05:00.000Z',
    lifetime_seconds: null,
    source: 'native',
    linked_from: null,
    agent_ids: null,
    issues: null,
    digest: null,
    ...overrides,
  };
}

describe('packed rows', () => {
  let database: TestDatabase;
  before(async () => {
    database = await openTestDatabase();
  });
  after(() => database.remove());

  async function readBothWays(origin: string): Promise<[CrawlDocumentRow[], CrawlDocumentRow[]]> {
    const db = database.db;
    const plain = await db
      .selectFrom('crawl_documents')
      .selectAll()
      .where('origin', '=', origin)
      .orderBy('url')
      .execute();
    const packed = await db
      .selectFrom('crawl_documents')
      .select(packedColumns(db, COLUMNS).as('packed'))
      .where('origin', '=', origin)
      .orderBy('url')
      .execute();
    return [plain, packed.map((row) => unpackRow<CrawlDocumentRow>(COLUMNS, row.packed))];
  }

  it('reads text, integers and nulls back as selectAll does', async () => {
    const origin = 'https://awkward.example';
    await database.db
      .insertInto('crawl_documents')
      .values([
        documentRow(origin, `${origin}/a`, {
          kind: 'woa',
          status: 'not-modified',
          reason: 'échec — 失败 😀 "quoted" \\ back\nslash',
          http_status: 304,
          etag: 'W/"abc\\"def"',
          last_modified: 'Sat, 21 Nov 2026 10:00:00 GMT',
          lifetime_seconds: 0,
          agent_ids: '["a","b"]',
          issues: '[]',
          digest: 'x'.repeat(43),
        }),
        documentRow(origin, `${origin}/b`, {
          status: 'missing',
          lifetime_seconds: 2 ** 40,
          source: 'synthetic',
        }),
      ])
      .execute();
    const [plain, packed] = await readBothWays(origin);
    assert.equal(packed.length, 2);
    assert.deepEqual(packed, plain);
    assert.equal(packed[0]!.http_status, 304);
    assert.equal(packed[0]!.agent_ids, '["a","b"]'); // JSON text stays text, not an array
    assert.equal(packed[1]!.kind, null);
  });

  it('reads any stored text and integer back unchanged (property)', async () => {
    const text = fc.option(fc.string({ unit: 'grapheme', maxLength: 40 }), { nil: null });
    const integer = fc.option(fc.integer({ min: -(2 ** 31), max: 2 ** 31 }), { nil: null });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(text, text, integer, text, async (reason, etag, httpStatus, issues) => {
        const origin = `https://property-${run++}.example`;
        await database.db
          .insertInto('crawl_documents')
          .values(documentRow(origin, `${origin}/doc`, { reason, etag, http_status: httpStatus, issues }))
          .execute();
        const [plain, packed] = await readBothWays(origin);
        assert.deepEqual(packed, plain);
      }),
      { numRuns: 200 },
    );
  });

  it('refuses a packed row whose values do not match the columns', () => {
    type Pair = { a: number; b: number | null };
    assert.throws(() => unpackRow<Pair>(['a', 'b'], '[1]'), /1 values for 2 columns/);
    assert.throws(() => unpackRow<Pair>(['a'], '{"a":1}'), /no values for 1 columns/);
    assert.deepEqual(unpackRow<Pair>(['a', 'b'], [1, null]), { a: 1, b: null });
  });
});
