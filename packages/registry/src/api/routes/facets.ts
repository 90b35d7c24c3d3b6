/**
 * GET /facets: how many of the agents the caller may see, within the filters of GET /agents (and, with `q`, among
 * the best-ranked matches of the text query), have each tag, capability, language and status, arrived each way
 * and were described in each format — the counts beside a search's filters. The values are counted from an index
 * in memory that follows the database's writes (store/facet-index.ts). Answers without `q` are kept until the next
 * write, like listing pages.
 */
import { agentFacets } from '../../store/facets.js';
import { AnswerCache, callerKey } from '../answer-cache.js';
import type { RegistryServices, RouteHandlers } from '../context.js';
import { invalidInput } from '../problems.js';
import { readListQuery } from '../queries.js';
import { searchOf } from '../request-url.js';
import { jsonAnswer, textResponse } from '../respond.js';
import { queryParameters } from '../route-table.js';

const PARAMETERS = queryParameters('facetCounts');
const CACHED_ANSWERS = 200;
/** With a text query, the counts are over this many of its best-ranked agents at most. */
const RANKED_AGENTS = 500;
/** How long after the registry opens its facet index is read, when no count asked for it sooner. */
const WARM_AFTER_MS = 5000;

export function facetHandlers(services: RegistryServices): RouteHandlers<'facetCounts'> {
  const { store } = services;
  const answers = new AnswerCache(services.settings.answerCache === false ? 0 : CACHED_ANSWERS, () =>
    store.changeCount(),
  );
  // Each agent's facet values in memory (store/facet-index.ts): read by the first count, or in the background a
  // few seconds after the registry opens, so that a server's first count does not wait for them while a one-shot
  // command such as `agentry import` that is done by then never reads them.
  const index = store.facets;
  setTimeout(() => index.current().catch(() => undefined), WARM_AFTER_MS).unref();
  return {
    facetCounts: async (c) => {
      const caller = c.get('caller');
      const key = `${callerKey(caller)}\u0000${searchOf(c.req.url)}`;
      const cached = answers.get(key);
      if (cached !== undefined) return textResponse(cached);
      const madeAt = answers.begin();
      const url = new URL(c.req.url);
      const unknown = [...url.searchParams.keys()].find((name) => !PARAMETERS.includes(name));
      if (unknown !== undefined)
        return invalidInput(
          `Unknown query parameter "${unknown}"; GET /facets takes ${PARAMETERS.join(', ')}.`,
        );
      const read = readListQuery(url);
      if (!read.ok) return read.response;
      const { filters, q, mode, limit } = read.value;
      // With a text query, the agents counted are those its ranking holds (the best RANKED_AGENTS of them).
      let among: string[] | undefined;
      if (q !== undefined) {
        const scope = await store.agents.searchScope(caller, filters);
        const hits =
          scope.candidates?.size === 0
            ? []
            : await services.search.search(q, {
                top: RANKED_AGENTS,
                ...scope,
                ...(mode === undefined ? {} : { mode }),
                hitDocuments: false, // only counted: no hit's words are read
              });
        among = hits.map((hit) => hit.id);
      }
      const facets = await agentFacets(store.db, index, caller, filters, limit, among);
      const { total, ...byFacet } = facets;
      const answer = jsonAnswer(
        JSON.stringify({ total, ...(among === undefined ? {} : { ranked: RANKED_AGENTS }), facets: byFacet }),
        200,
        {},
      );
      // A ranking is not kept (it may have been made while the query could not be embedded); counts are.
      if (among === undefined) answers.set(key, answer, madeAt);
      return textResponse(answer);
    },
  };
}
