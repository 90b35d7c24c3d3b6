/**
 * `createRegistryClient`: typed calls to an Agentry registry's HTTP API (AIDIP's registration, listing, search,
 * retrieval, gateway and resolution, and Agentry's feedback, history, crawl queue, tokens, audit and catalog).
 * Requests go through the fetch given: a secure fetcher (its SSRF and HTTPS policy, as for a remote registry) or
 * a `fetch` function (default: the global one, for a registry the caller chose, such as one on this machine).
 * Failures are the typed errors of errors.ts.
 */
import { isObject, parseJsonText, trimTrailingSlash } from '@agentry/core';
import type { SecureFetcher } from '../fetch/types.js';
import { BadRegistryResponseError, RegistryError, RegistryUnreachableError } from './errors.js';
import type {
  AgentDocument,
  AgentHistory,
  AgentListItem,
  AgentMetadata,
  AgentPage,
  AgentSummary,
  AiCatalog,
  AuditLog,
  AuditQuery,
  CrawlHost,
  CrawlHostDetail,
  Facets,
  FacetsQuery,
  Feedback,
  FeedbackResult,
  Health,
  HostAdded,
  HostsQuery,
  InvokeAnswer,
  InvokeThroughRegistry,
  ListAgentsQuery,
  RegisterOptions,
  Registration,
  RegistrationResults,
  ResolveRequest,
  ResolveResponse,
  SearchRequest,
  Token,
  TokenRequest,
} from './types.js';

/** A `fetch` function (the global one, or one that adds what the caller needs). */
export type FetchFunction = (input: string, init: RequestInit) => Promise<Response>;

export interface RegistryClientOptions {
  /** The registry's base URL, e.g. `https://registry.example.com` (a path prefix is kept). */
  baseUrl: string;
  /** A registry token, sent as `Authorization: Bearer` to the registry's origin only. */
  token?: string;
  /**
   * How requests are sent: a secure fetcher (its policy applies: HTTPS, public addresses, redirects re-checked;
   * answers are not cached) or a fetch function. Default: the global `fetch`.
   */
  fetch?: SecureFetcher | FetchFunction;
  /**
   * Time allowed per request with a fetch function (default 60 s); a secure fetcher's own policy limits its
   * requests unless this is given.
   */
  timeoutMs?: number;
}

export interface CallOptions {
  signal?: AbortSignal;
}

/** An answer as it came: for `request`, the one call the typed methods are built on. */
export interface RegistryAnswer<Body = unknown> {
  url: string;
  status: number;
  headers: Headers;
  /** The JSON body; undefined when the body is empty. */
  body: Body;
  text: string;
}

export interface RegistryRequest extends CallOptions {
  method?: string;
  /** Query parameters; undefined ones are left out, arrays repeated. */
  query?: Readonly<Record<string, string | number | boolean | readonly string[] | undefined>>;
  /** A JSON body. */
  body?: unknown;
  headers?: Record<string, string>;
  /** The success statuses the call expects (default: any 2xx). */
  expect?: readonly number[];
  /** Whether a success answer must be JSON (default true; false keeps a non-JSON body as text). */
  json?: boolean;
}

