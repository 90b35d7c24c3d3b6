/**
 * Resolving an agent URI, a URL or an origin to an agent and a binding to call it through (agent:// §5, §6).
 *
 * What the target is decides the path (docs/resolution.md has the same, with examples):
 *
 * - `agent+<transport>://` — the URI is the binding, no documents are read (§6.1): https → HTTP, wss → WebSocket,
 *   unix → HTTP over the socket, local → the locally registered agent. agent+matrix and tokens the draft does not
 *   define resolve to an `other` binding Agentry cannot call, with an error issue saying so.
 * - `https://host/path` — the URL of one description, read by its keys; `#name` picks one of several agents.
 * - `https://host` (an origin) — steps 3 and 5–9 below (no agent path, no fallback); every agent found is listed.
 * - `agent://authority/path` — in this order, stopping at the first step that finds the named agent (one whose id
 *   or name is the path's first segment — for DIDs, also the DID's last path segment — or the only agent a
 *   description describes; an agents.json map is matched by name only):
 *     1. the static map (`options.staticMap`, see static-map.ts);
 *     2. did:web, for DID authorities: the DID document's agent services (did-web.ts); other DID methods stop here;
 *     3. `/.well-known/agents.json` — the map's entry for the name, followed to its descriptor;
 *     4. `/<first segment>/agent.json` (for did:web, `/<DID path>/agent.json`);
 *     5. `/.well-known/agent-card.json` (A2A);
 *     6. `/.well-known/agent.json` (legacy A2A, agent:// single-agent, some AWP sites);
 *     7. `/.well-known/woa.json`;
 *     8. `/agent.json` (AWP);
 *     9. WebFinger, when `options.webfinger` (webfinger.ts);
 *    10. the §6.2 fallback: `https://<authority><path>?<query>` as an HTTP binding whose method follows the
 *        payload (`methodByPayload`: POST with input, GET without). Also used when the agent was found but has no
 *        binding Agentry can use. For did:web the authority is the DID's domain and path. `fallback: false` skips it.
 *   Documents of steps 3–9 go to `https://<authority>` (did:web: the DID's domain).
 *
 * Every document asked for is recorded (`documents`) with its format, status and cache use; what went wrong is an
 * issue, never an exception. `resolve` throws only for a target it cannot read (`InvalidTargetError`) and when
 * `options.signal` aborts.
 *
 * Then, for the agent found: version negotiation (versions.ts), the operation the path names, and the binding —
 * the step's own (a DID endpoint, a WebFinger link, a static transport URI, a versioned endpoint), else the
 * preferred of the agent's (bindings.ts).
 *
 * `resolve` reads its documents every time (the fetcher's HTTP cache may save the requests, not the reading).
 * `createResolver` (resolver.ts) keeps resolutions and reuses one while every document it was built from is fresh.
 */
import { type Agent, type AgentUri, normalizeAgentUri } from '@agentry/core';
import { createSecureFetcher } from '../fetch/secure-fetch.js';
import { chooseBinding, isUsableBinding } from './bindings.js';
import { ResolveContext } from './context.js';
import { type Found, findInDescription } from './describe.js';
import { didWebLocation, findThroughDidWeb } from './did-web.js';
import { agentIdOf, transportBinding } from './explicit.js';
import { operationInPath } from './select.js';
import { findOnSite, type Site } from './site.js';
import { checkMapValue, lookUp, mapKeysForOrigin, mapKeysForUri } from './static-map.js';
import { classifyTarget, type Target } from './target.js';
import type { Resolution, ResolveOptions, ResolveStep } from './types.js';
import { negotiateVersion, requestedVersion } from './versions.js';
import { findThroughWebfinger } from './webfinger.js';

