/**
 * Vectors in the database: float32 little-endian blobs beside the text they were made from and the provider
 * that made them. Plain SQL that any database Kysely speaks can hold.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/database.js';

export interface StoredVector {
  id: string;
  vector: Float32Array;
}

export function encodeVector(vector: Float32Array): Uint8Array {
  // Typed arrays use the platform's byte order; every platform Node supports is little-endian.
  return new Uint8Array(vector.buffer.slice(vector.byteOffset, vector.byteOffset + vector.byteLength));
}

export function decodeVector(bytes: Uint8Array): Float32Array {
  // Copy: a database blob need not be 4-byte aligned.
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}

/**
 * Every vector the given provider made, read in pages so a large index never sits in memory twice. The pages walk
 * the primary key and leave other providers' rows and rows without a vector here: a page asked for by provider (its
 * index) was sorted by id every time, so reading all of them took time quadratic in the rows (100,000 agents: 44 s
 * at start, where this takes a few).
 */
export async function* storedVectors(
  db: Kysely<Database>,
  providerId: string,
  pageSize = 2000,
): AsyncGenerator<StoredVector> {
  let after = '';
  for (;;) {
    const rows = await db
      .selectFrom('search_vectors')
      .select(['agent_id', 'provider', 'vector'])
      .where('agent_id', '>', after)
      .orderBy('agent_id')
      .limit(pageSize)
      .execute();
    for (const row of rows) {
      if (row.provider === providerId && row.vector)
        yield { id: row.agent_id, vector: decodeVector(row.vector) };
    }
    if (rows.length < pageSize) return;
    after = rows[rows.length - 1]!.agent_id;
  }
}

/** Agents whose text has no vector from this provider yet (new with no provider, failed, or another model's). */
export async function pendingRows(
  db: Kysely<Database>,
  providerId: string,
  limit: number,
): Promise<Array<{ id: string; text: string }>> {
  const rows = await db
    .selectFrom('search_vectors')
    .select(['agent_id', 'text'])
    .where((eb) =>
      eb.or([eb('provider', 'is', null), eb('provider', '!=', providerId), eb('vector', 'is', null)]),
    )
    .orderBy('agent_id')
    .limit(limit)
    .execute();
  return rows.map((row) => ({ id: row.agent_id, text: row.text }));
}
