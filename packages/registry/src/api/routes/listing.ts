/**
 * Finding agents: GET /agents (filters, paging, `q` search, `updated_since` for mirrors) and POST /agents/search
 * (AIDIP §4.3). Both answer JSON arrays of summary objects; the next page's cursor is in the `Link` header
 * (`rel="next"`) and in `Agentry-Next-Cursor`.
 */
import type { JsonObject } from '@agentry/core';
import { searchDocumentOf } from '../../records/search-document.js';
import type { Caller, RegistryRecord } from '../../records/types.js';
import { metadataView, summaryView, type ViewContext } from '../../records/views.js';
import type { SearchHit, SearchMode } from '../../search/types.js';
import type { AgentFilters } from '../../store/filters.js';
import { AnswerCache, type CachedAnswer, callerKey } from '../answer-cache.js';
import { readJsonBody } from '../body.js';
import type { RegistryServices, RouteHandlers } from '../context.js';
import { encodeCursor } from '../cursor.js';
import { type ListQuery, readListQuery, readSearchRequest } from '../queries.js';
import { searchOf } from '../request-url.js';
import { jsonAnswer, jsonResponse, textResponse } from '../respond.js';

/** Listing pages kept until the next write (a page is about 10 KB). */
const CACHED_PAGES = 1000;

export function listingHandlers(services: RegistryServices): RouteHandlers<'listAgents' | 'searchAgents'> {
  const { store } = services;
  const pages = new AnswerCache(services.settings.answerCache === false ? 0 : CACHED_PAGES, () =>
    store.changeCount(),
  );

  return {
    listAgents: async (c) => {
      const caller = c.get('caller');
      const context: ViewContext = { caller, baseUrl: c.get('baseUrl') };
      // Only answers to valid queries are kept, so a kept one needs no checking again.
      const key = `${callerKey(caller)}\u0000${context.baseUrl}\u0000${searchOf(c.req.url)}`;
      const cached = pages.get(key);
      if (cached !== undefined) return textResponse(cached);
      const madeAt = pages.begin();
      const url = new URL(c.req.url);
      const read = readListQuery(url);
      if (!read.ok) return read.response;
      const query = read.value;
      // A ranking is not kept: it may have been made while the query could not be embedded.
      if (query.q !== undefined) return searchPage(services, query, query.q, url, context);
      const page = await listPage(services, query, url, context);
      pages.set(key, page, madeAt);
      return textResponse(page);
    },

    searchAgents: async (c) => {
      const body = await readJsonBody(c.req.raw, services.settings.maxBodyBytes);
      if (!body.ok) return body.response;
      const read = readSearchRequest(body.value);
      if (!read.ok) return read.response;
      const request = read.value;
      const caller = c.get('caller');
      const context: ViewContext = { caller, baseUrl: c.get('baseUrl') };
      if (request.query === undefined) {
        // Filters only (§4.3.1): the first `top` matching agents, in id order.
        const page = await store.agents.list({ caller, filters: request.filters, limit: request.top });
        return jsonResponse(page.items.map(({ record, metadata }) => summaryView(record, metadata, context)));
      }
      const ranked = await rankedSearch(
        services,
        caller,
        request.query,
        request.filters,
        request.mode,
        0,
        request.top,
      );
      return jsonResponse(
        ranked.items.map(({ record, metadata, hit }) => ({
          ...summaryView(record, metadata, context),
          score: hit.score,
          why: hit.why,
        })),
      );
    },
  };
}

