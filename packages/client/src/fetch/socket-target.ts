/**
 * The fetcher's rules for transports that open their own sockets (the WebSocket binding): a `ws:`/`wss:` URL is held
 * to the rules of `http:`/`https:`, the name is resolved once and every address checked, and the caller connects to
 * the returned address through the returned `lookup` (an option `net.connect`, `tls.connect`, `http.request` and
 * `ws` accept), so the socket goes where the check said and TLS still verifies the name.
 */
import type { LookupFunction as SocketLookup } from 'node:net';
import { effectivePolicy } from './policy.js';
import { checkUrl, parseUrl, resolveTarget } from './target.js';
import type { FetchPolicy } from './types.js';

export interface SocketTarget {
  readonly hostname: string;
  readonly port: number;
  /** The checked address the socket must go to. */
  readonly address: string;
  readonly family: 4 | 6;
  /** A `lookup` option answering every query with the checked address. */
  readonly lookup: SocketLookup;
}

/**
 * Checks a URL for a socket transport and resolves it once. Throws the fetcher's errors: FetchRefusedError
 * (`scheme`, `http-not-allowed`, `private-address`, `invalid-url`), NetworkError, or the signal's reason.
 */
export async function resolveSocketTarget(
  input: string | URL,
  policy: FetchPolicy,
  signal: AbortSignal = new AbortController().signal,
): Promise<SocketTarget> {
  const url = parseUrl(input);
  const asHttp = new URL(url.href);
  if (url.protocol === 'wss:') asHttp.protocol = 'https:';
  else if (url.protocol === 'ws:') asHttp.protocol = 'http:';
  const effective = effectivePolicy(policy);
  const resolved = await resolveTarget(checkUrl(asHttp, effective), effective, signal);
  const { address, family } = resolved.addresses[0]!;
  return {
    hostname: resolved.hostname,
    port: resolved.port,
    address,
    family,
    lookup: (_hostname, options, callback) => {
      if (options.all === true) callback(null, [{ address, family }]);
      else callback(null, address, family);
    },
  };
}
