/**
 * `/.well-known/ai-catalog.json`: this registry's agents as an AI Catalog (federation/ai-catalog.ts), so that
 * other registries and crawlers can index it. Only what an anonymous caller may see is listed, whoever asks: the
 * catalog is one public document, cached by anyone. Agents the safety scan flagged are left out too, as intent
 * resolution leaves them out: the catalog is an advertisement, not a lookup.
 *
 * The catalog names every public agent (5 MB and half a second of work at 10,000 agents), and anyone may ask for
 * it, so it is made once per state of the database and kept until the next write; requests that arrive while it
 * is being made wait for that one.
 */
import { ANONYMOUS } from '../../access/callers.js';
import { AI_CATALOG_CONTENT_TYPE, aiCatalog } from '../../federation/ai-catalog.js';
import type { RegistryRecord } from '../../records/types.js';
import { AnswerCache, type CachedAnswer } from '../answer-cache.js';
import type { RegistryServices, RouteHandlers } from '../context.js';
import { cacheableAnswer, conditionalResponse } from '../respond.js';

const PAGE = 500;
/** Catalogs kept (one per base URL the registry is reached by). */
const CACHED_CATALOGS = 2;

export function catalogHandlers(services: RegistryServices): RouteHandlers<'getAiCatalog'> {
  const { store } = services;
  const catalogs = new AnswerCache(services.settings.answerCache === false ? 0 : CACHED_CATALOGS, () =>
    store.changeCount(),
  );
  const making = new Map<string, Promise<CachedAnswer>>();

  async function makeCatalog(baseUrl: string): Promise<CachedAnswer> {
    const madeAt = catalogs.begin();
    const records: RegistryRecord[] = [];
    let afterId: string | undefined;
    for (;;) {
      const page = await store.agents.list({
        caller: ANONYMOUS,
        filters: {},
        limit: PAGE,
        ...(afterId === undefined ? {} : { afterId }),
      });
      for (const { record } of page.items) if (record.flags.length === 0) records.push(record);
      if (!page.more) break;
      afterId = page.items[page.items.length - 1]?.record.id;
    }
    const body = JSON.stringify(aiCatalog(records, { baseUrl }));
    // The same for every caller: no `Vary: Authorization`, and caches may keep it a few minutes.
    const { vary: _vary, ...headers } = cacheableAnswer(body, AI_CATALOG_CONTENT_TYPE, {
      'cache-control': 'public, max-age=300',
    }).headers;
    const answer: CachedAnswer = { status: 200, body, headers };
    catalogs.set(baseUrl, answer, madeAt);
    return answer;
  }

  return {
    getAiCatalog: async (c) => {
      const baseUrl = c.get('baseUrl');
      let answer = catalogs.get(baseUrl);
      if (answer === undefined) {
        // Joined only while the database is as it was when that catalog was begun: a request made after a write
        // never gets a catalog from before it.
        const key = `${baseUrl}\u0000${catalogs.begin()}`;
        let made = making.get(key);
        if (made === undefined) {
          made = makeCatalog(baseUrl).finally(() => making.delete(key));
          making.set(key, made);
        }
        answer = await made;
      }
      return conditionalResponse(c.req.raw, answer);
    },
  };
}
