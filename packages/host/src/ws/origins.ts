/**
 * Which web pages may open a WebSocket to the host. A browser lets any page open a WebSocket to any address and
 * sends the page's `Origin` with the handshake, but, unlike `fetch`, asks the server nothing first: without this
 * check a page on another site could call the agents of a host its visitor can reach (one on their machine or
 * intranet). Handshakes without `Origin` come from programs, not pages, and are not concerned.
 */
export interface OriginPolicy {
  /** Origins (`https://app.example`) whose pages may connect besides the host's own; `*` allows every page. */
  allowed: readonly string[];
  /** The host's own origins (its base URL, its WebSocket base URL). */
  own: readonly string[];
}

/** True when a handshake with this `Origin` (absent: not from a page) may proceed. */
export function originAllowed(
  policy: OriginPolicy,
  origin: string | undefined,
  requestHost: string | undefined,
): boolean {
  if (origin === undefined) return true;
  if (policy.allowed.includes('*')) return true;
  const page = URL.canParse(origin) ? new URL(origin) : undefined;
  if (page === undefined) return false; // `null` (sandboxed frames, files) and garbage
  if (policy.allowed.some((allowed) => sameOrigin(allowed, page))) return true;
  if (policy.own.some((own) => sameOrigin(own, page))) return true;
  // A page the host served itself, under whatever name it was reached by.
  return requestHost !== undefined && page.host === requestHost.toLowerCase();
}

function sameOrigin(text: string, page: URL): boolean {
  if (!URL.canParse(text)) return false;
  const url = new URL(text);
  const scheme = url.protocol === 'wss:' ? 'https:' : url.protocol === 'ws:' ? 'http:' : url.protocol;
  return scheme === page.protocol && url.host === page.host;
}
