/**
 * The registry a one-shot command writes into (`agentry crawl`, `agentry import`): the database `agentry serve`
 * uses, opened for the command's work and closed after it, its fetcher too. Ctrl-C (or SIGTERM) aborts the work
 * through the signal instead of killing the process, so the database is closed cleanly. Agents left waiting for a
 * vector are `agentry serve`'s to catch up on; the command does only its own work.
 */
import type { SecureFetcher } from '@agentry/client';
import {
  createRegistry,
  type Registry,
  type RegistryCrawlOptions,
  type RegistryOptions,
} from '@agentry/registry';
import { databaseFlag, printableDatabase } from './database-hint.js';
import { databaseUsageError } from './registry-options.js';

export async function withCommandRegistry<T>(
  registryOptions: RegistryOptions,
  fetcher: SecureFetcher,
  crawl: Omit<RegistryCrawlOptions, 'enabled' | 'fetcher'>,
  work: (registry: Registry, signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const registry = await createRegistry({
    ...registryOptions,
    crawl: { ...registryOptions.crawl, ...crawl, enabled: false, fetcher },
    backgroundEmbedding: false,
  }).catch(async (error: unknown) => {
    await fetcher.close();
    // A database that cannot be opened is one line and exit 2 (registry-options.ts).
    throw databaseUsageError(error);
  });
  const interrupted = new AbortController();
  const stop = (): void => interrupted.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    // Only a token the registry generated (a new database without AGENTRY_ADMIN_TOKEN): a configured one the user has.
    const token = registry.adminToken;
    if (token !== undefined) {
      process.stderr.write(
        `agentry: new registry database ${printableDatabase(registryOptions.databasePath)}; admin token (shown once; keep it): ${token}\n` +
          `  if lost: agentry token ${databaseFlag(registryOptions.databasePath)} --role admin makes a new one\n`,
      );
    }
    return await work(registry, interrupted.signal);
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    await registry.close();
    await fetcher.close();
  }
}
