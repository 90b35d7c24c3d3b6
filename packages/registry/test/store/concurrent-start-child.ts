/**
 * One registry start for concurrent-start.test.ts: loads everything, says `ready`, waits for a line on stdin (so
 * that every process opens the file at the same moment), then opens the registry on the file it is given and
 * prints the admin token this start generated (or null) as one JSON line, or the error it failed with.
 */
import { once } from 'node:events';
import { createRegistry } from '../../src/registry.js';

const databasePath = process.argv[2]!;
process.stdout.write('ready\n');
await once(process.stdin, 'data');
process.stdin.destroy();
try {
  const registry = await createRegistry({ databasePath, embeddings: 'none', backgroundEmbedding: false });
  process.stdout.write(`${JSON.stringify({ adminToken: registry.adminToken ?? null })}\n`);
  await registry.close();
} catch (error) {
  // The code and the stack too: a start that fails only now and then says which statement failed, and where.
  const { message, code, stack } = error as Error & { code?: unknown };
  process.stdout.write(`${JSON.stringify({ error: message, code, stack })}\n`);
  process.exitCode = 1;
}
