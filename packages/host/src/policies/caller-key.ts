/**
 * Whom a call counts against, for rate-limit buckets and idempotency scopes alike: the authenticated client, else
 * the caller's network address, so that one anonymous caller can neither spend another's calls nor receive the
 * response stored for another's idempotency key. A transport that knows no address (a unix socket, a `host.fetch`
 * without `clientAddress`) leaves its callers sharing one anonymous key. The kinds are kept apart, so a client id
 * that looks like an address is never the bucket of that address.
 */
export function callerKey(clientId: string | undefined, clientAddress: string | undefined): string {
  if (clientId !== undefined) return `client:${clientId}`;
  if (clientAddress !== undefined) return `address:${clientAddress}`;
  return 'anonymous';
}
