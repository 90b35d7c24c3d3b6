/**
 * One agent: register (POST /agents), read (GET, in any format), replace (PUT), delete, its history and feedback.
 * A restricted agent the caller may not see answers 404 everywhere, as if it did not exist.
 */
import { FORMAT_NAMES, type FormatName, type JsonObject, type JsonValue } from '@agentry/core';
import { actorOf } from '../../access/callers.js';
import { canSee, writeAccess } from '../../access/entitlements.js';
import { preferredId } from '../../records/ids.js';
import { type Registration, type RegistrationRefusal, readRegistration } from '../../records/registration.js';
import type { AgentSource } from '../../records/sources.js';
import type { RegistryRecord } from '../../records/types.js';
import { formatView, mayManage, metadataView, storedMetadata } from '../../records/views.js';
import { scanAgentText } from '../../safety/index.js';
import type { ConflictOutcome, RecordDraft } from '../../store/agents.js';
import { readVisibleAgent } from '../../store/visible-agent.js';
import { AnswerCache, type CachedAnswer, callerKey } from '../answer-cache.js';
import { readJsonBody } from '../body.js';
import type { RegistryServices, RouteHandlers } from '../context.js';
import { forbidden } from '../guards.js';
import { agentListProblem } from '../list-limits.js';
import { failuresOf, invalidInput, notFound, problem } from '../problems.js';
import { searchOf } from '../request-url.js';
import { cacheableAnswer, conditionalResponse, jsonResponse } from '../respond.js';
import { queryParameters } from '../route-table.js';

/** Formats GET /agents/{id}?format= writes (agents-json is a map of several agents' locations, not one agent). */
const READABLE_FORMATS: readonly FormatName[] = FORMAT_NAMES.filter((format) => format !== 'agents-json');

/** Single-agent answers kept until the next write (a few KB each). */
const CACHED_AGENTS = 5000;

export function agentHandlers(
  services: RegistryServices,
): RouteHandlers<
  'registerAgent' | 'getAgent' | 'updateAgent' | 'deleteAgent' | 'getAgentHistory' | 'rateAgent'
