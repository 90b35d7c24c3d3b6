/**
 * The fetcher's SSRF rules for WebSocket URLs, which do not go through the fetcher: the scheme (wss, or ws with
 * allowHttp), the host checked like any URL (no non-public IP literal, no credentials), the name resolved once with
 * every address checked, and the connection pinned to a checked address so the name cannot be rebound in between.
 */
import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { effectivePolicy } from '../../fetch/policy.js';
import { checkUrl, parseUrl, resolveTarget } from '../../fetch/target.js';
import type { FetchPolicy } from '../../fetch/types.js';

/** Checks `url` against `policy`; returns the `lookup` the socket must connect with. */
export async function guardWebSocketUrl(
  url: string,
  policy: FetchPolicy,
  signal: AbortSignal | undefined,
): Promise<LookupFunction> {
  const effective = effectivePolicy(policy);
  // The same rules as the HTTP(S) URL the handshake is: ws: is http:, wss: is https:.
  const asHttp = parseUrl(url.replace(/^ws(s?):/i, 'http$1:'));
  const target = checkUrl(asHttp, effective);
  const resolved = await resolveTarget(target, effective, signal ?? AbortSignal.timeout(effective.timeoutMs));
  const pinned: LookupAddress[] = resolved.addresses.map(({ address, family }) => ({ address, family }));
  return (_hostname, options, callback) => {
    if (options.all === true) {
      (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, pinned);
      return;
    }
    const wanted = pinned.find(
      (entry) => options.family === undefined || options.family === 0 || entry.family === options.family,
    );
    const chosen = wanted ?? pinned[0]!;
    callback(null, chosen.address, chosen.family);
  };
}
