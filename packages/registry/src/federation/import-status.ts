/**
 * The registries this one imports, as the operator console shows them (GET /imports): each source with where its
 * last completed import got to (`federation_sources`), how many entries it brought, and how its last run went
 * (the newest `import.run` entry of the audit log: what it imported, or why it failed).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import { parseColumn } from '../store/json.js';
import { IMPORT_RUN_ACTION } from './sync.js';

export interface ImportRun {
  at: string;
  ok: boolean;
  imported?: number;
  deleted?: number;
  skipped?: number;
  unreadable?: number;
  error?: string;
}

export interface ImportSource {
  baseUrl: string;
  /** `mcp-registry` or `agentry`, once an import completed. */
  kind?: string;
  /** The `updated_since` the next import asks from. */
  updatedSince?: string;
  lastImportedAt?: string;
  /** Entries with a description imported from this source's host. */
  agents: number;
  lastRun?: ImportRun;
}

export async function listImportSources(db: Kysely<Database>): Promise<ImportSource[]> {
  const stored = await db.selectFrom('federation_sources').selectAll().execute();
  const ran = await db
    .selectFrom('audit_log')
    .select('target')
    .distinct()
    .where('action', '=', IMPORT_RUN_ACTION)
    .execute();
  const urls = [...new Set([...stored.map((row) => row.base_url), ...ran.map((row) => row.target)])].sort();
  const byUrl = new Map(stored.map((row) => [row.base_url, row]));
  return Promise.all(
    urls.map(async (baseUrl): Promise<ImportSource> => {
      const row = byUrl.get(baseUrl);
      const source: ImportSource = {
        baseUrl,
        agents: URL.canParse(baseUrl) ? await importedAgents(db, new URL(baseUrl).host) : 0,
      };
      if (row !== undefined) {
        source.kind = row.kind;
        if (row.updated_since !== null) source.updatedSince = row.updated_since;
        source.lastImportedAt = row.last_imported_at;
      }
      const last = await db
        .selectFrom('audit_log')
        .select(['at', 'details'])
        .where('target', '=', baseUrl)
        .where('action', '=', IMPORT_RUN_ACTION)
        .orderBy('seq', 'desc')
        .limit(1)
        .executeTakeFirst();
      if (last !== undefined) source.lastRun = runOf(last.at, parseColumn(last.details, 'audit_log.details'));
      return source;
    }),
  );
}

/** Entries holding a source imported from `host` (their source keys are `imported <host> <id>`). */
async function importedAgents(db: Kysely<Database>, host: string): Promise<number> {
  const prefix = `imported ${host} `;
  const row = await db
    .selectFrom('agent_sources')
    .select((eb) => eb.fn.count<number>('agent_sources.agent_id').distinct().as('count'))
    .where('arrival', '=', 'imported')
    .where((eb) => eb(eb.fn('substr', ['source_key', eb.val(1), eb.val(prefix.length)]), '=', prefix))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

function runOf(at: string, details: unknown): ImportRun {
  const fields = typeof details === 'object' && details !== null ? (details as Record<string, unknown>) : {};
  const run: ImportRun = { at, ok: fields['ok'] === true };
  for (const name of ['imported', 'deleted', 'skipped', 'unreadable'] as const) {
    const value = fields[name];
    if (typeof value === 'number') run[name] = value;
  }
  if (typeof fields['error'] === 'string') run.error = fields['error'];
  return run;
}
