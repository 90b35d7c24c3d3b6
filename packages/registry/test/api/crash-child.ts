/**
 * A registry in its own process, for the crash test: serves the database file named by argv[2] on a free
 * loopback port and prints `{"url": ...}` on one line when it is listening. It runs until it is killed.
 */
import pino from 'pino';
import { createRegistry, serveRegistry } from '../../src/index.js';

const databasePath = process.argv[2];
if (databasePath === undefined) throw new Error('usage: crash-child <database file>');
const registry = await createRegistry({
  databasePath,
  embeddings: 'none',
  logger: pino({ level: 'silent' }),
  rateLimits: { default: { requests: 100_000, windowSeconds: 1 } },
});
const served = await serveRegistry(registry);
process.stdout.write(`${JSON.stringify({ url: served.url })}\n`);
