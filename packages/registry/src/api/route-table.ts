/**
 * The registry's HTTP contract: every route once, keyed by its operationId, with its method, path, who may call
 * it, and what the OpenAPI document says of it (summary, parameters, body, answers). Three things are made from
 * this table and from nothing else: the Hono app's routes (app.ts binds each to the handler of the same name and
 * puts the access check in front of it), the 405 answers with `Allow` for a known path asked with another method,
 * and `/openapi.json` (openapi/document.ts). The schemas the entries name are the JSON Schema objects of
 * openapi/schemas.ts.
 */
import { CONFIRMATION_HEADER, IDEMPOTENCY_HEADER, type JsonObject, SESSION_HEADER } from '@agentry/core';
import type { COMPONENT_SCHEMAS } from '../openapi/schemas.js';
import { MAX_FILTER_VALUES } from './list-limits.js';
import { invalidInput } from './problems.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * Who may call a route. Every request is authenticated first (an unknown token is 401 anywhere); the check a
 * route's access names runs before its handler. `owner` needs a token in the document but is decided by the
 * handler, which knows the entry (its owner or the admin).
 */
export type Access =
  | { who: 'anyone' | 'publisher' | 'admin' | 'owner' }
  /** `doing` starts the refusal's sentence: "Feedback needs a token…". */
  | { who: 'token' | 'operator'; doing: string };

/** The groups operations are listed under in the document. */
export const TAGS = {
  agents: 'Register, read, change and delete agents; their history and feedback (AIDIP §4.2, §4.3.3).',
  search: 'Listing, search and facet counts (AIDIP §4.3.1, §4.3.2).',
  resolution: 'Agent Semantic Resolution (AIDIP §6, §7).',
  gateway: 'Invoking agents through the registry (AIDIP §5).',
  crawl: 'The crawl queue: origins the registry crawls.',
  federation: 'What other registries and crawlers read.',
  administration: 'API tokens and the audit log (admin).',
  system: 'Health, metrics and this document.',
} as const;

export type Tag = keyof typeof TAGS;
export type SchemaName = keyof typeof COMPONENT_SCHEMAS;

/** A route of the API, described in `/openapi.json`. */
export interface ApiRoute {
  method: Method;
  /** Hono's syntax (`/agents/:id`); the document writes `/agents/{id}`. */
  path: string;
  access: Access;
  tag: Tag;
  summary: string;
  description?: string;
  /** Path parameter descriptions that differ from PATH_PARAMETERS'. */
  pathParameters?: Readonly<Record<string, string>>;
  /** Query and header parameters, as OpenAPI parameter objects. */
  parameters?: JsonObject[];
  /** The JSON request body (required), by component schema name. */
  body?: SchemaName;
  /** The answers other than problems, by status, as OpenAPI response objects. */
  responses: Record<string, JsonObject>;
  /**
   * Problem statuses of this route besides those every route may answer (401 and 429; 400, 413 and 415 with a
   * body) and the 403 of an access check.
   */
  problems?: number[];
}

/** A route of the web app: served and answered 405 like the others, not part of the API's document. */
export interface PageRoute {
  method: 'GET';
  path: string;
  access: { who: 'anyone' };
  page: true;
}

export type Route = ApiRoute | PageRoute;

/** Path parameters, by name, as most routes mean them. */
export const PATH_PARAMETERS: Readonly<Record<string, string>> = {
  id: "The agent's registry id.",
  origin: 'The origin, percent-encoded (`https%3A%2F%2Fagents.example.com`), or a bare host name (https).',
};

export const ref = (name: SchemaName): JsonObject => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: JsonObject): JsonObject => ({ 'application/json': { schema } });

const listParameter = (name: string, description: string): JsonObject => ({
  name,
  in: 'query',
  description: `${description} Comma-separated or repeated; the agent must have all of them (at most ${MAX_FILTER_VALUES} values; more is a 400).`,
  schema: { type: 'array', items: { type: 'string' } },
  style: 'form',
  explode: true,
});

/** Filters that match any of their values: an entry with a description that arrived that way, or in that format. */
const SOURCE_FILTER: JsonObject = {
  name: 'source',
  in: 'query',
  description:
    'How a description of the agent arrived (any of): registered through the API, crawled from its host, imported from another registry. Comma-separated or repeated.',
  schema: { type: 'array', items: { type: 'string', enum: ['registered', 'crawled', 'imported'] } },
  style: 'form',
  explode: true,
};

