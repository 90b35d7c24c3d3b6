/**
 * GET /imports (admin): the registries this one imports, for the operator console — each with where its last
 * completed import got to, the entries it brought, and how its last run went (what it imported, or why it failed).
 */
import { listImportSources } from '../../federation/import-status.js';
import type { RegistryServices, RouteHandlers } from '../context.js';
import { invalidInput } from '../problems.js';
import { jsonResponse } from '../respond.js';

export function importHandlers(services: RegistryServices): RouteHandlers<'listImports'> {
  return {
    listImports: async (c) => {
      const unknown = [...new URL(c.req.url).searchParams.keys()][0];
      if (unknown !== undefined)
        return invalidInput(`Unknown query parameter "${unknown}"; GET /imports takes none.`);
      const sources = await listImportSources(services.store.db);
      return jsonResponse({
        imports: sources.map((source) => ({
          base_url: source.baseUrl,
          ...(source.kind === undefined ? {} : { kind: source.kind }),
          ...(source.updatedSince === undefined ? {} : { updated_since: source.updatedSince }),
          ...(source.lastImportedAt === undefined ? {} : { last_imported_at: source.lastImportedAt }),
          agents: source.agents,
          ...(source.lastRun === undefined ? {} : { last_run: source.lastRun }),
        })),
      });
    },
  };
}
