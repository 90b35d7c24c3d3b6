/**
 * Liveness probes: is a crawled agent answering? One cheap probe per agent, on the first binding Agentry can probe:
 * - MCP over Streamable HTTP: the `initialize` handshake (the MCP SDK's client, through the secure fetcher);
 * - A2A: fetching the agent card of the interface's origin;
 * - REST (WoA rest, plain HTTP endpoints): a HEAD of the invoke URL; any answer below 500 but 404/410 is `up`.
 * Other bindings (stdio, unix, local, wss) are `unknown`: probing them would run or reach local things.
 * The MCP SDK loads on the first MCP probe, not with the registry: most registries (and every CLI command that
 * imports one) never probe an MCP server, and the SDK with zod is a third of the registry's load time.
 */

import type { SecureFetcher } from '@agentry/client';
import type { Agent, Binding } from '@agentry/core';
import { encodeUriComponentSafe } from '@agentry/core';
import { describeFetchError } from './fetch-document.js';
import type { LivenessResult } from './types.js';

export interface LivenessOptions {
  fetcher: SecureFetcher;
  /** Per probe (default 5 s). */
  timeoutMs?: number;
  signal?: AbortSignal;
  now?: () => number;
}

const CLIENT_INFO = { name: 'agentry-crawler', version: '0.1.0' };
const DEFAULT_TIMEOUT_MS = 5000;

export async function probeLiveness(agent: Agent, options: LivenessOptions): Promise<LivenessResult> {
  const now = options.now ?? Date.now;
  const checkedAt = new Date(now()).toISOString();
  const probe = chooseProbe(agent);
  if (probe === undefined) {
    return {
      status: 'unknown',
      probe: 'none',
      checkedAt,
      reason: 'No binding Agentry probes (HTTP, MCP, A2A).',
    };
  }
  const started = performance.now();
  try {
    const failure = await probe.run(options);
    const latencyMs = Math.round(performance.now() - started);
    if (failure !== undefined)
      return { status: 'down', probe: probe.name, checkedAt, latencyMs, reason: failure };
    return { status: 'up', probe: probe.name, checkedAt, lastSeenAt: checkedAt, latencyMs };
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    const latencyMs = Math.round(performance.now() - started);
    return { status: 'down', probe: probe.name, checkedAt, latencyMs, reason: describeFetchError(error) };
  }
}

interface Probe {
  name: string;
  /** Resolves to undefined when the agent answered, or to why it did not; throws on network failure. */
  run(options: LivenessOptions): Promise<string | undefined>;
}

function chooseProbe(agent: Agent): Probe | undefined {
  const probes = agent.bindings
    .map((binding) => probeFor(agent, binding))
    .filter((probe) => probe !== undefined);
  return probes[0];
}

function probeFor(agent: Agent, binding: Binding): Probe | undefined {
  switch (binding.kind) {
    case 'mcp': {
      const url =
        binding.transport === 'stdio' || binding.package !== undefined ? undefined : httpUrl(binding.server);
      if (url === undefined || binding.transport === 'sse') return undefined;
      return { name: 'mcp initialize', run: (options) => mcpInitialize(url, options) };
    }
    case 'a2a': {
      const url = httpUrl(binding.url);
      if (url === undefined) return undefined;
      const card = `${new URL(url).origin}/.well-known/agent-card.json`;
      return { name: 'a2a card', run: (options) => request(card, 'GET', options, false) };
    }
    case 'woa-rest': {
      const url = httpUrl(
        binding.base + binding.invokePath.replaceAll('{agent_id}', encodeUriComponentSafe(agent.id)),
      );
      return url === undefined
        ? undefined
        : { name: 'http HEAD', run: (options) => request(url, 'HEAD', options, true) };
    }
    case 'http': {
      const url = httpUrl(binding.url);
      return url === undefined
        ? undefined
        : { name: 'http HEAD', run: (options) => request(url, 'HEAD', options, true) };
    }
    default:
      return undefined;
  }
}

async function request(
  url: string,
  method: 'GET' | 'HEAD',
  options: LivenessOptions,
  anyAnswer: boolean,
): Promise<string | undefined> {
  const { response } = await options.fetcher.fetch(url, {
    method,
    cacheMode: 'no-store',
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  await response.body?.cancel();
  const { status } = response;
  if (status >= 500) return `HTTP ${status}`;
  if (status === 404 || status === 410) return `HTTP ${status}: the endpoint is gone`;
  if (!anyAnswer && status !== 200) return `HTTP ${status}`;
  return undefined;
}

async function mcpInitialize(url: string, options: LivenessOptions): Promise<string | undefined> {
  const timeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const [{ Client }, { StreamableHTTPClientTransport }] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
  ]);
  const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: fetchLike(options, timeout) });
  const client = new Client(CLIENT_INFO);
  try {
    await client.connect(transport, {
      timeout,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    return client.getServerVersion() === undefined ? 'No server info in the initialize result.' : undefined;
  } finally {
    await client.close().catch(() => {});
  }
}

/** The secure fetcher in `fetch`'s clothes, for the MCP SDK; streams are handed back unread. */
function fetchLike(
  options: LivenessOptions,
  timeoutMs: number,
): (url: string | URL, init?: RequestInit) => Promise<Response> {
  return async (url, init = {}) => {
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => {
      headers[name] = value;
    });
    const signal = init.signal ?? options.signal;
    const { response } = await options.fetcher.fetch(String(url), {
      method: init.method ?? 'GET',
      headers,
      responseType: 'stream',
      cacheMode: 'no-store',
      timeoutMs,
      ...(typeof init.body === 'string' ? { body: init.body } : {}),
      ...(signal === undefined || signal === null ? {} : { signal }),
    });
    return response;
  };
}

function httpUrl(value: string): string | undefined {
  if (!URL.canParse(value)) return undefined;
  const url = new URL(value);
  return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined;
}