/**
 * Resolves `target` afresh: every document is asked of the fetcher (whose HTTP cache may answer) and read again.
 * `createResolver` (resolver.ts) adds a resolution cache on top.
 *
 * @example
 * ```ts
 * import { createSecureFetcher, resolve } from '@agentry/client';
 *
 * const fetcher = createSecureFetcher(); // HTTPS to public addresses only
 * try {
 *   const resolution = await resolve('agent://planner.example.com/gen-iti', { fetcher });
 *   console.log(resolution.source, resolution.agent?.name, resolution.binding?.kind, resolution.operation);
 *   for (const document of resolution.documents) console.log(document.step, document.url, document.status ?? document.error);
 * } finally {
 *   await fetcher.close();
 * }
 * ```
 */
export async function resolve(target: string, options: ResolveOptions = {}): Promise<Resolution> {
  const kind = classifyTarget(target);
  const fetcher = options.fetcher ?? createSecureFetcher();
  try {
    return await resolveIn(new ResolveContext(fetcher, options.signal), kind, target, options);
  } finally {
    if (options.fetcher === undefined) await fetcher.close();
  }
}

/** One resolution of an already classified target, with the documents asked of `ctx`'s fetcher. */
export async function resolveIn(
  ctx: ResolveContext,
  kind: Target,
  target: string,
  options: ResolveOptions,
): Promise<Resolution> {
  const resolution: Resolution = {
    target,
    agents: ctx.agents,
    documents: ctx.documents,
    issues: ctx.issues,
  };
  if (kind.kind === 'transport') return resolveTransport(resolution, kind.uri, target, options);
  if (kind.kind === 'agent-uri') {
    resolution.uri = kind.uri;
    return resolveAgentUri(ctx, resolution, kind.uri, options);
  }
  if (kind.kind === 'origin') {
    return finish(ctx, resolution, await findForOrigin(ctx, kind.origin, options), [], options);
  }
  const name = decodeFragment(kind.url.hash);
  const names = name === undefined ? [] : [name];
  const found = await findInDescription(ctx, kind.url.href, 'document', names, 'document');
  return finish(ctx, resolution, found, names, options);
}

function resolveTransport(
  resolution: Resolution,
  uri: AgentUri,
  text: string,
  options: ResolveOptions,
): Resolution {
  resolution.uri = uri;
  const made = transportBinding(uri, text);
  const id = agentIdOf(uri);
  resolution.agent = { id, name: id, description: '', operations: [], bindings: [made.binding], url: text };
  resolution.source = 'transport';
  if (made.unsupported !== undefined) {
    resolution.issues.push({
      severity: 'error',
      pointer: '',
      code: 'resolve.transport.unsupported',
      message: made.unsupported,
    });
  } else {
    resolution.binding = made.binding;
    if (made.methodByPayload) resolution.methodByPayload = true;
  }
  if (uri.transport === 'local') {
    const operation = uri.pathSegments.find((segment) => segment !== '');
    if (operation !== undefined) resolution.operation = operation;
  }
  if (uri.authority.userinfo !== undefined) userinfoIgnored(resolution, text);
  const version = requestedVersion(options, uri);
  if (version !== undefined) resolution.version = version;
  return resolution;
}

