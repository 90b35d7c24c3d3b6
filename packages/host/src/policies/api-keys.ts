/**
 * API-key lookup in constant time: every configured key is compared, as a SHA-256 digest, with
 * `crypto.timingSafeEqual`, and the loop never stops early, so neither the time taken nor its variation tells a
 * caller how much of a guessed key was right or which entry it was near.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

export interface ApiKeyClient {
  clientId: string;
  scopes?: string[];
}

export type ApiKeyLookup = (presented: string) => ApiKeyClient | undefined;

export function createApiKeyLookup(apiKeys: Record<string, ApiKeyClient>): ApiKeyLookup {
  const entries = Object.entries(apiKeys).map(([key, client]) => {
    if (key === '') throw new TypeError(`The API key of client "${client.clientId}" is empty.`);
    return { digest: sha256(key), client };
  });
  return (presented) => {
    const digest = sha256(presented);
    let found: ApiKeyClient | undefined;
    for (const entry of entries) {
      if (timingSafeEqual(entry.digest, digest) && found === undefined) found = entry.client;
    }
    return found;
  };
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