/** One page of GET /agents without a query: filtered agents by id, or changes since a time. */
async function listPage(
  services: RegistryServices,
  query: ListQuery,
  url: URL,
  context: ViewContext,
): Promise<CachedAnswer> {
  const { store } = services;
  const { caller } = context;
  if (query.updatedSince !== undefined) {
    const page = await store.agents.changes({
      caller,
      filters: query.filters,
      since: query.updatedSince,
      limit: query.limit,
      ...(query.cursor?.kind === 'changes' ? { after: { at: query.cursor.at, id: query.cursor.id } } : {}),
    });
    const body = page.items.map(
      (item): JsonObject =>
        item.kind === 'deleted'
          ? { id: item.id, deleted: true, deleted_at: item.at }
          : { ...metadataView(item.record, item.metadata ?? '{}', context), updated_at: item.at },
    );
    const last = page.items[page.items.length - 1];
    const next =
      page.more && last !== undefined
        ? encodeCursor({
            kind: 'changes',
            at: last.at,
            id: last.kind === 'deleted' ? last.id : last.record.id,
          })
        : undefined;
    return pageAnswer(body, url, next);
  }

  const page = await store.agents.list({
    caller,
    filters: query.filters,
    limit: query.limit,
    ...(query.cursor?.kind === 'id' ? { afterId: query.cursor.after } : {}),
  });
  const body = page.items.map(({ record, metadata }) => summaryView(record, metadata, context));
  const last = page.items[page.items.length - 1];
  const next =
    page.more && last !== undefined ? encodeCursor({ kind: 'id', after: last.record.id }) : undefined;
  return pageAnswer(body, url, next);
}

/** One page of GET /agents?q=: the ranking. */
async function searchPage(
  services: RegistryServices,
  query: ListQuery,
  q: string,
  url: URL,
  context: ViewContext,
): Promise<Response> {
  const { caller } = context;
  const offset = query.cursor?.kind === 'search' ? query.cursor.offset : 0;
  const ranked = await rankedSearch(services, caller, q, query.filters, query.mode, offset, query.limit);
  const body = ranked.items.map(({ record, metadata, hit }) => ({
    ...summaryView(record, metadata, context),
    score: hit.score,
    why: hit.why,
  }));
  const next = ranked.more ? encodeCursor({ kind: 'search', offset: offset + query.limit }) : undefined;
  return pageResponse(body, url, next);
}

/**
 * The agents `caller` may see that match `filters`, ranked for `query`: the filters and entitlements pick the
 * candidates first, the index ranks only those, and the store is asked again for each hit shown (an index entry
 * left behind by a crash never shows). That one read also gives the hits' `why` its words (`hitDocuments`).
 */
export async function rankedSearch(
  services: RegistryServices,
  caller: Caller,
  query: string,
  filters: AgentFilters,
  mode: SearchMode | undefined,
  offset: number,
  count: number,
): Promise<{ items: Array<{ record: RegistryRecord; metadata: string; hit: SearchHit }>; more: boolean }> {
  const scope = await services.store.agents.searchScope(caller, filters);
  if (scope.candidates?.size === 0) return { items: [], more: false };
  let shown: Array<{ record: RegistryRecord; metadata: string }> | undefined;
  const hits = await services.search.search(query, {
    top: offset + count + 1,
    ...scope,
    ...(mode === undefined ? {} : { mode }),
    hitDocuments: async (ids) => {
      shown = await services.store.agents.getMany(ids.slice(offset, offset + count), caller);
      const records = new Map(shown.map(({ record }) => [record.id, record]));
      return (id) => {
        const record = records.get(id);
        return record === undefined ? undefined : searchDocumentOf(record);
      };
    },
  });
  const window = hits.slice(offset, offset + count);
  const byId = new Map(window.map((hit) => [hit.id, hit]));
  const found =
    shown ??
    (await services.store.agents.getMany(
      window.map((hit) => hit.id),
      caller,
    ));
  return {
    items: found.map(({ record, metadata }) => ({ record, metadata, hit: byId.get(record.id)! })),
    more: hits.length > offset + count,
  };
}

function pageResponse(body: unknown[], url: URL, nextCursor: string | undefined): Response {
  return textResponse(pageAnswer(body, url, nextCursor));
}

function pageAnswer(body: unknown[], url: URL, nextCursor: string | undefined): CachedAnswer {
  const headers: Record<string, string> = {};
  if (nextCursor !== undefined) {
    const next = new URL(url);
    next.searchParams.set('cursor', nextCursor);
    headers['link'] = `<${next.pathname}${next.search}>; rel="next"`;
    headers['agentry-next-cursor'] = nextCursor;
  }
  return jsonAnswer(JSON.stringify(body), 200, headers);
}
