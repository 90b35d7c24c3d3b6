/**
 * The crawl queue (docs/crawler.md): origins the registry crawls, their status, and what each crawl read.
 * Publishers and the admin add origins and read the queue; only the admin removes an origin, since that tombstones
 * every agent crawled from it. Every change is in the audit log (`host.add`, `host.remove`).
 */
import type { JsonValue } from '@agentry/core';
import { actorOf } from '../../access/callers.js';
import { normalizeOrigin } from '../../crawl/origins.js';
import type { HostDetail, HostStatus } from '../../crawl/scheduler.js';
import { crawledEntryId } from '../../ingest/crawl-sink.js';
import { writeAudit } from '../../store/audit.js';
import type { RegistryStore } from '../../store/store.js';
import { readJsonBody } from '../body.js';
import type { RegistryServices, RouteHandlers } from '../context.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import { invalidInput, notFound } from '../problems.js';
import { jsonResponse } from '../respond.js';
import { unknownQueryParameter } from '../route-table.js';

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;

/** What `POST /hosts` says when this registry does not crawl in the background. */
const NOT_CRAWLING =
  'This registry does not crawl in the background, so the origin waits in the queue until a crawler runs on its database: restart it with agentry serve --crawl, or run agentry crawl <origin> --database <its database: a postgres:// URL, or a SQLite file>.';

export function hostHandlers(
  services: RegistryServices,
): RouteHandlers<'addHost' | 'listHosts' | 'getHost' | 'removeHost'> {
  const { crawler, settings, store } = services;

  return {
    addHost: async (c) => {
      const caller = c.get('caller');
      const body = await readJsonBody(c.req.raw, settings.maxBodyBytes);
      if (!body.ok) return body.response;
      const request = readHostRequest(body.value);
      if (!request.ok) return request.response;
      const origin = { value: request.value.origin };
      if (origin.value.startsWith('http:') && crawler.fetchPolicy.allowHttp !== true) {
        return invalidInput(
          `${origin.value} is plain HTTP; this registry crawls HTTPS origins only (its operator allows HTTP with agentry serve --allow-http).`,
          '/origin',
        );
      }
      // `now` makes a queued origin due at once (the operator's "crawl now"); a new one is due at once anyway.
      const added = await crawler.add([origin.value], {
        addedBy: actorOf(caller),
        ...(request.value.now ? { due: 'now' as const } : {}),
      });
      if (added.length > 0) {
        await writeAudit(store.db, {
          at: new Date().toISOString(),
          actor: actorOf(caller),
          action: 'host.add',
          target: origin.value,
          details: {},
        });
      }
      const status = (await crawler.host(origin.value))!;
      // Queued either way (a crawler on the same database takes it); the answer says whether this registry crawls.
      const crawling = settings.crawling === true;
      const answer = { ...hostView(status), crawling, ...(crawling ? {} : { warning: NOT_CRAWLING }) };
      return jsonResponse(answer, added.length > 0 ? 201 : 200, {
        location: `${c.get('baseUrl')}/hosts/${encodeURIComponent(origin.value)}`,
      });
    },

    listHosts: async (c) => {
      const url = new URL(c.req.url);
      const unknown = unknownQueryParameter(url, 'listHosts');
      if (unknown !== undefined) return unknown;
      const limitText = url.searchParams.get('limit');
      const limit = limitText === null ? DEFAULT_LIMIT : Number(limitText);
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
        return invalidInput(`"limit" must be an integer from 1 to ${MAX_LIMIT}.`);
      const cursorText = url.searchParams.get('cursor');
      let after: string | undefined;
      if (cursorText !== null) {
        const cursor = decodeCursor(cursorText);
        if (cursor?.kind !== 'id') return invalidInput('"cursor" is not a cursor of this listing.');
        after = cursor.after;
      }
      const page = await crawler.hosts({ limit: limit + 1, ...(after === undefined ? {} : { after }) });
      const hosts = page.slice(0, limit);
      const headers: Record<string, string> = {};
      const last = hosts[hosts.length - 1];
      if (page.length > limit && last !== undefined) {
        const cursor = encodeCursor({ kind: 'id', after: last.origin });
        const next = new URL(url);
        next.searchParams.set('cursor', cursor);
        headers['link'] = `<${next.pathname}${next.search}>; rel="next"`;
        headers['agentry-next-cursor'] = cursor;
      }
      return jsonResponse(hosts.map(hostView), 200, headers);
    },

    getHost: async (c) => {
      const origin = originParameter(c.req.param('origin'));
      if (!origin.ok) return origin.response;
      const detail = await crawler.host(origin.value);
      if (detail === undefined) return notFound(`${origin.value} is not in the crawl queue.`);
      const registryIds = await Promise.all(
        detail.agentStates.map((agent) => registryIdOf(store, detail.origin, agent.agentId)),
      );
      return jsonResponse(hostDetailView(detail, registryIds));
    },

    removeHost: async (c) => {
      const caller = c.get('caller');
      const origin = originParameter(c.req.param('origin'));
      if (!origin.ok) return origin.response;
      const removed = await crawler.remove(origin.value);
      if (!removed) return notFound(`${origin.value} is not in the crawl queue.`);
      await writeAudit(store.db, {
        at: new Date().toISOString(),
        actor: actorOf(caller),
        action: 'host.remove',
        target: origin.value,
        details: {},
      });
      return new Response(null, { status: 204 });
    },
  };
}

