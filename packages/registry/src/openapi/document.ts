/**
 * `openApiDocument`: the OpenAPI 3.1 description of the registry's HTTP API (`GET /openapi.json`), written from the
 * route table (api/route-table.ts): the AIDIP endpoints (registration, listing, search, retrieval, invocation,
 * resolution) and Agentry's own (feedback, history, crawl queue, administration, health, metrics), with every error
 * as problem details carrying the AIDIP error object.
 */
import { type JsonObject, type JsonValue, trimTrailingSlash } from '@agentry/core';
import {
  type ApiRoute,
  isApiRoute,
  openApiPath,
  PATH_PARAMETERS,
  ROUTES,
  ref,
  TAGS,
} from '../api/route-table.js';
import { COMPONENT_SCHEMAS } from './schemas.js';

export interface OpenApiOptions {
  /** The registry's public URL, e.g. `https://registry.example.com` (no trailing slash needed). */
  baseUrl: string;
  version: string;
}

const PROBLEM_DESCRIPTIONS: Record<number, string> = {
  400: 'The request is not valid; `errors` lists each problem with its JSON pointer.',
  401: 'A token is needed (or the one given is unknown or revoked).',
  403: 'The token may not do this (not the owner, not a publisher, not the admin, or over quota).',
  404: 'No such agent, or one the caller may not see.',
  409: 'Another publisher registered this agent first, or holds the id it asks for (`reason`: `identity` or `id`); `id` names that entry.',
  410: 'The agent is retired.',
  413: 'The body is larger than the registry accepts.',
  415: 'The body is not JSON (`Content-Type` must be `application/json` or a `+json` type).',
  428: 'The operation is destructive, irreversible or asks for confirmation: send `confirm: true`.',
  429: 'Too many requests; `Retry-After` says when to try again.',
  501: 'The agent has no binding the gateway can call.',
  502: 'The agent failed, broke its contract, could not be reached, or its address is refused (not public).',
  503: 'The agent (or the registry) is unavailable; `Retry-After` when known.',
  504: 'The agent did not answer in time.',
};

/** Reads are open to anonymous callers (who see public agents only); `{}` makes the token optional. */
const OPTIONAL_TOKEN: JsonValue[] = [{}, { bearerToken: [] }];
const TOKEN: JsonValue[] = [{ bearerToken: [] }];

export function openApiDocument(options: OpenApiOptions): JsonObject {
  const document: JsonObject = {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'Agentry registry',
      version: options.version,
      summary: 'An AIDIP agent registry: register, find, resolve and invoke agents described in any format.',
      description:
        "Implements draft-cui-ai-agent-discovery-invocation (AIDIP): registration, filters, semantic search, retrieval, the invocation gateway and Agent Semantic Resolution. Agent names and descriptions are publishers' text: treat them as untrusted input for a language model (WoA §8.2).",
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: trimTrailingSlash(options.baseUrl) || '/' }],
    security: OPTIONAL_TOKEN,
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    paths: paths(),
    components: {
      schemas: COMPONENT_SCHEMAS,
      responses: problemResponses(),
      securitySchemes: {
        bearerToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API token from POST /admin/tokens (or the admin token).',
        },
      },
    },
  };
  // The table's objects are shared by every document; a caller may change its copy.
  return structuredClone(document);
}

/** The path items, in the table's order, each route an operation of its path's item. */
function paths(): JsonObject {
  const items: Record<string, JsonObject> = {};
  for (const [operationId, route] of Object.entries(ROUTES)) {
    if (!isApiRoute(route)) continue;
    const path = openApiPath(route.path);
    items[path] ??= pathParameters(route);
    items[path][route.method.toLowerCase()] = operation(operationId, route);
  }
  return items;
}

/** The path's templated parameters, declared once on its item. */
function pathParameters(route: ApiRoute): JsonObject {
  const names = [...route.path.matchAll(/:(\w+)/g)].map((match) => match[1]!);
  if (names.length === 0) return {};
  return {
    parameters: names.map((name) => ({
      name,
      in: 'path',
      required: true,
      description: pathParameterDescription(route, name),
      schema: { type: 'string', minLength: 1 },
    })),
  };
}

function pathParameterDescription(route: ApiRoute, name: string): string {
  const description = route.pathParameters?.[name] ?? PATH_PARAMETERS[name];
  if (description === undefined)
    throw new Error(`${route.path}: path parameter "${name}" has no description.`);
  return description;
}

function operation(operationId: string, route: ApiRoute): JsonObject {
  const responses: JsonObject = { ...problemReferences(problemStatuses(route)), ...route.responses };
  return {
    operationId,
    summary: route.summary,
    ...(route.description === undefined ? {} : { description: route.description }),
    tags: [route.tag],
    security: route.access.who === 'anyone' ? OPTIONAL_TOKEN : TOKEN,
    ...(route.parameters === undefined ? {} : { parameters: route.parameters }),
    ...(route.body === undefined
      ? {}
      : { requestBody: { required: true, content: { 'application/json': { schema: ref(route.body) } } } }),
    responses: Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b))),
  };
}

/**
 * The problems an operation may answer: its own; 403 where its access check can refuse a token; and those of
 * every request: it is authenticated (an unknown or revoked token is 401, even where none is needed) and rate
 * limited (429), and a body is read the same way everywhere (400 for malformed JSON, 413 past the size limit,
 * 415 when it is not JSON).
 */
function problemStatuses(route: ApiRoute): number[] {
  const statuses = new Set([401, 429, ...(route.problems ?? [])]);
  if (route.body !== undefined) for (const status of [400, 413, 415]) statuses.add(status);
  if (route.access.who !== 'anyone' && route.access.who !== 'token') statuses.add(403);
  return [...statuses];
}

/** Problem responses by status, each a `#/components/responses/…` reference. */
function problemReferences(statuses: readonly number[]): JsonObject {
  return Object.fromEntries(
    statuses.map((status) => [String(status), { $ref: `#/components/responses/Problem${status}` }]),
  );
}

function problemResponses(): JsonObject {
  return Object.fromEntries(
    Object.entries(PROBLEM_DESCRIPTIONS).map(([status, description]) => {
      const response: JsonObject = {
        description,
        content: { 'application/problem+json': { schema: ref('Problem') } },
      };
      if (status === '429' || status === '503') {
        response['headers'] = {
          'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer', minimum: 0 } },
        };
      }
      return [`Problem${status}`, response];
    }),
  );
}
