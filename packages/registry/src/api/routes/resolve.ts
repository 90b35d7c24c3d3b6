/** POST /resolve: Agent Semantic Resolution (AIDIP §6) over the agents the caller may see. */
import type { RegistryRecord } from '../../records/types.js';
import { readJsonBody } from '../body.js';
import type { RegistryServices, RouteHandlers } from '../context.js';
import { problem } from '../problems.js';
import { jsonResponse } from '../respond.js';
import { rankedSearch } from './listing.js';

export function resolveHandlers(services: RegistryServices): RouteHandlers<'resolveIntent'> {
  return {
    resolveIntent: async (c) => {
      const body = await readJsonBody(c.req.raw, services.settings.maxBodyBytes);
      if (!body.ok) return body.response;
      const caller = c.get('caller');
      const result = await services.resolveIntent(body.value, {
        search: async (query, top) => {
          const ranked = await rankedSearch(services, caller, query, {}, undefined, 0, top);
          return ranked.items.map((item) => item.hit);
        },
        getRecords: async (ids): Promise<RegistryRecord[]> =>
          (await services.store.agents.getMany(ids, caller)).map((item) => item.record),
        baseUrl: c.get('baseUrl'),
      });
      if (result.status === 200) return jsonResponse(result.body);
      return problemFrom(result.status, result.problem);
    },
  };
}

/** A problem from the resolver, completed with what every registry error carries. */
function problemFrom(status: number, value: unknown): Response {
  const given = typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  const detail =
    typeof given['detail'] === 'string' ? given['detail'] : 'The resolution request is not valid.';
  const errors = Array.isArray(given['errors']) ? given['errors'] : undefined;
  const {
    type: _type,
    title: _title,
    status: _status,
    detail: _detail,
    code: _code,
    error: _error,
    errors: _errors,
    ...rest
  } = given;
  return problem({
    status,
    code: status === 400 ? 'InvalidInput' : 'InternalError',
    title: typeof given['title'] === 'string' ? given['title'] : 'Invalid resolution request',
    detail,
    ...(errors === undefined ? {} : { errors: errors as Array<{ pointer: string; detail: string }> }),
    extensions: rest,
  });
}