export interface RegistryClient {
  /** The base URL, without a trailing slash. */
  readonly baseUrl: string;
  /** `GET /agents`: a page of agents (filters, `q` search, `updatedSince` for mirrors). */
  listAgents(query?: ListAgentsQuery, options?: CallOptions): Promise<AgentPage<AgentListItem>>;
  /** The page after `page` (its `next`), or undefined after the last. */
  nextPage(
    page: AgentPage<AgentListItem>,
    options?: CallOptions,
  ): Promise<AgentPage<AgentListItem> | undefined>;
  /** Every page of `GET /agents`, one after the other, up to `maxPages` (default 10,000). */
  pages(
    query?: ListAgentsQuery,
    options?: CallOptions & { maxPages?: number },
  ): AsyncGenerator<AgentPage<AgentListItem>, void, undefined>;
  /** `POST /agents/search`: summary objects for a need, best first. */
  searchAgents(request: SearchRequest, options?: CallOptions): Promise<AgentSummary[]>;
  /** `GET /agents/{id}`: the agent's AIDIP metadata. */
  getAgent(id: string, options?: CallOptions): Promise<AgentMetadata>;
  /** `GET /agents/{id}?format=…`: the agent in another format (a WoA document, an A2A card, a TD…). */
  getAgentAs(id: string, format: string, options?: CallOptions): Promise<unknown>;
  /** `POST /agents`: registers a description in any format Agentry reads. */
  registerAgent(document: AgentDocument, options?: RegisterOptions & CallOptions): Promise<Registration>;
  /** `PUT /agents/{id}`: replaces an agent's description. */
  updateAgent(
    id: string,
    document: AgentDocument,
    options?: Omit<RegisterOptions, 'all'> & CallOptions,
  ): Promise<AgentMetadata>;
  /** `DELETE /agents/{id}` (a tombstone remains for mirrors). */
  deleteAgent(id: string, options?: CallOptions): Promise<void>;
  /** `GET /agents/{id}/history` (owner and admin). */
  agentHistory(id: string, options?: CallOptions): Promise<AgentHistory>;
  /** `POST /agents/{id}/feedback`: rates an invocation. */
  rateAgent(id: string, feedback: Feedback, options?: CallOptions): Promise<FeedbackResult>;
  /** `POST /agents/{id}/invoke`: calls the agent through the registry's gateway. */
  invokeAgent(
    id: string,
    input: unknown,
    options?: InvokeThroughRegistry & CallOptions,
  ): Promise<InvokeAnswer>;
  /** `POST /resolve`: candidates for an intent, with what a client needs to call them. */
  resolve(request: ResolveRequest, options?: CallOptions): Promise<ResolveResponse>;
  /** `GET /facets`: how many agents have each tag, capability, language, status, source and format. */
  facets(query?: FacetsQuery, options?: CallOptions): Promise<Facets>;
  /** `GET /hosts`: a page of the crawl queue (publisher, admin). */
  listHosts(
    query?: HostsQuery,
    options?: CallOptions,
  ): Promise<{ items: CrawlHost[]; cursor?: string; headers: Headers }>;
  /** `POST /hosts`: queues an origin to crawl (publisher, admin). */
  addHost(origin: string, options?: { now?: boolean } & CallOptions): Promise<HostAdded>;
  /** `GET /hosts/{origin}`: an origin's crawl state, documents and agents. */
  getHost(origin: string, options?: CallOptions): Promise<CrawlHostDetail>;
  /** `DELETE /hosts/{origin}`: stops crawling it; its agents are tombstoned (admin). */
  removeHost(origin: string, options?: CallOptions): Promise<void>;
  /** `POST /admin/tokens`: a new API token, shown this once (admin). */
  createToken(request?: TokenRequest, options?: CallOptions): Promise<Token>;
  /** `DELETE /admin/tokens/{id}` (admin). */
  revokeToken(id: string, options?: CallOptions): Promise<void>;
  /** `GET /admin/audit`: the audit log, newest first (admin). */
  audit(query?: AuditQuery, options?: CallOptions): Promise<AuditLog>;
  /** `GET /.well-known/ai-catalog.json`: the public agents as an AI Catalog. */
  catalog(options?: CallOptions): Promise<AiCatalog>;
  /** `GET /healthz`. */
  health(options?: CallOptions): Promise<Health>;
  /** `GET /openapi.json`: the API's OpenAPI 3.1 document. */
  openApi(options?: CallOptions): Promise<Record<string, unknown>>;
  /** One call to a path under the base URL, or to an absolute URL; a failure status throws a `RegistryError`. */
  request<Body = unknown>(path: string, init?: RegistryRequest): Promise<RegistryAnswer<Body>>;
}

const DEFAULT_TIMEOUT_MS = 60_000;
/** Pages `pages()` reads at most, so that a registry answering with endless cursors cannot keep a caller going. */
const DEFAULT_MAX_PAGES = 10_000;
/** Where list answers of registries keep their items, when the answer is not the list itself. */
const ITEM_KEYS = ['agents', 'items', 'data', 'results'];

/**
 * A client of the registry at `baseUrl`.
 *
 * @example
 * ```ts
 * import { createRegistryClient, RegistryError } from '@agentry/client';
 *
 * const registry = createRegistryClient({ baseUrl: 'https://registry.example.com', token: 'a-publisher-token' });
 * const hits = await registry.searchAgents({ query: 'translate a contract into German', top: 3 });
 * console.log(hits.map((hit) => `${hit.id} ${hit.score}`));
 * try {
 *   const { created, body } = await registry.registerAgent(
 *     { name: 'Translator', description: 'Translates text.', endpoint: 'https://translator.example.com/invoke' },
 *     { groups: ['team-a'] },
 *   );
 *   console.log(created ? 'registered' : 'updated', body);
 * } catch (error) {
 *   if (!(error instanceof RegistryError)) throw error;
 *   console.error(error.status, error.code, error.detail); // 403 Forbidden …
 * }
 * ```
 */
