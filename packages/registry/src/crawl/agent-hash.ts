/** The digest that tells whether a crawled agent changed since the last crawl. */
import { createHash } from 'node:crypto';
import type { CrawledAgent } from './types.js';

/**
 * A digest of what a crawled agent says, leaving out when it was fetched and the validators of its documents (a
 * document that changed for another agent's sake does not change this one): equal digests mean nothing changed.
 */
export function agentHash(crawled: CrawledAgent): string {
  const { provenance, ...agent } = crawled.agent;
  const stable = {
    ...crawled,
    agent: {
      ...agent,
      provenance:
        provenance === undefined
          ? null
          : { ...provenance, fetchedAt: null, lastVerified: null, etag: null, lastModified: null },
    },
    sources: crawled.sources.map(({ url, format, origin, primary }) => ({ url, format, origin, primary })),
  };
  return createHash('sha256').update(JSON.stringify(stable)).digest('base64url');
}