const FORMAT_FILTER: JsonObject = {
  name: 'format',
  in: 'query',
  description:
    'A format a description of the agent was read in (any of), as `GET /facets` names them (e.g. aidip, a2a, mcp). Comma-separated or repeated.',
  schema: { type: 'array', items: { type: 'string' } },
  style: 'form',
  explode: true,
};

const TRANSPORT_FILTER: JsonObject = {
  name: 'transport',
  in: 'query',
  description:
    "A kind of the agent's bindings (any of), as `GET /facets` names them: a2a, mcp, http, woa-rest, wss, unix, local, other. Comma-separated or repeated.",
  schema: { type: 'array', items: { type: 'string' } },
  style: 'form',
  explode: true,
};

const AUTH_FILTER: JsonObject = {
  name: 'auth',
  in: 'query',
  description:
    'A kind of authentication the agent declares (any of): none, apikey, bearer, basic, oauth2, openidconnect, mtls, other (case is ignored). Comma-separated or repeated.',
  schema: { type: 'array', items: { type: 'string' } },
  style: 'form',
  explode: true,
};

const limitParameter = (maximum: number, defaultValue: number, description?: string): JsonObject => ({
  name: 'limit',
  in: 'query',
  ...(description === undefined ? {} : { description }),
  schema: { type: 'integer', minimum: 1, maximum, default: defaultValue },
});

const CURSOR: JsonObject = {
  name: 'cursor',
  in: 'query',
  description: 'The opaque cursor of the previous page.',
  schema: { type: 'string' },
};

const PAGE_HEADERS: JsonObject = {
  Link: { description: 'The next page, `rel="next"`.', schema: { type: 'string' } },
  'Agentry-Next-Cursor': { description: "The next page's cursor.", schema: { type: 'string' } },
};

const NOT_MODIFIED: JsonObject = { description: 'Not modified (`If-None-Match` named the current ETag).' };

const FORMATS = ['woa', 'awp', 'a2a', 'agent-json', 'td', 'aidip', 'mcp'];
const REGISTERED = [ref('AgentMetadata'), ref('RegistrationResults')];

const ANYONE = { who: 'anyone' } as const;
const PUBLISHER = { who: 'publisher' } as const;
const ADMIN = { who: 'admin' } as const;

/** An API route; its path stays a literal type, so that its handler's parameters are typed. */
const api = <const P extends string>(route: ApiRoute & { path: P }): ApiRoute & { path: P } => route;
const page = <const P extends string>(path: P): PageRoute & { path: P } => ({
  method: 'GET',
  path,
  access: ANYONE,
  page: true,
});

