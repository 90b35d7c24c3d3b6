/**
 * The component schemas of the registry's OpenAPI document (JSON Schema 2020-12, as OpenAPI 3.1 uses). The
 * request schemas of resolve and the gateway are the very ones their code validates with.
 */
import type { JsonObject } from '@agentry/core';
import { MAX_FILTER_VALUES } from '../api/list-limits.js';
import { INVOKE_BODY_SCHEMA } from '../gateway/request.js';
import { AUTH_TYPES, RESOLVE_REQUEST_SCHEMA } from '../resolve/index.js';

const ref = (name: string): JsonObject => ({ $ref: `#/components/schemas/${name}` });
const strings: JsonObject = { type: 'array', items: { type: 'string' } };
const jsonSchema: JsonObject = { description: 'A JSON Schema (2020-12).', type: ['object', 'boolean'] };

/** A component schema without the `$schema` member a standalone schema document carries. */
function component(schema: JsonObject): JsonObject {
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

/** AIDIP §3.1's free status word, as stored (lower-cased); the registry acts on the four it knows. */
const STATUS: JsonObject = {
  type: 'string',
  minLength: 1,
  maxLength: 64,
  description:
    'Lifecycle status (AIDIP §3.1), lower-cased: active, inactive, deprecated, retired, or any other word the publisher chose (maintenance, beta …).',
  examples: ['active', 'deprecated', 'maintenance'],
};

/** A filter's values: at most `MAX_FILTER_VALUES` (api/list-limits.ts), all of which must match. */
const filterValues: JsonObject = { type: 'array', items: { type: 'string' }, maxItems: MAX_FILTER_VALUES };

/** The schemas by name; the names are a type, so that the route table cannot name one that is not here. */
const named = <K extends string>(schemas: Record<K, JsonObject>): Readonly<Record<K, JsonObject>> => schemas;

export const COMPONENT_SCHEMAS = named({
  Problem: {
    type: 'object',
    description:
      'RFC 9457 problem details, carrying the AIDIP error object (§5.2) as `error` in the same body.',
    required: ['type', 'title', 'status', 'detail', 'code', 'error'],
    properties: {
      type: { type: 'string', format: 'uri' },
      title: { type: 'string' },
      status: { type: 'integer', minimum: 100, maximum: 599 },
      detail: { type: 'string' },
      instance: { type: 'string' },
      code: {
        type: 'string',
        description: 'AIDIP-style code: InvalidInput, Unauthorized, NotFound, RateLimited, …',
      },
      pointer: { type: 'string', description: 'JSON pointer of the offending input.' },
      errors: {
        type: 'array',
        description:
          'Each failure with its pointer: the first 100 at most (`errors_truncated` counts the rest).',
        maxItems: 100,
        items: {
          type: 'object',
          required: ['pointer', 'detail'],
          properties: {
            pointer: { type: 'string' },
            detail: { type: 'string' },
            code: { type: 'string' },
            severity: { type: 'string', enum: ['error', 'warning'] },
          },
        },
      },
      errors_truncated: {
        type: 'integer',
        minimum: 1,
        description: 'How many failures `errors` leaves out (present only when it leaves some out).',
      },
      error: {
        type: 'object',
        required: ['code', 'message'],
        properties: { code: { type: 'string' }, message: { type: 'string' } },
      },
    },
  },
  Authentication: {
    type: 'object',
    description: 'AIDIP §3.1 `authentication`.',
    properties: {
      type: { type: 'string', examples: ['api_key', 'oauth2_bearer', 'mtls', 'none'] },
      instructions: { type: 'string' },
      scopes: strings,
    },
  },
  Operation: {
    type: 'object',
    description: 'AIDIP §3.2 operation.',
    required: ['name'],
    properties: {
      name: { type: 'string' },
      description: { type: 'string' },
      inputs: jsonSchema,
      outputs: jsonSchema,
      examples: {
        type: 'array',
        items: { type: 'object', properties: { input: {}, output: {} } },
      },
    },
  },
  SafetyFlag: {
    type: 'object',
    required: ['rule', 'pointer', 'excerpt'],
    properties: {
      rule: {
        type: 'string',
        enum: [
          'instruction-override',
          'role-injection',
          'exfiltration',
          'tool-coercion',
          'hidden-text',
          'encoded-instructions',
          'active-content',
        ],
      },
      pointer: { type: 'string' },
      excerpt: { type: 'string' },
    },
  },
  AgentMetadata: {
    type: 'object',
    description:
      'AIDIP §3 agent metadata, with what the registry adds: `flagged`, `safety_flags`, `quality_score` and `registry`.',
    required: ['id', 'name', 'description'],
    properties: {
      id: { type: 'string' },
      name: { type: 'string' },
      description: { type: 'string' },
      version: { type: 'string' },
      publisher: { type: 'string' },
      capabilities: strings,
      tags: strings,
      endpoint: { type: 'string', format: 'uri' },
      supported_languages: strings,
      authentication: ref('Authentication'),
      status: { type: 'string' },
      operations: { type: 'array', items: ref('Operation') },
      inputs: jsonSchema,
      outputs: jsonSchema,
      flagged: { type: 'boolean' },
      safety_flags: { type: 'array', items: ref('SafetyFlag') },
      quality_score: { type: 'number', minimum: 0, maximum: 1 },
      registry: {
        type: 'object',
        properties: {
          owner: { type: 'string' },
          revision: { type: 'integer' },
          created_at: { type: 'string', format: 'date-time' },
          updated_at: { type: 'string', format: 'date-time' },
          quality: ref('Quality'),
          access: { type: 'object', properties: { groups: strings } },
          sources: {
            type: 'array',
            description:
              'Where the description came from, primary first: one item per document (docs/registry.md, "Identity").',
            items: ref('AgentSource'),
          },
        },
      },
    },
  },
  AgentSource: {
    type: 'object',
    required: ['format', 'arrived', 'by', 'at', 'verified', 'signature'],
    properties: {
      format: { type: 'string' },
      url: { type: 'string', description: 'Where it was read; absent for a description posted to the API.' },
      arrived: { type: 'string', enum: ['registered', 'crawled', 'imported'] },
      by: { type: 'string', description: 'The publisher that registered it, or `crawler:<host>`.' },
      at: { type: 'string', format: 'date-time', description: 'When it was registered or fetched.' },
      verified: {
        type: 'boolean',
        description: "Vouched for by the agent's side (its own origin served it, or its signature checked).",
      },
      signature: {
        type: 'string',
        enum: ['verified', 'failed', 'unchecked', 'none'],
        description:
          "The description's signature: checked and valid, checked and failed, present but not checked, or none.",
      },
      signature_detail: { type: 'string', description: 'What the signature check found.' },
    },
  },
  Quality: {
    type: 'object',
    required: ['ratings', 'invocations', 'failures', 'verified'],
    properties: {
      score: { type: 'number', minimum: 0, maximum: 1 },
      ratings: { type: 'integer', minimum: 0 },
      invocations: { type: 'integer', minimum: 0 },
      failures: { type: 'integer', minimum: 0 },
      verified: { type: 'boolean' },
      latency_p50_ms: { type: 'number' },
      last_seen_at: { type: 'string', format: 'date-time' },
    },
  },
  AgentSummary: {
    type: 'object',
    description: 'AIDIP §4.3.1 summary object; search results add `score` and `why`.',
    required: ['id', 'name', 'description', 'endpoint', 'status'],
    properties: {
      id: { type: 'string' },
      name: { type: 'string' },
      description: { type: 'string' },
      version: { type: 'string' },
      publisher: { type: 'string' },
      capabilities: strings,
      tags: strings,
      supported_languages: strings,
      endpoint: { type: 'string' },
      status: STATUS,
      flagged: { type: 'boolean' },
      safety_flags: { type: 'array', items: ref('SafetyFlag') },
      quality_score: {
        type: 'number',
        minimum: 0,
        maximum: 1,
        description:
          'Quality, 0..1: ratings and gateway outcomes (a Beta(1, 1) mean); absent until there is evidence.',
      },
      updated_at: { type: 'string', format: 'date-time' },
      score: {
        type: 'number',
        description:
          'Search relevance, comparable within one answer only: hybrid and semantic, standard deviations above the average candidate the caller may see (negative below it); lexical, the BM25 score (positive). Not 0..1.',
      },
      why: strings,
    },
  },
  Tombstone: {
    type: 'object',
    description: 'A deleted agent, in `updated_since` listings.',
    required: ['id', 'deleted', 'deleted_at'],
    properties: {
      id: { type: 'string' },
      deleted: { const: true },
      deleted_at: { type: 'string', format: 'date-time' },
    },
  },
  Registration: {
    description:
      'An agent description in any format Agentry reads (AIDIP metadata, WoA, AWP, A2A AgentCard, agent:// descriptor, WoT TD, MCP server.json), optionally with a top-level `access: {groups}`; or an envelope `{document, access?, format?}`.',
    type: 'object',
  },
  RegistrationResults: {
    type: 'object',
    description: 'The answer to `POST /agents?all=true`: one entry per agent of the document.',
    required: ['results'],
    properties: {
      results: {
        type: 'array',
        items: {
          type: 'object',
          required: ['id', 'result', 'location', 'metadata'],
          properties: {
            id: { type: 'string' },
            result: { type: 'string', enum: ['created', 'updated', 'unchanged'] },
            location: { type: 'string', format: 'uri' },
            metadata: ref('AgentMetadata'),
          },
        },
      },
    },
  },
  SearchRequest: {
    type: 'object',
    description:
      'AIDIP §4.3.1 and §4.3.2: filters (AND, set inclusion) and an optional natural-language query.',
    additionalProperties: false,
    properties: {
      query: { type: ['string', 'null'], maxLength: 2000 },
      filters: {
        type: ['object', 'null'],
        additionalProperties: false,
        properties: {
          capabilities: filterValues,
          tags: filterValues,
          supported_languages: filterValues,
          supported_language: { type: 'string' },
          languages: filterValues,
          language: { type: 'string' },
          status: { oneOf: [STATUS, { type: 'array', items: STATUS }] },
        },
      },
      top: { type: 'integer', minimum: 1, maximum: 100, default: 10 },
      mode: { type: 'string', enum: ['hybrid', 'lexical', 'semantic'] },
    },
  },
  Feedback: {
    type: 'object',
    required: ['rating', 'outcome'],
    additionalProperties: false,
    properties: {
      rating: { type: 'integer', minimum: 1, maximum: 5 },
      outcome: { type: 'string', enum: ['success', 'failure'] },
      comment: { type: 'string', maxLength: 2000 },
    },
  },
  FeedbackResult: {
    type: 'object',
    required: ['id', 'quality_score', 'ratings'],
    properties: {
      id: { type: 'string' },
      quality_score: { type: ['number', 'null'] },
      ratings: { type: 'integer' },
    },
  },
  History: {
    type: 'object',
    required: ['id', 'entries'],
    properties: {
      id: { type: 'string' },
      entries: {
        type: 'array',
        items: {
          type: 'object',
          required: ['revision', 'action', 'actor', 'at'],
          properties: {
            revision: { type: 'integer' },
            action: { type: 'string' },
            actor: { type: 'string' },
            at: { type: 'string', format: 'date-time' },
            agent: { type: 'object', description: 'The canonical agent after the change.' },
          },
        },
      },
    },
  },
  InvokeRequest: component(INVOKE_BODY_SCHEMA),
  ResolveRequest: component(RESOLVE_REQUEST_SCHEMA),
  ResolveResponse: {
    type: 'object',
    required: ['intent', 'candidates', 'filtered', 'considered', 'untrusted'],
    properties: {
      intent: { type: 'string' },
      candidates: { type: 'array', items: ref('ResolveCandidate') },
      filtered: {
        type: 'object',
        required: ['count', 'reasons'],
        properties: {
          count: { type: 'integer', minimum: 0 },
          reasons: {
            type: 'object',
            description:
              'Why candidates were removed: status, flagged, language, auth, transport, trust, quality, verified.',
            additionalProperties: { type: 'integer' },
          },
        },
      },
      considered: { type: 'integer', minimum: 0 },
      untrusted: {
        ...strings,
        description:
          "Pointers (`*` for any index) of members holding publishers' text: untrusted input for a model.",
      },
    },
  },
  ResolveCandidate: {
    type: 'object',
    required: [
      'id',
      'name',
      'description',
      'score',
      'why',
      'status',
      'trust',
      'operation',
      'operations',
      'binding',
      'auth',
      'invoke',
    ],
    properties: {
      id: { type: 'string' },
      name: { type: 'string' },
      description: { type: 'string' },
      score: {
        type: 'number',
        minimum: 0,
        maximum: 1,
        description:
          'Relevance, 0..1: the logistic of the search score (0.5 an average candidate, 0.73 one standard deviation above), times the demotions and language factor told in `why`, capped at 1.',
      },
      why: strings,
      status: STATUS,
      trust: {
        type: 'number',
        minimum: 0,
        maximum: 1,
        description:
          'Provenance trust, 0..1: how far the registry can vouch for where the description came from.',
      },
      quality_score: {
        type: 'number',
        minimum: 0,
        maximum: 1,
        description:
          'Quality, 0..1: ratings and gateway outcomes (a Beta(1, 1) mean); absent until there is evidence.',
      },
      languages: strings,
      flagged: { type: 'boolean' },
      operation: {
        oneOf: [
          { type: 'null' },
          {
            type: 'object',
            required: ['name', 'score'],
            properties: {
              name: { type: 'string' },
              title: { type: 'string' },
              description: { type: 'string' },
              score: {
                type: 'number',
                minimum: 0,
                maximum: 1,
                description:
                  "0..1: the weighted share of the intent's words the operation mentions (1: all, in its name).",
              },
              input_schema: jsonSchema,
              output_schema: jsonSchema,
              requires_confirmation: { type: 'boolean' },
            },
          },
        ],
      },
      operations: {
        type: 'array',
        items: {
          type: 'object',
          required: ['name', 'score'],
          properties: { name: { type: 'string' }, score: { type: 'number', minimum: 0, maximum: 1 } },
        },
      },
      binding: {
        oneOf: [
          { type: 'null' },
          {
            type: 'object',
            required: ['kind', 'endpoint'],
            properties: {
              kind: {
                type: 'string',
                enum: ['woa-rest', 'http', 'mcp', 'a2a', 'wss', 'unix', 'local', 'other'],
              },
              endpoint: { type: 'string' },
              method: { type: 'string' },
              transport: { type: 'string' },
              envelope: { type: 'boolean' },
              tool: { type: 'string' },
              content_type: { type: 'string' },
            },
          },
        ],
      },
      auth: {
        type: 'object',
        required: ['required', 'types', 'scopes', 'alternatives'],
        properties: {
          required: { type: 'boolean' },
          types: { type: 'array', items: { type: 'string', enum: [...AUTH_TYPES] } },
          scopes: strings,
          alternatives: {
            type: 'array',
            items: {
              type: 'object',
              required: ['schemes', 'scopes'],
              properties: {
                schemes: {
                  type: 'array',
                  items: {
                    type: 'object',
                    required: ['id', 'type'],
                    properties: {
                      id: { type: 'string' },
                      type: { type: 'string', enum: [...AUTH_TYPES] },
                      in: { type: 'string' },
                      name: { type: 'string' },
                    },
                  },
                },
                scopes: strings,
              },
            },
          },
          instructions: { type: 'string' },
        },
      },
      invoke: {
        type: 'object',
        required: ['gateway'],
        properties: { gateway: { type: 'string' }, uri: { type: 'string' } },
      },
    },
  },
  TokenRequest: {
    type: 'object',
    additionalProperties: false,
    properties: {
      role: {
        type: 'string',
        enum: ['publisher', 'client'],
        description: 'Default: publisher when `publisher` is given, else client.',
      },
      publisher: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._:@-]{0,63}$' },
      groups: {
        type: 'array',
        maxItems: 32,
        items: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._:@-]{0,63}$' },
      },
    },
  },
  Token: {
    type: 'object',
    required: ['id', 'token', 'role', 'publisher', 'groups', 'created_at'],
    properties: {
      id: { type: 'string' },
      token: { type: 'string', description: 'Shown once; the registry stores only its hash.' },
      role: { type: 'string', enum: ['publisher', 'client'] },
      publisher: { type: ['string', 'null'] },
      groups: strings,
      created_at: { type: 'string', format: 'date-time' },
    },
  },
  ImportSources: {
    type: 'object',
    required: ['imports'],
    properties: {
      imports: {
        type: 'array',
        items: {
          type: 'object',
          required: ['base_url', 'agents'],
          properties: {
            base_url: { type: 'string', format: 'uri' },
            kind: { type: 'string', enum: ['mcp-registry', 'agentry'] },
            updated_since: {
              type: 'string',
              format: 'date-time',
              description: 'What the next import asks for changes since.',
            },
            last_imported_at: {
              type: 'string',
              format: 'date-time',
              description: 'When the last import completed.',
            },
            agents: {
              type: 'integer',
              minimum: 0,
              description: "Entries with a description imported from the source's host.",
            },
            last_run: {
              type: 'object',
              required: ['at', 'ok'],
              description: 'The newest run, done or failed (from the audit log, action `import.run`).',
              properties: {
                at: { type: 'string', format: 'date-time' },
                ok: { type: 'boolean' },
                imported: { type: 'integer', minimum: 0 },
                deleted: { type: 'integer', minimum: 0 },
                skipped: { type: 'integer', minimum: 0 },
                unreadable: { type: 'integer', minimum: 0 },
                error: { type: 'string' },
              },
            },
          },
        },
      },
    },
  },
  TokenList: {
    type: 'object',
    required: ['tokens'],
    properties: {
      tokens: {
        type: 'array',
        items: {
          type: 'object',
          required: ['id', 'role', 'publisher', 'groups', 'created_at'],
          properties: {
            id: { type: 'string' },
            role: { type: 'string', enum: ['admin', 'publisher', 'client'] },
            publisher: { type: ['string', 'null'] },
            groups: strings,
            created_at: { type: 'string', format: 'date-time' },
          },
        },
      },
      next_before: { type: 'string', description: 'Pass as `before` for the next (older) page.' },
    },
  },
  Facets: {
    type: 'object',
    required: ['total', 'facets'],
    properties: {
      total: { type: 'integer', minimum: 0, description: 'Agents matching the filters (and the query).' },
      ranked: {
        type: 'integer',
        description: 'With `q`: the counts are over at most this many of its best-ranked matches.',
      },
      facets: {
        type: 'object',
        required: ['tags', 'capabilities', 'languages', 'status', 'sources', 'formats', 'transports', 'auth'],
        description:
          "`sources`: how the descriptions arrived (registered, crawled, imported); `formats`: the formats they were read in; `transports`: the kinds of the agents' bindings; `auth`: the kinds of authentication they declare (`none` for none). An agent counts once per value.",
        additionalProperties: {
          type: 'array',
          items: {
            type: 'object',
            required: ['value', 'count'],
            properties: { value: { type: 'string' }, count: { type: 'integer', minimum: 0 } },
          },
        },
      },
    },
  },
  AuditLog: {
    type: 'object',
    required: ['entries'],
    properties: {
      entries: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            seq: { type: 'integer' },
            at: { type: 'string', format: 'date-time' },
            actor: { type: 'string' },
            action: { type: 'string' },
            target: { type: 'string' },
            details: {},
          },
        },
      },
      next_before: { type: 'integer', description: 'Pass as `before` for the next (older) page.' },
    },
  },
  HostRequest: {
    type: 'object',
    required: ['origin'],
    additionalProperties: false,
    properties: {
      origin: {
        type: 'string',
        description: 'scheme://host[:port]; a bare host name means https. A path is ignored.',
        examples: ['https://agents.example.com'],
      },
      now: {
        type: 'boolean',
        description:
          'Make an origin already queued due at once ("crawl now"); a new origin is due at once anyway.',
      },
    },
  },
  CrawlHost: {
    type: 'object',
    description: 'An origin in the crawl queue and how its crawls went.',
    required: ['origin', 'state', 'next_due_at', 'failures', 'crawls', 'agents', 'documents'],
    properties: {
      origin: { type: 'string' },
      state: {
        type: 'string',
        enum: ['idle', 'claimed'],
        description: '`claimed` while a crawler is on it.',
      },
      added_by: { type: 'string', description: 'The token id that added it (or `cli`, `discovered`).' },
      added_at: { type: 'string', format: 'date-time' },
      next_due_at: { type: 'string', format: 'date-time' },
      last_crawled_at: { type: ['string', 'null'], format: 'date-time' },
      last_outcome: {
        type: ['string', 'null'],
        enum: ['changed', 'unchanged', 'unreachable', 'error', null],
      },
      failures: { type: 'integer', minimum: 0, description: 'Crawls in a row that failed.' },
      last_error: { type: ['string', 'null'] },
      crawls: { type: 'integer', minimum: 0 },
      agents: { type: 'integer', minimum: 0, description: 'Active agents crawled from it.' },
      documents: { type: 'integer', minimum: 0, description: 'Documents read at the last crawl.' },
    },
  },
  HostAdded: {
    allOf: [
      ref('CrawlHost'),
      {
        type: 'object',
        required: ['crawling'],
        properties: {
          crawling: {
            type: 'boolean',
            description:
              'Whether this registry crawls its queue in the background (`agentry serve --crawl`). When false, the origin waits until a crawler runs on its database.',
          },
          warning: {
            type: 'string',
            description:
              'Present when `crawling` is false: what that means and how to have the origin crawled.',
          },
        },
      },
    ],
  },
  CrawlHostDetail: {
    allOf: [
      ref('CrawlHost'),
      {
        type: 'object',
        properties: {
          document_records: {
            type: 'array',
            items: {
              type: 'object',
              required: ['url', 'status'],
              properties: {
                url: { type: 'string', format: 'uri' },
                status: { type: 'string', enum: ['ok', 'not-modified', 'missing', 'failed', 'skipped'] },
                kind: { type: ['string', 'null'] },
                http_status: { type: ['integer', 'null'] },
                reason: { type: ['string', 'null'] },
                source: { type: 'string', enum: ['native', 'synthetic'] },
                fetched_at: { type: 'string', format: 'date-time' },
                expires_at: { type: 'string', format: 'date-time' },
                etag: { type: ['string', 'null'] },
                last_modified: { type: ['string', 'null'] },
                lifetime_seconds: { type: ['integer', 'null'] },
                linked_from: { type: ['string', 'null'] },
                agent_ids: strings,
                issues: strings,
              },
            },
          },
          agent_states: {
            type: 'array',
            items: {
              type: 'object',
              required: ['agent_id', 'state'],
              properties: {
                agent_id: { type: 'string', description: "The agent's id on its origin." },
                registry_id: {
                  type: ['string', 'null'],
                  description: 'The id it is served under (`GET /agents/{id}`); null once tombstoned.',
                },
                state: { type: 'string', enum: ['active', 'inactive', 'tombstoned'] },
                inactive_reason: { type: ['string', 'null'], enum: ['missing', 'unreachable', null] },
                liveness: {
                  type: ['object', 'null'],
                  properties: {
                    status: { type: 'string', enum: ['up', 'down', 'unknown'] },
                    checked_at: { type: ['string', 'null'] },
                    last_seen_at: { type: ['string', 'null'] },
                    latency_ms: { type: ['integer', 'null'] },
                  },
                },
              },
            },
          },
        },
      },
    ],
  },
  AiCatalog: {
    type: 'object',
    description: "This registry's public agents as an AI Catalog; each entry links to the agent's A2A card.",
    required: ['specVersion', 'host', 'entries'],
    properties: {
      specVersion: { const: '1.0' },
      host: {
        type: 'object',
        properties: { displayName: { type: 'string' }, identifier: { type: 'string', format: 'uri' } },
      },
      entries: {
        type: 'array',
        items: {
          type: 'object',
          required: ['identifier', 'displayName', 'type', 'url'],
          properties: {
            identifier: { type: 'string' },
            displayName: { type: 'string' },
            type: { const: 'application/a2a-agent-card+json' },
            url: { type: 'string', format: 'uri' },
            updatedAt: { type: 'string', format: 'date-time' },
            description: { type: 'string' },
            version: { type: 'string' },
            tags: strings,
            capabilities: strings,
          },
        },
      },
    },
  },
  Health: {
    type: 'object',
    required: ['status', 'version'],
    properties: { status: { const: 'ok' }, version: { type: 'string' } },
  },
});