export function createRegistryClient(options: RegistryClientOptions): RegistryClient {
  const baseUrl = trimTrailingSlash(options.baseUrl);
  if (!URL.canParse(baseUrl)) throw new TypeError(`The registry's base URL must be a URL, not "${baseUrl}".`);
  const origin = new URL(baseUrl).origin;
  const send = sender(options);

  const urlOf = (path: string, query: RegistryRequest['query'] = {}): string => {
    const url = new URL(path.replace(/^\//, ''), `${baseUrl}/`);
    for (const [name, value] of Object.entries(query)) {
      if (value === undefined || value === '') continue;
      if (Array.isArray(value)) for (const item of value) url.searchParams.append(name, String(item));
      else url.searchParams.set(name, String(value));
    }
    return url.href;
  };

  async function request<Body>(path: string, init: RegistryRequest = {}): Promise<RegistryAnswer<Body>> {
    const url = /^https?:\/\//i.test(path) ? path : urlOf(path, init.query);
    const method = init.method ?? (init.body === undefined ? 'GET' : 'POST');
    const headers: Record<string, string> = { accept: 'application/json', ...init.headers };
    // The token is the registry's: never sent to another origin a `Link` header may name.
    if (options.token !== undefined && options.token !== '' && new URL(url).origin === origin) {
      headers['authorization'] = `Bearer ${options.token}`;
    }
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await send(url, {
        method,
        headers,
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
        ...(init.signal === undefined ? {} : { signal: init.signal }),
      });
    } catch (error) {
      if (init.signal?.aborted) throw init.signal.reason;
      const why = error instanceof Error ? error.message : String(error);
      throw new RegistryUnreachableError(`Cannot reach the registry at ${baseUrl}: ${why}`, url, error);
    }
    const text = await response.text();
    // An empty body is no JSON where JSON is expected, and nothing at all otherwise.
    const parsed = text === '' && (init.json === false || !response.ok) ? undefined : parseJsonText(text);
    const details = { url, status: response.status, text };
    if (!response.ok) {
      const body = parsed === undefined ? undefined : parsed.ok ? parsed.value : text;
      throw new RegistryError(failureMessage(baseUrl, response.status, body), { ...details, body });
    }
    if (init.expect !== undefined && !init.expect.includes(response.status)) {
      throw new BadRegistryResponseError(
        `${url} answered HTTP ${response.status}: ${text.slice(0, 200)}`,
        details,
        'status',
      );
    }
    if (parsed !== undefined && !parsed.ok && init.json !== false) {
      throw new BadRegistryResponseError(
        `${url} did not answer JSON: ${parsed.issue.message}`,
        { ...details, body: text },
        'not-json',
      );
    }
    const body = parsed === undefined ? undefined : parsed.ok ? parsed.value : text;
    return { url, status: response.status, headers: response.headers, body: body as Body, text };
  }

  /** A JSON object answer, else a BadRegistryResponseError naming what was expected. */
  async function object<T>(path: string, what: string, init: RegistryRequest = {}): Promise<T> {
    const answer = await request(path, init);
    if (!isObject(answer.body)) throw shapeError(answer, what);
    return answer.body as T;
  }

  async function none(path: string, init: RegistryRequest): Promise<void> {
    await request(path, { ...init, json: false });
  }

  function agentPage(answer: RegistryAnswer, query: ListAgentsQuery): AgentPage<AgentListItem> {
    const items = itemsOf(answer.body);
    if (items === undefined) throw shapeError(answer, 'an agent list');
    const cursor = cursorOf(answer.body, answer.headers);
    const link = /<([^>]+)>\s*;\s*rel="?next"?/i.exec(answer.headers.get('link') ?? '')?.[1];
    const next =
      link !== undefined && URL.canParse(link, answer.url)
        ? new URL(link, answer.url).href
        : cursor === undefined
          ? undefined
          : listUrl({ ...query, cursor });
    return {
      url: answer.url,
      items: items as AgentListItem[],
      ...(cursor === undefined ? {} : { cursor }),
      ...(next === undefined ? {} : { next }),
      body: answer.body,
      headers: answer.headers,
    };
  }

  const listQuery = (query: ListAgentsQuery): RegistryRequest['query'] => ({
    capabilities: query.capabilities,
    tags: query.tags,
    language: query.language,
    status: query.status,
    q: query.q,
    mode: query.mode,
    updated_since: query.updatedSince,
    limit: query.limit,
    cursor: query.cursor,
  });
  const listUrl = (query: ListAgentsQuery): string => urlOf('/agents', listQuery(query));

  /** Each page remembers the query it was asked with, so that a cursor continues the same listing. */
  const queries = new WeakMap<AgentPage<AgentListItem>, ListAgentsQuery>();

  const client: RegistryClient = {
    baseUrl,
    request,

    async listAgents(query = {}, call = {}) {
      const answer = await request(listUrl(query), { ...call, expect: [200] });
      const page = agentPage(answer, query);
      queries.set(page, query);
      return page;
    },

    async nextPage(page, call = {}) {
      if (page.next === undefined) return undefined;
      const query = {
        ...(queries.get(page) ?? {}),
        ...(page.cursor === undefined ? {} : { cursor: page.cursor }),
      };
      const following = agentPage(await request(page.next, { ...call, expect: [200] }), query);
      queries.set(following, query);
      return following;
    },

    async *pages(query = {}, call = {}) {
      const { maxPages = DEFAULT_MAX_PAGES, ...rest } = call;
      let page: AgentPage<AgentListItem> | undefined = await client.listAgents(query, rest);
      for (let read = 1; page !== undefined; read++) {
        yield page;
        if (read >= maxPages) return;
        page = await client.nextPage(page, rest);
      }
    },

    async searchAgents(search, call = {}) {
      const answer = await request('/agents/search', { ...call, body: search });
      if (!Array.isArray(answer.body)) throw shapeError(answer, 'a list of agents');
      return answer.body as AgentSummary[];
    },

    getAgent: (id, call = {}) =>
      object<AgentMetadata>(agentPath(id), 'agent metadata', { ...call, expect: [200] }),

    async getAgentAs(id, format, call = {}) {
      return (await request(agentPath(id), { ...call, query: { format } })).body;
    },

    async registerAgent(document, { agent, all, format, groups, ...call } = {}) {
      const body = groups === undefined ? document : { document, access: { groups: [...groups] } };
      const answer = await request('/agents', {
        ...call,
        method: 'POST',
        query: { format, agent, all: all === true ? 'true' : undefined },
        body,
      });
      if (!isObject(answer.body)) throw shapeError(answer, 'the registered metadata');
      const location = answer.headers.get('location');
      return {
        status: answer.status,
        created: answer.status === 201,
        body: answer.body as AgentMetadata | RegistrationResults,
        ...(location === null ? {} : { location }),
      };
    },

    updateAgent: (id, document, { agent, format, groups, ...call } = {}) =>
      object<AgentMetadata>(agentPath(id), 'agent metadata', {
        ...call,
        method: 'PUT',
        query: { format, agent },
        body: groups === undefined ? document : { document, access: { groups: [...groups] } },
      }),

    deleteAgent: (id, call = {}) => none(agentPath(id), { ...call, method: 'DELETE' }),

    agentHistory: (id, call = {}) => object<AgentHistory>(`${agentPath(id)}/history`, 'a history', call),

    rateAgent: (id, feedback, call = {}) =>
      object<FeedbackResult>(`${agentPath(id)}/feedback`, 'a feedback result', { ...call, body: feedback }),

    async invokeAgent(id, input, options = {}) {
      const { operation, confirm, agentAuthorization, agentApiKey, headers, ...call } = options;
      const sent: Record<string, string> = { ...headers, 'x-agent-body': 'input' };
      if (confirm === true) sent['x-agent-confirmation'] = 'true';
      if (agentAuthorization !== undefined) sent['x-agent-authorization'] = agentAuthorization;
      if (agentApiKey !== undefined) sent['x-agent-api-key'] = agentApiKey;
      // `null` is an input too: the body is always sent.
      const answer = await request(`${agentPath(id)}/invoke`, {
        ...call,
        method: 'POST',
        query: { operation },
        body: input === undefined ? null : input,
        headers: sent,
        // An agent's output is JSON through the gateway; anything else is kept as its text.
        json: false,
      });
      const ran = answer.headers.get('x-agent-operation');
      return {
        output: answer.body as InvokeAnswer['output'],
        ...(ran === null ? {} : { operation: ran }),
        headers: answer.headers,
      };
    },

    resolve: (resolveRequest, call = {}) =>
      object<ResolveResponse>('/resolve', 'a resolve answer', { ...call, body: resolveRequest }),

    facets: (query = {}, call = {}) =>
      object<Facets>('/facets', 'facet counts', {
        ...call,
        query: {
          capabilities: query.capabilities,
          tags: query.tags,
          language: query.language,
          status: query.status,
          limit: query.limit,
        },
      }),

    async listHosts(query = {}, call = {}) {
      const answer = await request('/hosts', {
        ...call,
        query: { limit: query.limit, cursor: query.cursor },
      });
      if (!Array.isArray(answer.body)) throw shapeError(answer, 'a list of hosts');
      const cursor = cursorOf(answer.body, answer.headers);
      return {
        items: answer.body as CrawlHost[],
        ...(cursor === undefined ? {} : { cursor }),
        headers: answer.headers,
      };
    },

    addHost: (hostOrigin, { now, ...call } = {}) =>
      object<HostAdded>('/hosts', 'a queued host', {
        ...call,
        body: now === undefined ? { origin: hostOrigin } : { origin: hostOrigin, now },
      }),

    getHost: (hostOrigin, call = {}) =>
      object<CrawlHostDetail>(`/hosts/${encodeURIComponent(hostOrigin)}`, 'a host', call),

    removeHost: (hostOrigin, call = {}) =>
      none(`/hosts/${encodeURIComponent(hostOrigin)}`, { ...call, method: 'DELETE' }),

    createToken: (tokenRequest = {}, call = {}) =>
      object<Token>('/admin/tokens', 'a token', { ...call, body: tokenRequest }),

    revokeToken: (id, call = {}) =>
      none(`/admin/tokens/${encodeURIComponent(id)}`, { ...call, method: 'DELETE' }),

    audit: (query = {}, call = {}) =>
      object<AuditLog>('/admin/audit', 'an audit log', {
        ...call,
        query: { limit: query.limit, before: query.before, target: query.target, action: query.action },
      }),

    catalog: (call = {}) => object<AiCatalog>('/.well-known/ai-catalog.json', 'an AI Catalog', call),

    health: (call = {}) => object<Health>('/healthz', 'a health answer', call),

    openApi: (call = {}) => object<Record<string, unknown>>('/openapi.json', 'an OpenAPI document', call),
  };
  return client;
}

/** The function requests are sent with: the secure fetcher's (no cache: a registry's answers are read fresh), or a fetch function with a timeout. */
function sender(options: RegistryClientOptions): FetchFunction {
  const given = options.fetch;
  if (given !== undefined && typeof given !== 'function') {
    return async (url, init) => {
      const { response } = await given.fetch(url, {
        ...(init.method === undefined ? {} : { method: init.method }),
        headers: init.headers as Record<string, string>,
        ...(typeof init.body === 'string' ? { body: init.body } : {}),
        ...(init.signal ? { signal: init.signal } : {}),
        ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
        cacheMode: 'no-store',
      });
      return response;
    };
  }
  const fetchFunction: FetchFunction = given ?? ((url, init) => fetch(url, init));
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return (url, init) => {
    const timeout = AbortSignal.timeout(timeoutMs);
    return fetchFunction(url, {
      ...init,
      signal: init.signal ? AbortSignal.any([init.signal, timeout]) : timeout,
    });
  };
}

function agentPath(id: string): string {
  return `/agents/${encodeURIComponent(id)}`;
}

function itemsOf(body: unknown): unknown[] | undefined {
  if (Array.isArray(body)) return body;
  if (!isObject(body)) return undefined;
  for (const key of ITEM_KEYS) {
    const items = body[key];
    if (Array.isArray(items)) return items;
  }
  return undefined;
}

/** The next page's cursor: the body's (`next_cursor`, `nextCursor`, `cursor`, `metadata.nextCursor`), else `Agentry-Next-Cursor`. */
function cursorOf(body: unknown, headers: Headers): string | undefined {
  const metadata = isObject(body) && isObject(body['metadata']) ? body['metadata'] : {};
  const members = isObject(body)
    ? [body['next_cursor'], body['nextCursor'], body['cursor'], metadata['nextCursor']]
    : [];
  const found = [...members, headers.get('agentry-next-cursor')].find(
    (value): value is string => typeof value === 'string' && value !== '',
  );
  return found;
}

function shapeError(answer: RegistryAnswer, what: string): BadRegistryResponseError {
  const message =
    what === 'an agent list'
      ? `${answer.url} is not an agent list.`
      : `${answer.url} did not answer ${what}.`;
  return new BadRegistryResponseError(
    message,
    { url: answer.url, status: answer.status, body: answer.body, text: answer.text },
    'shape',
  );
}

/** `The registry at … answered 403 Forbidden: detail`. */
function failureMessage(baseUrl: string, status: number, body: unknown): string {
  if (!isObject(body)) {
    return `The registry at ${baseUrl} answered ${status}${typeof body === 'string' && body !== '' ? `: ${body.slice(0, 200)}` : ''}`;
  }
  const title = typeof body['title'] === 'string' ? ` ${body['title']}` : '';
  const detail = typeof body['detail'] === 'string' ? `: ${body['detail']}` : '';
  return `The registry at ${baseUrl} answered ${status}${title}${detail}`;
}