const TABLE = {
  listAgents: api({
    method: 'GET',
    path: '/agents',
    access: ANYONE,
    tag: 'search',
    summary: 'List agents by filters, search them with q, or walk changes for a mirror (AIDIP §4.3.1)',
    parameters: [
      listParameter('capabilities', 'Capabilities the agent must have.'),
      listParameter('tags', 'Tags the agent must have.'),
      listParameter('language', 'Languages the agent must support.'),
      listParameter(
        'status',
        'Lifecycle statuses to include (any of): any AIDIP status word, e.g. active, deprecated, maintenance; case is ignored.',
      ),
      SOURCE_FILTER,
      FORMAT_FILTER,
      TRANSPORT_FILTER,
      AUTH_FILTER,
      {
        name: 'q',
        in: 'query',
        description: 'A search query; results are ranked.',
        schema: { type: 'string', maxLength: 2000 },
      },
      { name: 'mode', in: 'query', schema: { type: 'string', enum: ['hybrid', 'lexical', 'semantic'] } },
      limitParameter(100, 20),
      CURSOR,
      {
        name: 'updated_since',
        in: 'query',
        description:
          'Changes since this time (deletions as tombstones), oldest first; cannot be combined with q.',
        schema: { type: 'string', format: 'date-time' },
      },
    ],
    responses: {
      '200': {
        description:
          'A page of summary objects (with `score` and `why` for `q`; full metadata and tombstones for `updated_since`).',
        headers: PAGE_HEADERS,
        content: json({
          type: 'array',
          items: { anyOf: [ref('AgentSummary'), ref('AgentMetadata'), ref('Tombstone')] },
        }),
      },
    },
    problems: [400],
  }),
  registerAgent: api({
    method: 'POST',
    path: '/agents',
    access: PUBLISHER,
    tag: 'agents',
    summary: 'Register an agent from a description in any format (AIDIP §4.2)',
    parameters: [
      {
        name: 'format',
        in: 'query',
        description: 'Read the body as this format instead of detecting it.',
        schema: { type: 'string', enum: [...FORMATS, 'agents-json'] },
      },
      {
        name: 'agent',
        in: 'query',
        description: 'Of a document with several agents, register this one.',
        schema: { type: 'string' },
      },
      {
        name: 'all',
        in: 'query',
        description: 'Register every agent of the document.',
        schema: { type: 'boolean' },
      },
    ],
    body: 'Registration',
    responses: {
      '201': {
        description: 'Registered: the stored metadata with the assigned id (or `results` with `all=true`).',
        headers: { Location: { schema: { type: 'string', format: 'uri' } } },
        content: json({ oneOf: REGISTERED }),
      },
      '200': {
        description:
          'The agent is already an entry of this owner (the same document again, or one more format of it): the stored metadata.',
        content: json({ oneOf: REGISTERED }),
      },
    },
    problems: [400, 409],
  }),
  // Before /agents/:id, which matches its path too: a method neither has answers 405 with this route's Allow.
  searchAgents: api({
    method: 'POST',
    path: '/agents/search',
    access: ANYONE,
    tag: 'search',
    summary: 'Filter and rank agents for a natural-language need (AIDIP §4.3.1, §4.3.2)',
    body: 'SearchRequest',
    responses: {
      '200': {
        description: 'Summary objects, best first, with `score` and `why`.',
        content: json({ type: 'array', items: ref('AgentSummary') }),
      },
    },
    problems: [400],
  }),
  facetCounts: api({
    method: 'GET',
    path: '/facets',
    access: ANYONE,
    tag: 'search',
    summary:
      'How many agents have each tag, capability, language, status, source, format, transport and kind of authentication',
    description:
      'Counts among the agents the caller may see that match the filters (the filters of GET /agents) and, with `q`, among the best-ranked 500 matches of the text query (`ranked` says so). Each facet lists its `limit` most frequent values, most frequent first.',
    parameters: [
      listParameter('capabilities', 'Capabilities the agents must have.'),
      listParameter('tags', 'Tags the agents must have.'),
      listParameter('language', 'Languages the agents must support.'),
      listParameter('status', 'Lifecycle statuses to include (any of).'),
      SOURCE_FILTER,
      FORMAT_FILTER,
      TRANSPORT_FILTER,
      AUTH_FILTER,
      {
        name: 'q',
        in: 'query',
        description: 'A search query: count among its best-ranked matches.',
        schema: { type: 'string', maxLength: 2000 },
      },
      { name: 'mode', in: 'query', schema: { type: 'string', enum: ['hybrid', 'lexical', 'semantic'] } },
      limitParameter(100, 20, 'Values per facet.'),
    ],
    responses: { '200': { description: 'The counts.', content: json(ref('Facets')) } },
    problems: [400],
  }),
  getAgent: api({
    method: 'GET',
    path: '/agents/:id',
    access: ANYONE,
    tag: 'agents',
    summary: 'Retrieve an agent (AIDIP §4.3.3), in AIDIP metadata or any other format',
    parameters: [
      { name: 'format', in: 'query', schema: { type: 'string', enum: FORMATS, default: 'aidip' } },
    ],
    responses: {
      '200': {
        description:
          "The agent's metadata (or the requested format, in its media type). Carries a strong ETag.",
        headers: {
          ETag: { schema: { type: 'string' } },
          'Agentry-Losses': {
            description: 'How many canonical fields the format could not carry.',
            schema: { type: 'integer' },
          },
        },
        content: {
          'application/json': {
            // OpenAPI cannot tie a schema to a query parameter: the registry's metadata always carries
            // `registry`; the awp, a2a and mcp documents of `?format=` never do.
            schema: {
              anyOf: [
                ref('AgentMetadata'),
                {
                  type: 'object',
                  not: { required: ['registry'] },
                  description: 'With `?format=awp|a2a|mcp`: the agent in that format.',
                },
              ],
            },
          },
          'application/woa+json': { schema: { type: 'object' } },
          'application/td+json': { schema: { type: 'object' } },
          'application/ld+json': { schema: { type: 'object' } },
        },
      },
      '304': NOT_MODIFIED,
    },
    problems: [400, 404],
  }),
  updateAgent: api({
    method: 'PUT',
    path: '/agents/:id',
    access: PUBLISHER,
    tag: 'agents',
    summary: "Replace an agent's description (AIDIP §4.2)",
    parameters: [
      { name: 'format', in: 'query', schema: { type: 'string', enum: [...FORMATS, 'agents-json'] } },
      { name: 'agent', in: 'query', schema: { type: 'string' } },
    ],
    body: 'Registration',
    responses: { '200': { description: 'The stored metadata.', content: json(ref('AgentMetadata')) } },
    problems: [400, 404, 409],
  }),
  deleteAgent: api({
    method: 'DELETE',
    path: '/agents/:id',
    access: PUBLISHER,
    tag: 'agents',
    summary: 'Delete an agent (a tombstone remains for mirrors)',
    responses: { '204': { description: 'Deleted.' } },
    problems: [404],
  }),
  rateAgent: api({
    method: 'POST',
    path: '/agents/:id/feedback',
    access: { who: 'token', doing: 'Feedback' },
    tag: 'agents',
    summary: 'Rate an invocation of the agent (feeds its quality score)',
    body: 'Feedback',
    responses: { '201': { description: 'Recorded.', content: json(ref('FeedbackResult')) } },
    problems: [400, 404],
  }),
  invokeAgent: api({
    method: 'POST',
    path: '/agents/:id/invoke',
    access: { who: 'token', doing: 'Invoking an agent through the registry' },
    tag: 'gateway',
    summary: 'Invoke the agent through the registry gateway (AIDIP §3.1 `endpoint`, §5)',
    description:
      "The registry calls the agent with the input, under its address checks. The body is AIDIP §5.1's (the input itself, optionally with `operation` beside its fields) or the envelope {operation?, input}. Call metadata (X-Session-ID, X-Task-ID, X-Agent-Version, Idempotency-Key, X-Delegation-Chain, traceparent) is passed on; the caller's Authorization never is: credentials for the agent go in X-Agent-Authorization (sent as its Authorization) or X-Agent-Api-Key (sent where its API-key scheme says).",
    parameters: [
      {
        name: 'X-Agent-Authorization',
        in: 'header',
        description: 'Sent to the agent as its `Authorization`.',
        schema: { type: 'string' },
      },
      {
        name: 'X-Agent-Api-Key',
        in: 'header',
        description: "Sent where the agent's API-key scheme says.",
        schema: { type: 'string' },
      },
      {
        name: 'operation',
        in: 'query',
        description:
          'The operation to run; the body is then the input as it is, never read for an operation.',
        schema: { type: 'string', minLength: 1 },
      },
      {
        name: 'X-Agent-Body',
        in: 'header',
        description:
          "Which form the body is: `envelope` ({operation?, input, …}) or `input` (the input itself, AIDIP §5.1). Without it a body with `input` and no member outside the envelope's is the envelope, any other the input.",
        schema: { type: 'string', enum: ['envelope', 'input'] },
      },
      {
        name: CONFIRMATION_HEADER,
        in: 'header',
        description: '`true` confirms an operation that needs it.',
        schema: { type: 'string', enum: ['true', 'false'] },
      },
      { name: SESSION_HEADER, in: 'header', schema: { type: 'string' } },
      { name: 'X-Task-ID', in: 'header', schema: { type: 'string' } },
      { name: 'X-Agent-Version', in: 'header', schema: { type: 'string' } },
      { name: IDEMPOTENCY_HEADER, in: 'header', schema: { type: 'string' } },
    ],
    body: 'InvokeRequest',
    responses: {
      '200': {
        description:
          "The agent's output (AIDIP §5.2), checked against the operation's output schema; a deferred task is waited for. To a caller whose Accept names `text/event-stream`, a streaming agent's events are relayed as they arrive (`event: <name>`, `data: <JSON>`; a failure after the first ends the stream with an `error` event holding the problem); an agent that answers once still answers JSON.",
        headers: {
          'X-Agent-Operation': { description: 'The operation run.', schema: { type: 'string' } },
          'X-Task-ID': { schema: { type: 'string' } },
        },
        content: {
          'application/json': { schema: {} },
          'text/event-stream': { schema: { type: 'string' } },
        },
      },
    },
    problems: [400, 403, 404, 410, 428, 501, 502, 503, 504],
  }),
  getAgentHistory: api({
    method: 'GET',
    path: '/agents/:id/history',
    access: { who: 'owner' },
    tag: 'agents',
    summary: "An agent's revisions (owner and admin only)",
    responses: { '200': { description: 'Every change, oldest first.', content: json(ref('History')) } },
    problems: [404],
  }),
  resolveIntent: api({
    method: 'POST',
    path: '/resolve',
    access: ANYONE,
    tag: 'resolution',
    summary:
      'Agent Semantic Resolution: (intent, context, policy) → candidates with invocation metadata (AIDIP §6, §7)',
    body: 'ResolveRequest',
    responses: {
      '200': {
        description: 'Ranked candidates, and what the policy filtered out.',
        content: json(ref('ResolveResponse')),
      },
    },
    problems: [400],
  }),
  getOpenApi: api({
    method: 'GET',
    path: '/openapi.json',
    access: ANYONE,
    tag: 'system',
    summary: 'This document',
    responses: { '200': { description: 'The OpenAPI 3.1 document.', content: json({ type: 'object' }) } },
  }),
  health: api({
    method: 'GET',
    path: '/healthz',
    access: ANYONE,
    tag: 'system',
    summary: 'Liveness: the registry and its database answer',
    responses: { '200': { description: 'Healthy.', content: json(ref('Health')) } },
    problems: [503],
  }),
  ready: api({
    method: 'GET',
    path: '/readyz',
    access: ANYONE,
    tag: 'system',
    summary: 'Readiness: whether to send the registry traffic',
    description:
      'Ready when a trivial query on the database answers within 1 s and the registry is not shutting down; otherwise 503 with a problem whose `reason` is `database-unreachable` or `shutting-down` (a load balancer drains it).',
    responses: {
      '200': {
        description: 'Ready.',
        content: json({
          type: 'object',
          required: ['status', 'database', 'version'],
          properties: {
            status: { const: 'ready' },
            database: { const: 'ok' },
            version: { type: 'string' },
          },
        }),
      },
    },
    problems: [503],
  }),
  metrics: api({
    method: 'GET',
    path: '/metrics',
    access: ADMIN,
    tag: 'system',
    summary: 'Prometheus metrics, text exposition format 0.0.4 (admin)',
    responses: {
      '200': { description: 'The metrics.', content: { 'text/plain': { schema: { type: 'string' } } } },
    },
  }),
  createToken: api({
    method: 'POST',
    path: '/admin/tokens',
    access: ADMIN,
    tag: 'administration',
    summary: 'Create an API token (admin)',
    body: 'TokenRequest',
    responses: { '201': { description: 'The token, shown this once.', content: json(ref('Token')) } },
    problems: [400],
  }),
  listTokens: api({
    method: 'GET',
    path: '/admin/tokens',
    access: ADMIN,
    tag: 'administration',
    summary:
      'The live API tokens, newest first: id, role, publisher, groups, when made; never the secret (admin)',
    parameters: [
      limitParameter(1000, 100),
      {
        name: 'before',
        in: 'query',
        description: 'Tokens made before this one (a token id: `next_before` of the previous page).',
        schema: { type: 'string' },
      },
    ],
    responses: { '200': { description: 'A page of tokens.', content: json(ref('TokenList')) } },
    problems: [400],
  }),
  revokeToken: api({
    method: 'DELETE',
    path: '/admin/tokens/:id',
    access: ADMIN,
    tag: 'administration',
    summary: 'Revoke an API token (admin)',
    pathParameters: { id: "The token's id." },
    responses: { '204': { description: 'Revoked.' } },
    problems: [404],
  }),
  readAudit: api({
    method: 'GET',
    path: '/admin/audit',
    access: ADMIN,
    tag: 'administration',
    summary: 'The audit log, newest first (admin)',
    parameters: [
      limitParameter(1000, 100),
      {
        name: 'before',
        in: 'query',
        description: 'Entries older than this `seq`.',
        schema: { type: 'integer', minimum: 1 },
      },
      { name: 'target', in: 'query', schema: { type: 'string' } },
      { name: 'action', in: 'query', schema: { type: 'string' } },
    ],
    responses: { '200': { description: 'A page of entries.', content: json(ref('AuditLog')) } },
    problems: [400],
  }),
  listHosts: api({
    method: 'GET',
    path: '/hosts',
    access: { who: 'operator', doing: 'Reading the crawl queue' },
    tag: 'crawl',
    summary:
      'The crawl queue: each origin with its last crawl, next due time, failures and agent count (publisher, admin)',
    parameters: [limitParameter(1000, 100), CURSOR],
    responses: {
      '200': {
        description: 'A page of hosts in origin order.',
        headers: PAGE_HEADERS,
        content: json({ type: 'array', items: ref('CrawlHost') }),
      },
    },
    problems: [400],
  }),
  addHost: api({
    method: 'POST',
    path: '/hosts',
    access: { who: 'operator', doing: 'Adding an origin to crawl' },
    tag: 'crawl',
    summary: 'Add an origin to crawl (publisher, admin); it is due at once',
    body: 'HostRequest',
    responses: {
      '201': {
        description:
          'Queued: its status, and whether this registry crawls it (`crawling`; a `warning` when it does not).',
        headers: { Location: { schema: { type: 'string', format: 'uri' } } },
        content: json(ref('HostAdded')),
      },
      '200': {
        description: 'Already queued: its status (nothing changed), and whether this registry crawls it.',
        content: json(ref('HostAdded')),
      },
    },
    problems: [400],
  }),
  getHost: api({
    method: 'GET',
    path: '/hosts/:origin',
    access: { who: 'operator', doing: 'Reading the crawl queue' },
    tag: 'crawl',
    summary:
      'An origin in the crawl queue, with every document its last crawl read and its agents (publisher, admin)',
    responses: { '200': { description: 'The host.', content: json(ref('CrawlHostDetail')) } },
    problems: [400, 404],
  }),
  removeHost: api({
    method: 'DELETE',
    path: '/hosts/:origin',
    access: ADMIN,
    tag: 'crawl',
    summary: 'Stop crawling an origin; its agents are tombstoned (admin)',
    responses: { '204': { description: 'Removed.' } },
    problems: [400, 404],
  }),
  listImports: api({
    method: 'GET',
    path: '/imports',
    access: ADMIN,
    tag: 'federation',
    summary:
      'The registries this one imports: where the last completed import got to, the entries each brought, and how its last run went (admin)',
    responses: {
      '200': { description: 'Every source imported or tried.', content: json(ref('ImportSources')) },
    },
    problems: [400],
  }),
  getAiCatalog: api({
    method: 'GET',
    path: '/.well-known/ai-catalog.json',
    access: ANYONE,
    tag: 'federation',
    summary: "This registry's public agents as an AI Catalog (for other registries and crawlers)",
    responses: {
      '200': {
        description: 'Public agents only (no access groups, not retired, not flagged), whoever asks.',
        headers: { ETag: { schema: { type: 'string' } } },
        content: { 'application/ai-catalog+json': { schema: ref('AiCatalog') } },
      },
      '304': NOT_MODIFIED,
    },
  }),
  // The web app (routes/ui.ts): `/app` and every path under it answer the same page.
  appHome: page('/'),
  appPage: page('/app'),
  appView: page('/app/*'),
  appAsset: page('/ui/:file'),
};

