/**
 * `/.well-known/ai-catalog.json`: this registry's agents as an AI Catalog (federation/ai-catalog.ts), so that
 * other registries and crawlers can index it. Only what an anonymous caller may see is listed, whoever asks: the
 * catalog is one public document, cached by anyone. Agents the safety scan flagged are left out too, as intent
 * resolution leaves them out: the catalog is an advertisement, not a lookup.
 */
import type { Hono } from 'hono';
import { ANONYMOUS } from '../../access/callers.js';
import { AI_CATALOG_CONTENT_TYPE, aiCatalog } from '../../federation/ai-catalog.js';
import type { RegistryRecord } from '../../records/types.js';
import type { ApiEnv, RegistryServices } from '../context.js';
import { cacheableResponse } from '../respond.js';

const PAGE = 500;

export function catalogRoutes(app: Hono<ApiEnv>, services: RegistryServices): void {
  app.get('/.well-known/ai-catalog.json', async (c) => {
    const records: RegistryRecord[] = [];
    let afterId: string | undefined;
    for (;;) {
      const page = await services.store.agents.list({
        caller: ANONYMOUS,
        filters: {},
        limit: PAGE,
        ...(afterId === undefined ? {} : { afterId }),
      });
      for (const { record } of page.items) if (record.flags.length === 0) records.push(record);
      if (!page.more) break;
      afterId = page.items[page.items.length - 1]?.record.id;
    }
    const body = JSON.stringify(aiCatalog(records, { baseUrl: c.get('baseUrl') }));
    // The same for every caller: no `Vary: Authorization`, and caches may keep it a few minutes.
    const response = cacheableResponse(c.req.raw, body, AI_CATALOG_CONTENT_TYPE, {
      'cache-control': 'public, max-age=300',
    });
    response.headers.delete('vary');
    return response;
  });
}
