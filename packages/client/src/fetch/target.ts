/**
 * Where a request may go. `checkUrl` applies every rule that needs only the URL (scheme, plain http, an IP literal
 * host, credentials); `resolveTarget` looks the name up once and checks every address it returns. The fetcher then
 * connects to one of those addresses and never asks DNS again, so a name cannot be rebound between check and use.
 */
import { isIP } from 'node:net';
import { whyNotPublic } from './address-policy.js';
import { Deadline } from './deadline.js';
import { FetchRefusedError, NetworkError, type RefusalReason } from './errors.js';
import { type IpLiteral, parseIpLiteral } from './ip-literal.js';
import type { EffectivePolicy } from './policy.js';

export interface Target {
  readonly url: URL;
  /** The host without IPv6 brackets. */
  readonly hostname: string;
  readonly port: number;
  /** Set when the host is an IP address rather than a name. */
  readonly literal?: IpLiteral;
}

export interface ResolvedTarget extends Target {
  /** Every address the name resolved to, each checked; the connection goes to one of these. */
  readonly addresses: readonly IpLiteral[];
}

const ALLOW_HTTP = '--allow-http';
const ALLOW_PRIVATE_NETWORK = '--allow-private-network';

/** Parses a URL the caller gave, refusing what is not one. */
export function parseUrl(input: string | URL, base?: URL): URL {
  try {
    return new URL(String(input), base);
  } catch {
    const text = String(input);
    throw new FetchRefusedError(`"${text}" is not a valid URL.`, text, 'invalid-url');
  }
}

/** The checks that need no I/O. `from` is the URL that redirected here, named in the message. */
export function checkUrl(url: URL, policy: EffectivePolicy, from?: string): Target {
  const { protocol } = url;
  if (protocol !== 'https:' && protocol !== 'http:') {
    throw refusal(url, from, `Only https: URLs are fetched, not ${protocol} URLs.`, 'scheme');
  }
  if (protocol === 'http:' && !policy.allowHttp) {
    throw refusal(url, from, 'Plain http: is not allowed; use https:.', 'http-not-allowed', ALLOW_HTTP);
  }
  const bracketed = url.hostname.startsWith('[');
  const hostname = bracketed ? url.hostname.slice(1, -1) : url.hostname;
  const port = url.port === '' ? (protocol === 'https:' ? 443 : 80) : Number(url.port);
  // The URL parser has already turned every IPv4 spelling into a dotted quad (a host ending in a number is parsed as
  // IPv4 or rejected) and brackets every IPv6 address, so only those two shapes can be literals.
  const mayBeLiteral = bracketed || isDigit(hostname.charCodeAt(hostname.length - 1));
  const literal = mayBeLiteral && isIP(hostname) !== 0 ? parseIpLiteral(hostname) : undefined;
  if (literal !== undefined) {
    const refused = policy.addresses.verdict(literal, port);
    if (refused !== null) {
      const message = `${literal.address} is ${whyNotPublic(refused)}.`;
      throw refusal(url, from, message, 'private-address', ALLOW_PRIVATE_NETWORK);
    }
  }
  if (url.username !== '' || url.password !== '') {
    const message =
      'The URL carries credentials (user:password@host); send them in an Authorization header instead.';
    throw refusal(url, from, message, 'invalid-url');
  }
  return literal === undefined ? { url, hostname, port } : { url, hostname, port, literal };
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

function refusal(
  url: URL,
  from: string | undefined,
  message: string,
  reason: RefusalReason,
  allowedBy?: string,
): FetchRefusedError {
  const text = from === undefined ? message : `${message} (redirected from ${from})`;
  return new FetchRefusedError(text, url.href, reason, allowedBy);
}

/**
 * Resolves the target's name once (no lookup for an IP literal) and checks every address, each time: what a name
 * resolves to is never remembered, only what the policy says about an address (`policy.addresses`). The lookup is
 * bounded by the fetch's deadline, or by a signal.
 */
export function resolveTarget(
  target: Target,
  policy: EffectivePolicy,
  bound: Deadline | AbortSignal,
  from?: string,
): Promise<ResolvedTarget> {
  if (target.literal !== undefined) return Promise.resolve(withAddresses(target, [target.literal]));
  if (bound instanceof Deadline) return lookUpAndCheck(target, policy, bound, from);
  const deadline = new Deadline(undefined, target.url.href, bound);
  return lookUpAndCheck(target, policy, deadline, from).finally(() => deadline.clear());
}

async function lookUpAndCheck(
  target: Target,
  policy: EffectivePolicy,
  deadline: Deadline,
  from: string | undefined,
): Promise<ResolvedTarget> {
  deadline.throwIfAborted();
  let answers: Awaited<ReturnType<EffectivePolicy['lookup']>>;
  try {
    answers = await deadline.race(policy.lookup(target.hostname));
  } catch (error) {
    if (deadline.aborted) throw deadline.reason;
    const code = (error as { code?: unknown }).code;
    const why = typeof code === 'string' ? code : error instanceof Error ? error.message : String(error);
    throw new NetworkError(`Cannot resolve ${target.hostname}: ${why}.`, target.url.href, { cause: error });
  }
  if (answers.length === 0) {
    throw new NetworkError(`${target.hostname} resolved to no address.`, target.url.href);
  }
  const addresses: IpLiteral[] = [];
  for (const answer of answers) {
    const literal = policy.addresses.parse(answer.address);
    if (literal === undefined) {
      throw new NetworkError(
        `${target.hostname} resolved to "${answer.address}", which is not an IP address.`,
        target.url.href,
      );
    }
    const refused = policy.addresses.verdict(literal, target.port);
    if (refused !== null) {
      const message = `${target.hostname} resolves to ${literal.address}, ${whyNotPublic(refused)}.`;
      throw refusal(target.url, from, message, 'private-address', ALLOW_PRIVATE_NETWORK);
    }
    addresses.push(literal);
  }
  return withAddresses(target, addresses);
}

function withAddresses(target: Target, addresses: readonly IpLiteral[]): ResolvedTarget {
  const { url, hostname, port, literal } = target;
  return literal === undefined
    ? { url, hostname, port, addresses }
    : { url, hostname, port, literal, addresses };
}
