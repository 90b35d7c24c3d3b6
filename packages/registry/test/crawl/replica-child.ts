/**
 * A crawler replica in its own process, for the crash test: it crawls the PostgreSQL database named by argv[2]
 * in the background, as `agentry serve --crawl` would, fetching `.test` origins from the loopback fleet on the port
 * argv[3], under the instance id argv[4] and the lease argv[5] (ms). It prints `started` once its loop runs and
 * runs until it is killed. Its sink keeps nothing: the test looks at the queue.
 */
import { createSecureFetcher } from '@agentry/client';
import { createCrawler } from '../../src/crawl/scheduler.js';
import { openDatabase } from '../../src/db/open.js';

const [url, port, instanceId, leaseMs] = process.argv.slice(2);
if (url === undefined || port === undefined || instanceId === undefined || leaseMs === undefined) {
  throw new Error('usage: replica-child <database url> <fleet port> <instance id> <lease ms>');
}
const { db } = await openDatabase({ url });
const fetcher = createSecureFetcher({
  allowHttp: true,
  allowAddresses: [`127.0.0.1:${port}`],
  lookup: async () => [{ address: '127.0.0.1', family: 4 }],
  cache: false,
  timeoutMs: 60_000,
});
const crawler = createCrawler({
  db,
  fetcher,
  sink: {
    upsertCrawled: async () => {},
    markInactive: async () => {},
    tombstone: async () => {},
    recordLiveness: async () => {},
  },
  instanceId,
  leaseMs: Number(leaseMs),
  minIntervalMs: 1,
  perOrigin: 1,
  liveness: false,
  idlePollMs: 200,
});
crawler.start();
process.stdout.write('started\n');
