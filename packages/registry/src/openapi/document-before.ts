/**
 * The OpenAPI document as it was written by hand before api/route-table.ts: kept for one commit, so that a test
 * shows the document made from the route table is the same.
 */
import {
  CONFIRMATION_HEADER,
  IDEMPOTENCY_HEADER,
  type JsonObject,
  type JsonValue,
  SESSION_HEADER,
} from '@agentry/core';
import { MAX_FILTER_VALUES } from '../api/list-limits.js';
import { COMPONENT_SCHEMAS } from './schemas.js';

export interface OpenApiOptions {
  /** The registry's public URL, e.g. `https://registry.example.com` (no trailing slash needed). */
  baseUrl: string;
  version: string;
}

const ref = (name: string): JsonObject => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: JsonObject): JsonObject => ({ 'application/json': { schema } });

/** Problem responses by status, each a `#/components/responses/…` reference. */
const problem = (...statuses: number[]): JsonObject =>
  Object.fromEntries(
    statuses.map((status) => [String(status), { $ref: `#/components/responses/Problem${status}` }]),
  );

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

const RESPONSES: JsonObject = Object.fromEntries(
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

const idParameter: JsonObject = {
  name: 'id',
  in: 'path',
  required: true,
  description: "The agent's registry id.",
  schema: { type: 'string', minLength: 1 },
};

const listParameter = (name: string, description: string): JsonObject => ({
  name,
  in: 'query',
  description: `${description} Comma-separated or repeated; the agent must have all of them (at most ${MAX_FILTER_VALUES} values; more is a 400).`,
  schema: { type: 'array', items: { type: 'string' } },
  style: 'form',
  explode: true,
});

const FORMATS = ['woa', 'awp', 'a2a', 'agent-json', 'td', 'aidip', 'mcp'];

/** Reads are open to anonymous callers (who see public agents only); `{}` makes the token optional. */
const OPTIONAL_TOKEN: JsonValue[] = [{}, { bearerToken: [] }];
const TOKEN: JsonValue[] = [{ bearerToken: [] }];

const PATHS: JsonObject = {
  '/agents': {
    get: {
      operationId: 'listAgents',
      summary: 'List agents by filters, search them with q, or walk changes for a mirror (AIDIP §4.3.1)',
      security: OPTIONAL_TOKEN,
      parameters: [
        listParameter('capabilities', 'Capabilities the agent must have.'),
        listParameter('tags', 'Tags the agent must have.'),
        listParameter('language', 'Languages the agent must support.'),
        listParameter(
          'status',
          'Lifecycle statuses to include (any of): any AIDIP status word, e.g. active, deprecated, maintenance; case is ignored.',
        ),
        {
          name: 'q',
          in: 'query',
          description: 'A search query; results are ranked.',
          schema: { type: 'string', maxLength: 2000 },
        },
        { name: 'mode', in: 'query', schema: { type: 'string', enum: ['hybrid', 'lexical', 'semantic'] } },
        { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
        {
          name: 'cursor',
          in: 'query',
          description: 'The opaque cursor of the previous page.',
          schema: { type: 'string' },
        },
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
          headers: {
            Link: { description: 'The next page, `rel="next"`.', schema: { type: 'string' } },
            'Agentry-Next-Cursor': { description: "The next page's cursor.", schema: { type: 'string' } },
          },
          content: json({
            type: 'array',
            items: { anyOf: [ref('AgentSummary'), ref('AgentMetadata'), ref('Tombstone')] },
          }),
        },
        ...problem(400),
      },
    },
    post: {
      operationId: 'registerAgent',
      summary: 'Register an agent from a description in any format (AIDIP §4.2)',
      security: TOKEN,
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
      requestBody: { required: true, content: json(ref('Registration')) },
      responses: {
        '201': {
          description: 'Registered: the stored metadata with the assigned id (or `results` with `all=true`).',
          headers: { Location: { schema: { type: 'string', format: 'uri' } } },
          content: json({ oneOf: [ref('AgentMetadata'), ref('RegistrationResults')] }),
        },
        '200': {
          description:
            'The agent is already an entry of this owner (the same document again, or one more format of it): the stored metadata.',
          content: json({ oneOf: [ref('AgentMetadata'), ref('RegistrationResults')] }),
        },
        ...problem(400, 403, 409),
      },
    },
  },
  '/facets': {
    get: {
      operationId: 'facetCounts',
      summary: 'How many agents have each tag, capability, language, status, source and format',
      description:
        'Counts among the agents the caller may see that match the filters (the filters of GET /agents; a text query does not narrow them). Each facet lists its `limit` most frequent values, most frequent first.',
      security: OPTIONAL_TOKEN,
      parameters: [
        listParameter('capabilities', 'Capabilities the agents must have.'),
        listParameter('tags', 'Tags the agents must have.'),
        listParameter('language', 'Languages the agents must support.'),
        listParameter('status', 'Lifecycle statuses to include (any of).'),
        {
          name: 'limit',
          in: 'query',
          description: 'Values per facet.',
          schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
        },
      ],
      responses: {
        '200': { description: 'The counts.', content: json(ref('Facets')) },
        ...problem(400),
      },
    },
  },
  '/agents/search': {
    post: {
      operationId: 'searchAgents',
      summary: 'Filter and rank agents for a natural-language need (AIDIP §4.3.1, §4.3.2)',
      security: OPTIONAL_TOKEN,
      requestBody: { required: true, content: json(ref('SearchRequest')) },
      responses: {
        '200': {
          description: 'Summary objects, best first, with `score` and `why`.',
          content: json({ type: 'array', items: ref('AgentSummary') }),
        },
        ...problem(400),
      },
    },
  },
  '/agents/{id}': {
    parameters: [idParameter],
    get: {
      operationId: 'getAgent',
      summary: 'Retrieve an agent (AIDIP §4.3.3), in AIDIP metadata or any other format',
      security: OPTIONAL_TOKEN,
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
        '304': { description: 'Not modified (`If-None-Match` named the current ETag).' },
        ...problem(400, 404),
      },
    },
    put: {
      operationId: 'updateAgent',
      summary: "Replace an agent's description (AIDIP §4.2)",
      security: TOKEN,
      parameters: [
        { name: 'format', in: 'query', schema: { type: 'string', enum: [...FORMATS, 'agents-json'] } },
        { name: 'agent', in: 'query', schema: { type: 'string' } },
      ],
      requestBody: { required: true, content: json(ref('Registration')) },
      responses: {
        '200': { description: 'The stored metadata.', content: json(ref('AgentMetadata')) },
        ...problem(400, 403, 404, 409),
      },
    },
    delete: {
      operationId: 'deleteAgent',
      summary: 'Delete an agent (a tombstone remains for mirrors)',
      security: TOKEN,
      responses: { '204': { description: 'Deleted.' }, ...problem(403, 404) },
    },
  },
  '/agents/{id}/history': {
    parameters: [idParameter],
    get: {
      operationId: 'getAgentHistory',
      summary: "An agent's revisions (owner and admin only)",
      security: TOKEN,
      responses: {
        '200': { description: 'Every change, oldest first.', content: json(ref('History')) },
        ...problem(403, 404),
      },
    },
  },
  '/agents/{id}/feedback': {
    parameters: [idParameter],
    post: {
      operationId: 'rateAgent',
      summary: 'Rate an invocation of the agent (feeds its quality score)',
      security: TOKEN,
      requestBody: { required: true, content: json(ref('Feedback')) },
      responses: {
        '201': { description: 'Recorded.', content: json(ref('FeedbackResult')) },
        ...problem(400, 404),
      },
    },
  },
  '/agents/{id}/invoke': {
    parameters: [idParameter],
    post: {
      operationId: 'invokeAgent',
      summary: 'Invoke the agent through the registry gateway (AIDIP §3.1 `endpoint`, §5)',
      description:
        "The registry calls the agent with the input, under its address checks. The body is AIDIP §5.1's (the input itself, optionally with `operation` beside its fields) or the envelope {operation?, input}. Call metadata (X-Session-ID, X-Task-ID, X-Agent-Version, Idempotency-Key, X-Delegation-Chain, traceparent) is passed on; the caller's Authorization never is: credentials for the agent go in X-Agent-Authorization (sent as its Authorization) or X-Agent-Api-Key (sent where its API-key scheme says).",
      security: TOKEN,
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
      requestBody: { required: true, content: json(ref('InvokeRequest')) },
      responses: {
        '200': {
          description: "The agent's output (AIDIP §5.2), checked against the operation's output schema.",
          headers: {
            'X-Agent-Operation': { description: 'The operation run.', schema: { type: 'string' } },
            'X-Task-ID': { schema: { type: 'string' } },
          },
          content: { 'application/json': { schema: {} } },
        },
        ...problem(400, 403, 404, 410, 428, 501, 502, 503, 504),
      },
    },
  },
  '/resolve': {
    post: {
      operationId: 'resolveIntent',
      summary:
        'Agent Semantic Resolution: (intent, context, policy) → candidates with invocation metadata (AIDIP §6, §7)',
      security: OPTIONAL_TOKEN,
      requestBody: { required: true, content: json(ref('ResolveRequest')) },
      responses: {
        '200': {
          description: 'Ranked candidates, and what the policy filtered out.',
          content: json(ref('ResolveResponse')),
        },
        ...problem(400),
      },
    },
  },
  '/admin/tokens': {
    post: {
      operationId: 'createToken',
      summary: 'Create an API token (admin)',
      security: TOKEN,
      requestBody: { required: true, content: json(ref('TokenRequest')) },
      responses: {
        '201': { description: 'The token, shown this once.', content: json(ref('Token')) },
        ...problem(400, 403),
      },
    },
  },
  '/admin/tokens/{id}': {
    parameters: [{ ...idParameter, description: "The token's id." }],
    delete: {
      operationId: 'revokeToken',
      summary: 'Revoke an API token (admin)',
      security: TOKEN,
      responses: { '204': { description: 'Revoked.' }, ...problem(403, 404) },
    },
  },
  '/admin/audit': {
    get: {
      operationId: 'readAudit',
      summary: 'The audit log, newest first (admin)',
      security: TOKEN,
      parameters: [
        { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 } },
        {
          name: 'before',
          in: 'query',
          description: 'Entries older than this `seq`.',
          schema: { type: 'integer', minimum: 1 },
        },
        { name: 'target', in: 'query', schema: { type: 'string' } },
        { name: 'action', in: 'query', schema: { type: 'string' } },
      ],
      responses: {
        '200': { description: 'A page of entries.', content: json(ref('AuditLog')) },
        ...problem(400, 403),
      },
    },
  },
  '/hosts': {
    get: {
      operationId: 'listHosts',
      summary:
        'The crawl queue: each origin with its last crawl, next due time, failures and agent count (publisher, admin)',
      security: TOKEN,
      parameters: [
        { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 } },
        {
          name: 'cursor',
          in: 'query',
          description: 'The opaque cursor of the previous page.',
          schema: { type: 'string' },
        },
      ],
      responses: {
        '200': {
          description: 'A page of hosts in origin order.',
          headers: {
            Link: { description: 'The next page, `rel="next"`.', schema: { type: 'string' } },
            'Agentry-Next-Cursor': { description: "The next page's cursor.", schema: { type: 'string' } },
          },
          content: json({ type: 'array', items: ref('CrawlHost') }),
        },
        ...problem(400, 403),
      },
    },
    post: {
      operationId: 'addHost',
      summary: 'Add an origin to crawl (publisher, admin); it is due at once',
      security: TOKEN,
      requestBody: { required: true, content: json(ref('HostRequest')) },
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
        ...problem(400, 403),
      },
    },
  },
  '/hosts/{origin}': {
    parameters: [
      {
        name: 'origin',
        in: 'path',
        required: true,
        description:
          'The origin, percent-encoded (`https%3A%2F%2Fagents.example.com`), or a bare host name (https).',
        schema: { type: 'string', minLength: 1 },
      },
    ],
    get: {
      operationId: 'getHost',
      summary:
        'An origin in the crawl queue, with every document its last crawl read and its agents (publisher, admin)',
      security: TOKEN,
      responses: {
        '200': { description: 'The host.', content: json(ref('CrawlHostDetail')) },
        ...problem(400, 403, 404),
      },
    },
    delete: {
      operationId: 'removeHost',
      summary: 'Stop crawling an origin; its agents are tombstoned (admin)',
      security: TOKEN,
      responses: { '204': { description: 'Removed.' }, ...problem(400, 403, 404) },
    },
  },
  '/.well-known/ai-catalog.json': {
    get: {
      operationId: 'getAiCatalog',
      summary: "This registry's public agents as an AI Catalog (for other registries and crawlers)",
      security: OPTIONAL_TOKEN,
      responses: {
        '200': {
          description: 'Public agents only (no access groups, not retired, not flagged), whoever asks.',
          headers: { ETag: { schema: { type: 'string' } } },
          content: { 'application/ai-catalog+json': { schema: ref('AiCatalog') } },
        },
        '304': { description: 'Not modified (`If-None-Match` named the current ETag).' },
      },
    },
  },
  '/openapi.json': {
    get: {
      operationId: 'getOpenApi',
      summary: 'This document',
      security: OPTIONAL_TOKEN,
      responses: { '200': { description: 'The OpenAPI 3.1 document.', content: json({ type: 'object' }) } },
    },
  },
  '/healthz': {
    get: {
      operationId: 'health',
      summary: 'Liveness: the registry and its database answer',
      security: OPTIONAL_TOKEN,
      responses: { '200': { description: 'Healthy.', content: json(ref('Health')) }, ...problem(503) },
    },
  },
  '/metrics': {
    get: {
      operationId: 'metrics',
      summary: 'Prometheus metrics, text exposition format 0.0.4 (admin)',
      security: TOKEN,
      responses: {
        '200': { description: 'The metrics.', content: { 'text/plain': { schema: { type: 'string' } } } },
        ...problem(403),
      },
    },
  },
};

export function openApiDocumentBefore(options: OpenApiOptions): JsonObject {
  return {
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
    servers: [{ url: options.baseUrl.replace(/\/+$/, '') || '/' }],
    security: OPTIONAL_TOKEN,
    paths: withCommonProblems(structuredClone(PATHS)),
    components: {
      schemas: structuredClone(COMPONENT_SCHEMAS),
      responses: structuredClone(RESPONSES),
      securitySchemes: {
        bearerToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API token from POST /admin/tokens (or the admin token).',
        },
      },
    },
  };
}

/**
 * The problems any operation may answer, added to each: every request is authenticated (an unknown or revoked
 * token is 401, even where none is needed) and rate limited (429); every body is read the same way (400 for
 * malformed JSON, 413 past the size limit, 415 when it is not JSON).
 */
function withCommonProblems(paths: JsonObject): JsonObject {
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item as JsonObject)) {
      const op = operation as JsonObject;
      const statuses = op['requestBody'] === undefined ? [401, 429] : [400, 401, 413, 415, 429];
      const responses = { ...problem(...statuses), ...(op['responses'] as JsonObject) };
      op['responses'] = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
    }
  }
  return paths;
}