async function resolveAgentUri(
  ctx: ResolveContext,
  resolution: Resolution,
  uri: AgentUri,
  options: ResolveOptions,
): Promise<Resolution> {
  if (uri.authority.userinfo !== undefined) userinfoIgnored(resolution, resolution.target);
  const scheme = options.scheme ?? 'https';
  const firstSegment = uri.pathSegments[0] === '' ? undefined : uri.pathSegments[0];
  const rawFirst = uri.path.split('/')[1];
  let names = firstSegment === undefined ? [] : [firstSegment];

  const fromMap = await findInStaticMap(ctx, options, mapKeysForUri(uri), names, uri);
  if (fromMap !== undefined) return finish(ctx, resolution, fromMap, names, options, uri);

  let site: Site | undefined;
  let fallbackBase: string | undefined;
  const { did } = uri.authority;
  if (did === undefined) {
    const { host, hostKind, port } = uri.authority;
    const origin = `${scheme}://${hostKind === 'ipv6' ? `[${host}]` : host}${port === undefined ? '' : `:${port}`}`;
    site = {
      origin,
      names,
      ...(rawFirst === undefined || rawFirst === '' ? {} : { agentPath: `/${rawFirst}` }),
    };
    fallbackBase = origin;
  } else if (did.method !== 'web') {
    ctx.issue(
      'error',
      'resolve.did.unsupported-method',
      `${uri.authority.host} uses the DID method "${did.method}"; Agentry resolves did:web only. Put the agent in a static map (staticMap) to reach it.`,
    );
  } else {
    const location = didWebLocation(did, scheme);
    if (typeof location === 'string') {
      ctx.issue('error', 'resolve.did-web.invalid', location);
    } else {
      const didName = location.path[location.path.length - 1];
      if (didName !== undefined) names = [didName, ...names];
      const found = await findThroughDidWeb(ctx, uri, location, names);
      if (found !== undefined) return finish(ctx, resolution, found, names, options, uri);
      const didPath = location.path.map((segment) => encodeURIComponent(segment)).join('/');
      const agentPath =
        didPath !== ''
          ? `/${didPath}`
          : rawFirst === undefined || rawFirst === ''
            ? undefined
            : `/${rawFirst}`;
      site = { origin: location.origin, names, ...(agentPath === undefined ? {} : { agentPath }) };
      fallbackBase = location.origin + (didPath === '' ? '' : `/${didPath}`);
    }
  }

  let found = site === undefined ? undefined : await findOnSite(ctx, site);
  if (found === undefined && site !== undefined && options.webfinger) {
    const resource = resolution.target.replace(/[?#].*$/s, '');
    found = await findThroughWebfinger(ctx, site.origin, resource, names, firstSegment ?? uri.authority.host);
  }
  return finish(ctx, resolution, found, names, options, uri, fallbackBase);
}

async function findForOrigin(
  ctx: ResolveContext,
  origin: string,
  options: ResolveOptions,
): Promise<Found | undefined> {
  const fromMap = await findInStaticMap(ctx, options, mapKeysForOrigin(origin), []);
  if (fromMap !== undefined) return fromMap;
  const found = await findOnSite(ctx, { origin, names: [] });
  if (found !== undefined || !options.webfinger) return found;
  return findThroughWebfinger(ctx, origin, origin, [], new URL(origin).hostname);
}

async function findInStaticMap(
  ctx: ResolveContext,
  options: ResolveOptions,
  keys: readonly string[],
  names: readonly string[],
  uri?: AgentUri,
): Promise<Found | undefined> {
  if (options.staticMap === undefined) return undefined;
  const entry = lookUp(options.staticMap, keys);
  if (entry === undefined) return undefined;
  const problem = checkMapValue(entry.value);
  if (problem !== undefined) {
    ctx.issue(
      'error',
      'resolve.static-map.value',
      `The static map entry "${entry.key}" cannot be used: ${problem}.`,
    );
    return undefined;
  }
  if (!/^https?:/i.test(entry.value)) {
    const made = transportBinding(classifyTransport(entry.value), entry.value);
    if (made.unsupported !== undefined) {
      ctx.issue(
        'error',
        'resolve.transport.unsupported',
        `Static map entry "${entry.key}": ${made.unsupported}`,
      );
      return undefined;
    }
    if (made.methodByPayload) ctx.methodByPayload.add(made.binding);
    const id = names[0] ?? (uri === undefined ? entry.key : uri.authority.host);
    const agent: Agent = { id, name: id, description: '', operations: [], bindings: [made.binding] };
    if (uri !== undefined) agent.url = normalizeAgentUri(uri).replace(/[?#].*$/s, '');
    return { agent, source: 'static-map', by: 'endpoint', binding: made.binding };
  }
  return findInDescription(ctx, entry.value, 'static-map', names, 'static-map');
}

function classifyTransport(value: string): AgentUri {
  const kind = classifyTarget(value);
  if (kind.kind !== 'transport') throw new TypeError(`not a transport URI: ${value}`);
  return kind.uri;
}

/** Version, operation and binding for what was found; the §6.2 fallback for agent URIs when nothing usable was. */
async function finish(
  ctx: ResolveContext,
  resolution: Resolution,
  initial: Found | undefined,
  names: readonly string[],
  options: ResolveOptions,
  uri?: AgentUri,
  fallbackBase?: string,
): Promise<Resolution> {
  const requested = requestedVersion(options, uri);
  let found = initial;
  if (found !== undefined && requested !== undefined) {
    const negotiated = await negotiateVersion(ctx, found, requested, names);
    found = negotiated;
    resolution.version = negotiated.version;
  } else if (requested !== undefined) {
    resolution.version = requested;
  }

  if (found !== undefined) {
    const { agent } = found;
    resolution.agent = agent;
    resolution.source = found.source;
    const operation =
      uri === undefined
        ? undefined
        : operationInPath(agent, uri.pathSegments, agentNames(agent, names, found));
    if (operation !== undefined) resolution.operation = operation;
    if (
      found.by === 'only' &&
      SITE_WIDE_STEPS.has(found.step) &&
      names.length > 0 &&
      operation === undefined
    ) {
      ctx.issue(
        'warning',
        'resolve.path.unmatched',
        `The target names "${names[0]}", which is neither the id or name of agent "${agent.id}" nor one of its operations; "${agent.id}" is used as the only agent described.`,
      );
    }
    const binding = found.binding ?? chooseBinding(agent, operation);
    if (binding !== undefined) {
      resolution.binding = binding;
      if (ctx.methodByPayload.has(binding)) resolution.methodByPayload = true;
      return resolution;
    }
  }

  if (uri === undefined || fallbackBase === undefined || options.fallback === false) return resolution;
  const url =
    fallbackBase +
    (uri.path === '' ? '/' : uri.path) +
    (uri.queryString === undefined ? '' : `?${uri.queryString}`);
  const binding = { kind: 'http' as const, url: new URL(url).href, method: 'POST' as const };
  resolution.binding = binding;
  resolution.methodByPayload = true;
  if (found === undefined) {
    const id = uri.pathSegments.find((segment) => segment !== '') ?? uri.authority.host;
    resolution.agent = {
      id,
      name: id,
      description: '',
      operations: [],
      bindings: [binding],
      url: resolution.target,
    };
    resolution.source = 'fallback';
    ctx.issue(
      'warning',
      'resolve.fallback',
      `No document describes ${resolution.target}; falling back to ${binding.url} (agent:// §6.2: POST with a payload, GET without).`,
    );
  } else {
    const kinds = found.agent.bindings.map((b) => b.kind).join(', ');
    ctx.issue(
      'warning',
      'resolve.fallback',
      `Agent "${found.agent.id}" ${found.agent.bindings.some(isUsableBinding) ? 'has no binding serving this operation' : kinds === '' ? 'describes no binding' : `only has bindings Agentry cannot call (${kinds})`}; falling back to ${binding.url} (agent:// §6.2: POST with a payload, GET without).`,
    );
  }
  return resolution;
}

/** Documents that describe a whole site, where an agent that is merely alone may not be the one named. */
const SITE_WIDE_STEPS: ReadonlySet<ResolveStep | undefined> = new Set([
  'agent-card',
  'well-known-agent',
  'woa',
  'root-agent-json',
] as const);

function agentNames(agent: Agent, names: readonly string[], found: Found): string[] {
  // A segment that picked the agent names the agent, not an operation, unless the agent has an operation so named.
  return found.by === 'name' ? names.filter((name) => !agent.operations.some((op) => op.name === name)) : [];
}

function userinfoIgnored(resolution: Resolution, target: string): void {
  resolution.issues.push({
    severity: 'warning',
    pointer: '',
    code: 'resolve.userinfo.ignored',
    message: `The userinfo of ${target} is not sent anywhere: credentials do not belong in URIs; pass them as invoke options.`,
  });
}

function decodeFragment(hash: string): string | undefined {
  if (hash.length <= 1) return undefined;
  try {
    return decodeURIComponent(hash.slice(1));
  } catch {
    return hash.slice(1);
  }
}
