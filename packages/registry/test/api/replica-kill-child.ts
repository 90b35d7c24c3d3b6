/**
 * A registry replica in its own process, for the replica kill test: serves the PostgreSQL database named by argv[2]
 * on a free loopback port, as `agentry serve --database … --crawl` would, crawling in the background with the lease
 * argv[4] (ms) and fetching `.test` origins from the loopback fleet on the port argv[3]. Re-crawls are due within a
 * second, so its crawl loop looks at the queue often. It prints `{"url": ...}` on one line when it is listening and
 * runs until it is killed.
 */
import { createSecureFetcher } from '@agentry/client';
import pino from 'pino';
import { createRegistry, serveRegistry } from '../../src/index.js';

const [url, port, leaseMs] = process.argv.slice(2);
if (url === undefined || port === undefined || leaseMs === undefined) {
  throw new Error('usage: replica-kill-child <database url> <fleet port> <lease ms>');
}
const fetcher = createSecureFetcher({
  allowHttp: true,
  allowAddresses: [`127.0.0.1:${port}`],
  lookup: async () => [{ address: '127.0.0.1', family: 4 }],
  cache: false,
  timeoutMs: 60_000,
});
const limit = { requests: 1_000_000, windowSeconds: 1 };
const registry = await createRegistry({
  databasePath: url,
  embeddings: 'none',
  logger: pino({ level: 'silent' }),
  rateLimits: { default: limit, search: limit, resolve: limit },
  crawl: {
    enabled: true,
    fetcher,
    leaseMs: Number(leaseMs),
    minIntervalMs: 200,
    maxIntervalMs: 1000,
    liveness: false,
  },
});
const served = await serveRegistry(registry);
process.stdout.write(`${JSON.stringify({ url: served.url })}\n`);