> {
  const { store, sync, settings } = services;
  const answers = new AnswerCache(settings.answerCache === false ? 0 : CACHED_AGENTS, () =>
    store.changeCount(),
  );

  return {
    registerAgent: async (c) => {
      const caller = c.get('caller');
      const params = registrationParams(new URL(c.req.url), true);
      if (!params.ok) return params.response;
      const body = await readJsonBody(c.req.raw, settings.maxBodyBytes);
      if (!body.ok) return body.response;
      const read = readRegistration({
        body: body.value,
        ...params.value,
        sourceUrl: `${c.get('baseUrl')}/agents`,
      });
      if (!read.ok) return registrationProblem(read.refusal);
      const tooLong = agentListProblem(read.value.agents);
      if (tooLong !== undefined) return tooLong;

      const owner = caller.publisher ?? actorOf(caller);
      const drafts = read.value.agents.map((agent) => ({
        draft: draftOf(agent, read.value, owner),
        preferredId: preferredId(agent),
      }));
      const quota = caller.kind === 'admin' ? undefined : settings.quotaPerPublisher;
      const outcome = await store.agents.register(drafts, {
        actor: actorOf(caller),
        ...(quota === undefined ? {} : { quota }),
      });
      if (!Array.isArray(outcome) && outcome.kind === 'conflict') {
        return conflictProblem(outcome, owner, await store.agents.getVisible(outcome.id, caller));
      }
      if (!Array.isArray(outcome)) {
        return problem({
          status: 403,
          code: 'QuotaExceeded',
          title: 'Quota exceeded',
          detail: `Publisher "${owner}" may hold at most ${outcome.limit} agents; delete some or ask the registry's operator for more.`,
          extensions: { limit: outcome.limit },
        });
      }
      await sync.upsert(outcome.filter((item) => item.kind !== 'unchanged').map((item) => item.record));

      const baseUrl = c.get('baseUrl');
      const sources = new Map<string, AgentSource[]>();
      for (const item of outcome) sources.set(item.record.id, await store.agents.sources(item.record.id));
      const view = (record: RegistryRecord): JsonObject =>
        metadataView(record, storedMetadata(record.agent), { caller, baseUrl }, sources.get(record.id));
      const anyCreated = outcome.some((item) => item.kind === 'created');
      if (params.value.all === true) {
        const results = outcome.map((item) => ({
          id: item.record.id,
          result: item.kind,
          location: locationOf(baseUrl, item.record.id),
          metadata: view(item.record),
        }));
        return jsonResponse({ results }, anyCreated ? 201 : 200);
      }
      const [only] = outcome;
      if (only === undefined) throw new Error('A registration wrote nothing.');
      const headers: Record<string, string> = { 'content-location': locationOf(baseUrl, only.record.id) };
      if (only.kind === 'created') headers['location'] = locationOf(baseUrl, only.record.id);
      return jsonResponse(view(only.record), only.kind === 'created' ? 201 : 200, headers);
    },

    getAgent: async (c) => {
      const query = searchOf(c.req.url);
      const unknown =
        query === '' ? undefined : [...new URLSearchParams(query).keys()].find((name) => name !== 'format');
      if (unknown !== undefined)
        return invalidInput(`Unknown query parameter "${unknown}"; GET /agents/{id} takes "format".`);
      const format = query === '' ? undefined : c.req.query('format');
      if (format !== undefined && !(READABLE_FORMATS as readonly string[]).includes(format)) {
        return invalidInput(`"format" must be one of ${READABLE_FORMATS.join(', ')}; got "${format}".`);
      }
      const caller = c.get('caller');
      const id = c.req.param('id');
      const key = `${callerKey(caller)}\u0000${c.get('baseUrl')}\u0000${format ?? 'aidip'}\u0000${id}`;
      const cached = answers.get(key);
      if (cached !== undefined) return conditionalResponse(c.req.raw, cached);
      const madeAt = answers.begin();
      // The row and its sources in one statement: one round trip to the database per read.
      const found = await readVisibleAgent(store.db, id, caller);
      if (found === undefined) return agentNotFound(id);
      let answer: CachedAnswer;
      if (format === undefined || format === 'aidip') {
        const body = JSON.stringify(
          metadataView(found.record, found.metadata, { caller, baseUrl: c.get('baseUrl') }, found.sources),
        );
        answer = cacheableAnswer(body, 'application/json');
      } else {
        const view = formatView(found.record, format as FormatName);
        const headers: Record<string, string> = {};
        // Losses are for people: a count here, the detail in the CLI's convert.
        if (view.losses.length > 0) headers['agentry-losses'] = String(view.losses.length);
        answer = cacheableAnswer(JSON.stringify(view.document), view.mediaType, headers);
      }
      answers.set(key, answer, madeAt);
      return conditionalResponse(c.req.raw, answer);
    },

    updateAgent: async (c) => {
      const caller = c.get('caller');
      const params = registrationParams(new URL(c.req.url), false);
      if (!params.ok) return params.response;
      const body = await readJsonBody(c.req.raw, settings.maxBodyBytes);
      if (!body.ok) return body.response;
      const id = c.req.param('id');
      const read = readRegistration({
        body: body.value,
        ...params.value,
        sourceUrl: `${c.get('baseUrl')}/agents`,
      });
      if (!read.ok) return registrationProblem(read.refusal);
      const tooLong = agentListProblem(read.value.agents);
      if (tooLong !== undefined) return tooLong;
      const [agent] = read.value.agents;
      if (agent === undefined) throw new Error('A registration read no agent.');
      const { owner: _owner, ...draft } = draftOf(agent, read.value, '');
      const outcome = await store.agents.update(
        id,
        draft,
        (record) => writeAccess(record, caller),
        actorOf(caller),
      );
      if (outcome.kind === 'not-found') return agentNotFound(id);
      if (outcome.kind === 'forbidden')
        return forbidden(
          `Agent "${id}" belongs to another publisher; only its owner or the admin may change it.`,
        );
      if (outcome.kind === 'conflict') {
        const publisher = caller.publisher ?? actorOf(caller);
        return conflictProblem(outcome, publisher, await store.agents.getVisible(outcome.id, caller));
      }
      if (outcome.kind === 'updated') await sync.upsert([outcome.record]);
      const metadata = metadataView(
        outcome.record,
        storedMetadata(outcome.record.agent),
        { caller, baseUrl: c.get('baseUrl') },
        await store.agents.sources(id),
      );
      return jsonResponse(metadata, 200);
    },

    deleteAgent: async (c) => {
      const caller = c.get('caller');
      const id = c.req.param('id');
      const outcome = await store.agents.delete(id, (record) => writeAccess(record, caller), actorOf(caller));
      if (outcome.kind === 'not-found') return agentNotFound(id);
      if (outcome.kind === 'forbidden')
        return forbidden(
          `Agent "${id}" belongs to another publisher; only its owner or the admin may delete it.`,
        );
      await sync.remove([id]);
      return new Response(null, { status: 204 });
    },

    getAgentHistory: async (c) => {
      const caller = c.get('caller');
      const id = c.req.param('id');
      const record = await store.agents.get(id);
      if (record === undefined || !canSee(record, caller)) return agentNotFound(id);
      if (!mayManage(record, caller))
        return forbidden(`Only the owner of "${id}" or the admin may read its history.`);
      const entries = await store.agents.history(id);
      return jsonResponse({
        id,
        entries: entries.map((entry) => ({
          revision: entry.revision,
          action: entry.action,
          actor: entry.actor,
          at: entry.at,
          ...(entry.record === undefined ? {} : { agent: entry.record.agent as unknown as JsonValue }),
        })),
      });
    },

    rateAgent: async (c) => {
      const caller = c.get('caller');
      const id = c.req.param('id');
      const found = await store.agents.getVisible(id, caller);
      if (found === undefined) return agentNotFound(id);
      const body = await readJsonBody(c.req.raw, settings.maxBodyBytes);
      if (!body.ok) return body.response;
      const feedback = readFeedback(body.value);
      if (!feedback.ok) return feedback.response;
      const quality = await store.quality.addFeedback(id, feedback.value, actorOf(caller));
      if (quality === undefined) return agentNotFound(id);
      return jsonResponse({ id, quality_score: quality.score ?? null, ratings: quality.ratings }, 201);
    },
  };
}

