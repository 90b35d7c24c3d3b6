/**
 * Importing another registry into this one, again and again: which kind of registry a URL is (the official MCP
 * Registry API, or another Agentry registry), and where the last import got to. Each source's latest update time
 * is kept in `federation_sources`, so the next import asks only for what changed since (`updated_since`); a full
 * import asks for everything again. The watermark moves only when an import completes, so an import that fails
 * half-way is taken up from the same point. Each run, done or failed, is written to the audit log.
 */
import {
  BadRegistryResponseError,
  createRegistryClient,
  FetchError,
  FetchRefusedError,
  type SecureFetcher,
} from '@agentry/client';
import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import { writeAudit } from '../store/audit.js';
import { importAgentryRegistry } from './agentry-registry.js';
import { type FederationSink, type ImportSummary, importMcpRegistry } from './mcp-registry.js';
import { FederationError, federationFailure, fetchJsonPage, isObject, pageUrl } from './paging.js';

export const FEDERATION_KINDS = ['mcp-registry', 'agentry'] as const;
export type FederationKind = (typeof FEDERATION_KINDS)[number];

export interface RegistryImport {
  /** The source registry's base URL. */
  baseUrl: string;
  /**
   * What it is; default: what it was at the last import of this URL, else asked (an MCP Registry answers
   * `/v0.1/servers`, an Agentry registry `/agents`).
   */
  kind?: FederationKind;
  /** Ask for everything, not only what changed since the last import. */
  full?: boolean;
  fetcher: SecureFetcher;
  onPage?: (summary: Readonly<ImportSummary>) => void;
  signal?: AbortSignal;
  now?: () => number;
}

export interface RegistryImportResult extends ImportSummary {
  kind: FederationKind;
  /** The `updated_since` this import asked from; undefined for a full one. */
  updatedSince?: string;
}

/** The base URL as it is stored: without a query, fragment or trailing slash. */
export function sourceKey(baseUrl: string): string {
  const url = new URL(baseUrl);
  url.search = '';
  url.hash = '';
  return url.href.replace(/\/+$/, '');
}

/**
 * Imports a registry, and writes how the run went to the audit log (`import.run`, target the source's base URL,
 * actor `system`): what it imported, or why it failed. An import stopped by its signal is not recorded.
 */
export async function importRegistry(
  db: Kysely<Database>,
  sink: FederationSink,
  options: RegistryImport,
): Promise<RegistryImportResult> {
  const baseUrl = sourceKey(options.baseUrl);
  const at = (): string => new Date((options.now ?? Date.now)()).toISOString();
  let result: RegistryImportResult;
  try {
    result = await importOnce(db, sink, options, baseUrl);
  } catch (error) {
    if (options.signal?.aborted !== true) {
      const message = error instanceof Error ? error.message : String(error);
      await writeAudit(db, {
        at: at(),
        actor: 'system',
        action: IMPORT_RUN_ACTION,
        target: baseUrl,
        details: { ok: false, error: message },
      }).catch(() => undefined);
    }
    throw error;
  }
  await writeAudit(db, {
    at: at(),
    actor: 'system',
    action: IMPORT_RUN_ACTION,
    target: baseUrl,
    details: {
      ok: true,
      kind: result.kind,
      since: result.updatedSince ?? null,
      imported: result.imported,
      deleted: result.tombstoned,
      skipped: result.skipped,
      unreadable: result.problems.length,
    },
  });
  return result;
}

/** The audit log's action for one run of an import. */
export const IMPORT_RUN_ACTION = 'import.run';

async function importOnce(
  db: Kysely<Database>,
  sink: FederationSink,
  options: RegistryImport,
  baseUrl: string,
): Promise<RegistryImportResult> {
  const stored = await db
    .selectFrom('federation_sources')
    .selectAll()
    .where('base_url', '=', baseUrl)
    .executeTakeFirst();
  // Asked once: a source imported before is what it was.
  const known = FEDERATION_KINDS.find((name) => name === stored?.kind);
  const kind = options.kind ?? known ?? (await detectRegistryKind(baseUrl, options.fetcher, options.signal));
  // A watermark of another kind of source (the URL now serves something else) does not apply.
  const updatedSince =
    options.full === true || stored === undefined || stored.kind !== kind
      ? undefined
      : (stored.updated_since ?? undefined);
  const common = {
    baseUrl,
    fetcher: options.fetcher,
    sink,
    ...(updatedSince === undefined ? {} : { updatedSince }),
    ...(options.onPage === undefined ? {} : { onPage: options.onPage }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.now === undefined ? {} : { now: options.now }),
  };
  const summary =
    kind === 'mcp-registry' ? await importMcpRegistry(common) : await importAgentryRegistry(common);
  const row = {
    kind,
    updated_since: summary.latestUpdatedAt ?? updatedSince ?? null,
    last_imported_at: new Date((options.now ?? Date.now)()).toISOString(),
  };
  await db
    .insertInto('federation_sources')
    .values({ base_url: baseUrl, ...row })
    .onConflict((conflict) => conflict.column('base_url').doUpdateSet(row))
    .execute();
  return { ...summary, kind, ...(updatedSince === undefined ? {} : { updatedSince }) };
}

/**
 * Which kind of registry answers at `baseUrl`: one request to the MCP Registry's list, then one to Agentry's
 * (through @agentry/client's registry client).
 */
export async function detectRegistryKind(
  baseUrl: string,
  fetcher: SecureFetcher,
  signal?: AbortSignal,
): Promise<FederationKind> {
  const answers: string[] = [];
  /** Requests that got no answer at all (refused by the fetch policy, or unreachable), with why. */
  const unanswered: FetchError[] = [];
  const ask = async (read: () => Promise<unknown>): Promise<unknown> => {
    try {
      return await read();
    } catch (error) {
      if (signal?.aborted) throw error;
      // A JSON answer that is no agent list is an answer: this is not an Agentry registry, and nothing failed.
      if (error instanceof BadRegistryResponseError && error.reason === 'shape') return error.body;
      const failure = federationFailure(error);
      answers.push(failure instanceof Error ? failure.message : String(failure));
      if (failure instanceof FederationError && failure.cause instanceof FetchError)
        unanswered.push(failure.cause);
      return undefined;
    }
  };
  const servers = await ask(
    async () => (await fetchJsonPage(fetcher, pageUrl(baseUrl, '/v0.1/servers', { limit: 1 }), signal)).json,
  );
  if (isObject(servers) && Array.isArray(servers['servers'])) return 'mcp-registry';
  const registry = createRegistryClient({ baseUrl, fetch: fetcher });
  const agents = await ask(
    async () => (await registry.listAgents({ limit: 1 }, signal === undefined ? {} : { signal })).body,
  );
  if (Array.isArray(agents) || (isObject(agents) && Array.isArray(agents['agents']))) return 'agentry';
  if (unanswered.length === answers.length && unanswered[0] !== undefined) {
    // Nothing answered: what it is cannot be the trouble, and naming its kind would not help.
    const cause = unanswered[0];
    const fix =
      cause instanceof FetchRefusedError && cause.allowedBy !== undefined
        ? ` ${cause.allowedBy} allows it, for local development.`
        : '';
    throw new FederationError(`Cannot read ${baseUrl}: ${cause.message}${fix}`, baseUrl, { cause });
  }
  throw new FederationError(
    `${baseUrl} is neither an MCP Registry (GET /v0.1/servers) nor an Agentry registry (GET /agents)${answers.length > 0 ? `: ${answers.join('; ')}` : ''}. Name its kind to import it anyway.`,
    baseUrl,
  );
}
