/**
 * The invocation metadata a message carries where HTTP has headers (an MCP `tools/call`'s `_meta`, a WebSocket
 * message's members; Agentry's client puts the same values it sends as headers there: docs/invocation.md), as the
 * headers the runtime reads. A header the request already has wins: it is what the caller's HTTP stack sent, the
 * metadata only fills in what a header-less caller could not.
 */
import { CONFIRMATION_HEADER } from '../policies/confirmation.js';
import { IDEMPOTENCY_HEADER } from '../policies/idempotency.js';
import { SESSION_HEADER, TASK_HEADER } from './runtime.js';
import { CALLBACK_HEADER } from './tasks/callbacks.js';

/** `_meta` member → header, the same pairs the envelope routes read. */
const META_HEADERS: ReadonlyArray<readonly [member: string, header: string]> = [
  ['confirm', CONFIRMATION_HEADER],
  ['idempotencyKey', IDEMPOTENCY_HEADER],
  ['sessionId', SESSION_HEADER],
  ['taskId', TASK_HEADER],
  ['version', 'X-Agent-Version'],
  ['delegationChain', 'X-Delegation-Chain'],
  ['callbackUrl', CALLBACK_HEADER],
];

/** The headers a call runs with: the HTTP request's, plus what `meta` says that they do not. */
export function headersWithMeta(
  requestHeaders: Headers,
  meta: Readonly<Record<string, unknown>> = {},
): Headers {
  const headers = new Headers(requestHeaders);
  for (const [member, header] of META_HEADERS) {
    const value = headerValue(member, meta[member]);
    if (value === undefined || headers.has(header)) continue;
    try {
      headers.set(header, value);
    } catch {
      // Not a valid header value (control or non-Latin-1 characters): the member is ignored, as a bad header would be.
    }
  }
  return headers;
}

function headerValue(member: string, value: unknown): string | undefined {
  if (member === 'confirm') return value === true ? 'true' : undefined;
  return typeof value === 'string' && value !== '' ? value : undefined;
}
