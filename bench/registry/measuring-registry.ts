/**
 * A registry opened to be measured, the same way in every bench that opens one in process (ann.ts's measure role,
 * profile-search.ts, facets.ts, filtered-list.ts): no per-client rate limits or publisher quota (the benches measure
 * throughput, not the limits), warnings only on stderr, the answer cache off unless asked for (every answer
 * computed), and either lexical search alone or stand-in vectors (stand-in-provider.ts) embedded by no background
 * task. Searches go through `registry.fetch`, as a request would. The process's heap is set up as `agentry serve`
 * sets it up (`tuneHeapForServing`).
 */
import { createRegistry, type Registry, type RegistryOptions, tuneHeapForServing } from '@agentry/registry';
import pino from 'pino';
import { standInProvider } from './stand-in-provider.js';

export const BENCH_ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';

/** Limits no bench reaches: the figures are the registry's, not its rate limiter's. */
export const UNLIMITED_RATE_LIMITS: RegistryOptions['rateLimits'] = {
  default: { requests: 1e9, windowSeconds: 1 },
  search: { requests: 1e9, windowSeconds: 1 },
  resolve: { requests: 1e9, windowSeconds: 1 },
};

export interface MeasuringOptions {
  /**
   * Stand-in vectors, the approximate index from this many embedded agents (Infinity: exact search always).
   * Absent: no embeddings, lexical search only.
   */
  approximateFrom?: number;
  /** The index's probe count (absent: its default). */
  probes?: number;
  /** `lexicalInMemoryFrom` (absent: the registry's default). */
  lexicalInMemoryFrom?: number;
  /** Keep answers until the next write, as a served registry does (default off). */
  answerCache?: boolean;
}

export function openMeasuringRegistry(
  databasePath: string,
  options: MeasuringOptions = {},
): Promise<Registry> {
  const { approximateFrom, probes, lexicalInMemoryFrom, answerCache = false } = options;
  tuneHeapForServing(); // as `agentry serve` runs
  return createRegistry({
    databasePath,
    adminToken: BENCH_ADMIN_TOKEN,
    logger: pino({ level: 'warn' }, pino.destination({ dest: 2, sync: true })),
    quotaPerPublisher: null,
    answerCache,
    rateLimits: UNLIMITED_RATE_LIMITS,
    ...(approximateFrom === undefined
      ? { embeddings: 'none' as const }
      : {
          embeddingProvider: standInProvider(),
          backgroundEmbedding: false as const,
          vectorIndex: { approximateFrom, ...(probes === undefined ? {} : { probes }) },
        }),
    ...(lexicalInMemoryFrom === undefined ? {} : { lexicalInMemoryFrom }),
  });
}

/** `POST /agents/search` with `body` through `registry.fetch`; throws unless it answers 200. */
export async function searchThroughFetch(registry: Registry, body: object): Promise<Array<{ id: string }>> {
  const response = await registry.fetch(
    new Request('http://127.0.0.1/agents/search', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
  );
  if (response.status !== 200)
    throw new Error(`search answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as Array<{ id: string }>;
}
