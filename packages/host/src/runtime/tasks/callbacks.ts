/**
 * Signed task callbacks: when a deferred task ends, its final status is POSTed to the URL the caller gave
 * (`X-Callback-URL`, or `callbackUrl` in the envelope), signed with HMAC-SHA256 so the receiver can tell it came
 * from this host and was not replayed:
 *
 *   X-Agentry-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>
 *
 * The request goes through a fetch the host configuration gives, by default our client's secure fetcher, so a
 * caller cannot aim the host at its own network.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const CALLBACK_HEADER = 'X-Callback-URL';
export const SIGNATURE_HEADER = 'X-Agentry-Signature';

/** How callbacks are sent. `fetch` is given the URL and a request; its answer's status is all that is read. */
export type CallbackFetch = (
  url: string,
  init: { method: 'POST'; headers: Record<string, string>; body: string; signal: AbortSignal },
) => Promise<{ status: number }>;

export interface CallbackOptions {
  /** The HMAC key receivers share with the host. */
  secret: string | Uint8Array;
  /** Default: a secure fetcher of @agentry/client with its strict policy. */
  fetch?: CallbackFetch;
  /** Time for one callback (default 10 s). */
  timeoutMs?: number;
}

export function signCallback(secret: string | Uint8Array, body: string, timestamp: number): string {
  const mac = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
  return `t=${timestamp},v1=${mac}`;
}

/**
 * For receivers: whether `header` signs `body` with `secret`, no older than `toleranceSeconds` (default 300).
 */
export function verifyCallbackSignature(
  secret: string | Uint8Array,
  header: string | null,
  body: string,
  options: { toleranceSeconds?: number; now?: number } = {},
): boolean {
  if (header === null) return false;
  const fields = new Map(
    header.split(',').map((part) => {
      const at = part.indexOf('=');
      return [part.slice(0, at).trim(), part.slice(at + 1).trim()] as const;
    }),
  );
  const timestamp = Number(fields.get('t'));
  const given = fields.get('v1');
  if (!Number.isInteger(timestamp) || given === undefined || !/^[0-9a-f]{64}$/.test(given)) return false;
  const nowSeconds = Math.floor((options.now ?? Date.now()) / 1000);
  if (Math.abs(nowSeconds - timestamp) > (options.toleranceSeconds ?? 300)) return false;
  const expected = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest();
  return timingSafeEqual(expected, Buffer.from(given, 'hex'));
}

/** Whether `text` is a URL a callback may go to (the fetcher applies the network policy). */
export function isCallbackUrl(text: string): boolean {
  if (!URL.canParse(text)) return false;
  const protocol = new URL(text).protocol;
  return protocol === 'https:' || protocol === 'http:';
}