export type OperationId = keyof typeof TABLE;

/** The path of a route, as a literal type (`/agents/:id`). */
export type RoutePath<K extends OperationId> = (typeof TABLE)[K]['path'];

/** Every route, in the order the app registers them (and the 405 answers look their paths up). */
export const ROUTES: Readonly<Record<OperationId, Route>> = TABLE;

export function isApiRoute(route: Route): route is ApiRoute {
  return !('page' in route);
}

/**
 * The names of a route's query parameters, in the table's order: the handler refuses any other (a typo must not
 * silently widen a result).
 */
export function queryParameters(operationId: OperationId): string[] {
  const route = ROUTES[operationId];
  if (!isApiRoute(route)) return [];
  return (route.parameters ?? []).filter((p) => p['in'] === 'query').map((p) => String(p['name']));
}

/** A 400 naming the first query parameter in `url` that `operationId` does not declare; undefined when none. */
export function unknownQueryParameter(url: URL, operationId: OperationId): Response | undefined {
  const known = queryParameters(operationId);
  const unknown = [...url.searchParams.keys()].find((name) => !known.includes(name));
  if (unknown === undefined) return undefined;
  return invalidInput(`Unknown query parameter "${unknown}"; this endpoint takes ${known.join(', ')}.`);
}

/** `/agents/:id` → `/agents/{id}`. */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z_]\w*)/g, '{$1}');
}
