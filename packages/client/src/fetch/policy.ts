/** A `FetchPolicy` with its defaults filled in and its settings parsed once, when the fetcher is created. */
import { lookup as dnsLookup } from 'node:dns/promises';
import { rootCertificates } from 'node:tls';
import { type AddressAllowList, parseAllowList } from './address-allow-list.js';
import { AddressVerdicts } from './address-verdicts.js';
import type { FetchPolicy, LookupFunction } from './types.js';

export const DEFAULT_MAX_REDIRECTS = 5;
export const DEFAULT_MAX_RESPONSE_BYTES = 5 * 1024 * 1024;
export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_USER_AGENT = 'agentry-client/0.1';

export interface EffectivePolicy {
  readonly allowHttp: boolean;
  readonly allowPrivateNetwork: boolean;
  readonly allowList: AddressAllowList;
  /** The verdict of allowPrivateNetwork and allowList on an address and port, remembered per address. */
  readonly addresses: AddressVerdicts;
  readonly maxRedirects: number;
  readonly maxResponseBytes: number;
  readonly timeoutMs: number;
  readonly lookup: LookupFunction;
  /** The CAs TLS trusts: Node's bundled roots plus `policy.ca`, or undefined for the roots alone. */
  readonly ca: string[] | undefined;
  readonly userAgent: string;
}

/** The system resolver, every address of both families, in the order it returns them. */
export const systemLookup: LookupFunction = async (hostname) => {
  const answers = await dnsLookup(hostname, { all: true });
  return answers.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

export function effectivePolicy(policy: FetchPolicy): EffectivePolicy {
  const extraCa = policy.ca === undefined ? [] : Array.isArray(policy.ca) ? policy.ca : [policy.ca];
  const allowPrivateNetwork = policy.allowPrivateNetwork === true;
  const allowList = parseAllowList(policy.allowAddresses);
  return {
    allowHttp: policy.allowHttp === true,
    allowPrivateNetwork,
    allowList,
    addresses: new AddressVerdicts(allowPrivateNetwork, allowList),
    maxRedirects: nonNegative(policy.maxRedirects, DEFAULT_MAX_REDIRECTS, 'maxRedirects'),
    maxResponseBytes: nonNegative(policy.maxResponseBytes, DEFAULT_MAX_RESPONSE_BYTES, 'maxResponseBytes'),
    timeoutMs: nonNegative(policy.timeoutMs, DEFAULT_TIMEOUT_MS, 'timeoutMs'),
    lookup: policy.lookup ?? systemLookup,
    // Node's `ca` option replaces the bundled roots, so extra CAs are added to them rather than passed alone.
    ca: extraCa.length === 0 ? undefined : [...rootCertificates, ...extraCa],
    userAgent: policy.userAgent ?? DEFAULT_USER_AGENT,
  };
}

function nonNegative(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 0) {
    throw new TypeError(`FetchPolicy.${name} must be a non-negative number (got ${value}).`);
  }
  return value;
}