type Read<T> = { ok: true; value: T } | { ok: false; response: Response };

function readHostRequest(body: JsonValue): Read<{ origin: string; now: boolean }> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return {
      ok: false,
      response: invalidInput('The body must be {"origin": "https://agents.example.com"}.', ''),
    };
  const extra = Object.keys(body).find((key) => key !== 'origin' && key !== 'now');
  if (extra !== undefined)
    return {
      ok: false,
      response: invalidInput(`Unknown member "${extra}"; the body has "origin" and "now".`, `/${extra}`),
    };
  const { origin, now } = body;
  if (now !== undefined && typeof now !== 'boolean')
    return { ok: false, response: invalidInput('"now" must be true or false.', '/now') };
  if (typeof origin !== 'string')
    return {
      ok: false,
      response: invalidInput('"origin" must be a string such as "https://agents.example.com".', '/origin'),
    };
  try {
    return { ok: true, value: { origin: normalizeOrigin(origin), now: now === true } };
  } catch (error) {
    return { ok: false, response: invalidInput((error as Error).message, '/origin') };
  }
}

/** The origin in the path: percent-encoded (`https%3A%2F%2Fexample.com`), or a bare host name meaning https. */
function originParameter(text: string): Read<string> {
  try {
    return { ok: true, value: normalizeOrigin(text) };
  } catch (error) {
    return { ok: false, response: invalidInput((error as Error).message) };
  }
}

function hostView(host: HostStatus): Record<string, unknown> {
  return {
    origin: host.origin,
    state: host.state,
    added_by: host.addedBy,
    added_at: host.addedAt,
    next_due_at: host.nextDueAt,
    last_crawled_at: host.lastCrawledAt ?? null,
    last_outcome: host.lastOutcome ?? null,
    failures: host.failures,
    last_error: host.lastError ?? null,
    crawls: host.crawls,
    agents: host.agents,
    documents: host.documents,
  };
}

/** The registry id of the entry a crawled agent is part of (docs/registry.md, "Identity"); null once it is gone. */
async function registryIdOf(store: RegistryStore, origin: string, agentId: string): Promise<string | null> {
  return crawledEntryId(store, origin, agentId);
}

function hostDetailView(
  host: HostDetail,
  registryIds: ReadonlyArray<string | null>,
): Record<string, unknown> {
  return {
    ...hostView(host),
    document_records: host.documentRecords.map((record) => ({
      url: record.url,
      status: record.status,
      kind: record.kind ?? null,
      http_status: record.httpStatus ?? null,
      reason: record.reason ?? null,
      source: record.origin,
      fetched_at: record.fetchedAt,
      expires_at: record.expiresAt,
      etag: record.etag ?? null,
      last_modified: record.lastModified ?? null,
      lifetime_seconds: record.lifetimeSeconds ?? null,
      linked_from: record.linkedFrom ?? null,
      agent_ids: record.agentIds ?? [],
      issues: record.issues ?? [],
    })),
    agent_states: host.agentStates.map((agent, index) => ({
      agent_id: agent.agentId,
      registry_id: registryIds[index] ?? null,
      state: agent.state,
      inactive_reason: agent.inactiveReason ?? null,
      liveness:
        agent.liveness === undefined
          ? null
          : {
              status: agent.liveness.status,
              checked_at: agent.liveness.checkedAt ?? null,
              last_seen_at: agent.liveness.lastSeenAt ?? null,
              latency_ms: agent.liveness.latencyMs ?? null,
            },
    })),
  };
}