function draftOf(agent: RecordDraft['agent'], registration: Registration, owner: string): RecordDraft {
  const draft: RecordDraft = { agent, owner, flags: scanAgentText(agent), sourceFormat: registration.format };
  if (registration.access !== undefined) draft.access = registration.access;
  return draft;
}

type Params =
  | { ok: true; value: { format?: FormatName; agent?: string; all?: boolean } }
  | { ok: false; response: Response };

function registrationParams(url: URL, allowAll: boolean): Params {
  const known = queryParameters(allowAll ? 'registerAgent' : 'updateAgent');
  const value: { format?: FormatName; agent?: string; all?: boolean } = {};
  for (const [name, text] of url.searchParams) {
    if (!known.includes(name)) {
      return {
        ok: false,
        response: invalidInput(`Unknown query parameter "${name}"; this endpoint takes ${known.join(', ')}.`),
      };
    }
    if (name === 'format') {
      if (!(FORMAT_NAMES as readonly string[]).includes(text)) {
        return {
          ok: false,
          response: invalidInput(`"format" must be one of ${FORMAT_NAMES.join(', ')}; got "${text}".`),
        };
      }
      value.format = text as FormatName;
    } else if (name === 'agent') value.agent = text;
    else if (text !== 'true' && text !== 'false') {
      return { ok: false, response: invalidInput(`"all" must be true or false; got "${text}".`) };
    } else value.all = text === 'true';
  }
  return { ok: true, value };
}

function registrationProblem(refusal: RegistrationRefusal): Response {
  return problem({
    status: 400,
    code: 'InvalidInput',
    title: refusal.title,
    detail: refusal.detail,
    errors: failuresOf(refusal.issues),
    extensions: { reason: refusal.code },
  });
}

type FeedbackInput = { rating: number; outcome: 'success' | 'failure'; comment?: string };

function readFeedback(
  body: JsonValue,
): { ok: true; value: FeedbackInput } | { ok: false; response: Response } {
  const fail = (detail: string, pointer: string): { ok: false; response: Response } => ({
    ok: false,
    response: invalidInput(detail, pointer),
  });
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return fail(
      'The body must be {"rating": 1..5, "outcome": "success" | "failure", "comment"?: "..."}.',
      '',
    );
  }
  const extra = Object.keys(body).find((key) => !['rating', 'outcome', 'comment'].includes(key));
  if (extra !== undefined)
    return fail(`Unknown member "${extra}"; feedback has rating, outcome and comment.`, `/${extra}`);
  const { rating, outcome, comment } = body;
  if (typeof rating !== 'number' || !Number.isInteger(rating) || rating < 1 || rating > 5) {
    return fail('"rating" must be an integer from 1 to 5.', '/rating');
  }
  if (outcome !== 'success' && outcome !== 'failure')
    return fail('"outcome" must be "success" or "failure".', '/outcome');
  const value: FeedbackInput = { rating, outcome };
  if (comment !== undefined) {
    if (typeof comment !== 'string' || comment.length > 2000)
      return fail('"comment" must be a string of at most 2000 characters.', '/comment');
    value.comment = comment;
  }
  return { ok: true, value };
}

/**
 * 409: another publisher's entry stands in the way (docs/registry.md, "Identity"). The same agent is refused
 * outright; an id held by a different agent is refused with how to pick another. An entry the caller may not see
 * is not named: the answer says only that the agent is taken.
 */
function conflictProblem(conflict: ConflictOutcome, publisher: string, holder: unknown): Response {
  const visible = holder !== undefined;
  const entry = visible ? ` as "${conflict.id}"` : '';
  const detail =
    conflict.reason === 'identity'
      ? `Agent "${conflict.agent}" is already in this registry${entry}, registered by another publisher: one agent is one entry, kept by the publisher that registered it first. If the agent is yours, ask the registry's operator to transfer it.`
      : `The id "${conflict.id}" is held by another publisher's agent. Give yours another id in its document (the "id" of AIDIP metadata or of its WoA entry; an A2A card's id is made from its name), e.g. "${conflict.id}-${publisherSlug(publisher)}", and register it again.`;
  const extensions: Record<string, unknown> = { reason: conflict.reason, agent: conflict.agent };
  if (visible || conflict.reason === 'id') extensions['id'] = conflict.id;
  return problem({
    status: 409,
    code: 'Conflict',
    title: conflict.reason === 'identity' ? 'Agent already registered' : 'Id already taken',
    detail,
    extensions,
  });
}

function publisherSlug(publisher: string): string {
  return (
    publisher
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'mine'
  );
}

export function agentNotFound(id: string): Response {
  return notFound(`No agent "${id}" in this registry.`);
}

function locationOf(baseUrl: string, id: string): string {
  return `${baseUrl}/agents/${encodeURIComponent(id)}`;
}
