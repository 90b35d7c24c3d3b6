/**
 * Whether an IP address is public: the SSRF rule of the secure fetcher. ipaddr.js reads the range tables' CIDRs and
 * matches addresses against them; IPv6 addresses that embed an IPv4 address (NAT64, 6to4) are judged by the IPv4
 * address ipaddr.js's bytes give. Addresses come in already read by `parseIpLiteral` (see there for why ipaddr.js
 * does not read untrusted text here); verdicts are remembered per address by `AddressVerdicts`, as each ipaddr.js
 * parse runs its regular expressions.
 */
import ipaddr from 'ipaddr.js';
import { type IpLiteral, parseIpLiteral } from './ip-literal.js';
import {
  type EmbeddingRange,
  IPV4_EMBEDDING_IPV6,
  IPV6_GLOBAL_UNICAST,
  NON_PUBLIC_IPV4,
  NON_PUBLIC_IPV6,
  type SpecialRange,
} from './ip-ranges.js';

export type AddressClass = PublicAddress | NonPublicAddress;

export interface PublicAddress {
  readonly public: true;
  readonly address: string;
  readonly family: 4 | 6;
}

export interface NonPublicAddress {
  readonly public: false;
  readonly address: string;
  readonly family: 4 | 6;
  /** The range it falls in, e.g. `127.0.0.0/8`, `64:ff9b::/96`. */
  readonly range: string;
  /** What that range is, e.g. `loopback`, `NAT64, RFC 6052`. */
  readonly kind: string;
  /** For NAT64 and 6to4 addresses: the non-public IPv4 range embedded in it. */
  readonly embeds?: { readonly range: string; readonly kind: string };
}

interface Rule<Address> {
  readonly network: [Address, number];
  readonly range: SpecialRange;
}

function rulesFor<Address>(
  ranges: readonly SpecialRange[],
  parseCidr: (cidr: string) => [Address, number],
): Rule<Address>[] {
  return ranges.map((range) => ({ network: parseCidr(range.cidr), range }));
}

// Narrower ranges come first in each table, so the first match names the address precisely.
const IPV4_RULES = rulesFor(NON_PUBLIC_IPV4, (cidr) => ipaddr.IPv4.parseCIDR(cidr));
const IPV6_RULES = rulesFor(NON_PUBLIC_IPV6, (cidr) => ipaddr.IPv6.parseCIDR(cidr));
const EMBEDDING_RULES = IPV4_EMBEDDING_IPV6.map((range) => ({
  network: ipaddr.IPv6.parseCIDR(range.cidr),
  range,
}));
const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR(IPV6_GLOBAL_UNICAST);
const NAT64 = EMBEDDING_RULES[0]!.network;

function firstMatch<
  Address extends { match(network: [Address, number]): boolean },
  R extends { network: [Address, number] },
>(address: Address, rules: readonly R[]): R | undefined {
  return rules.find((rule) => address.match(rule.network));
}

/**
 * Classifies an IP address, in any spelling `parseIpLiteral` reads (a zone id is ignored: it picks a link, and the
 * address alone says whether it is public). Throws a TypeError for text that is not an IP address.
 */
export function classifyAddress(text: string): AddressClass {
  const literal = parseIpLiteral(text);
  if (literal === undefined) throw new TypeError(`"${text}" is not an IP address.`);
  return classifyLiteral(literal);
}

/** Classifies an address already parsed by `parseIpLiteral`. */
export function classifyLiteral({ address, family }: IpLiteral): AddressClass {
  if (family === 4) {
    const matched = firstMatch(ipaddr.IPv4.parse(address), IPV4_RULES);
    return matched === undefined
      ? { public: true, address, family }
      : { public: false, address, family, range: matched.range.cidr, kind: matched.range.name };
  }
  const ipv6 = ipaddr.IPv6.parse(address);
  const matched = firstMatch(ipv6, IPV6_RULES);
  if (matched !== undefined) {
    return { public: false, address, family, range: matched.range.cidr, kind: matched.range.name };
  }
  const embedding = firstMatch(ipv6, EMBEDDING_RULES);
  if (embedding !== undefined) {
    const embeds = embeddedNonPublic(ipv6, embedding.range);
    if (embeds !== undefined) {
      return {
        public: false,
        address,
        family,
        range: embedding.range.cidr,
        kind: embedding.range.name,
        embeds,
      };
    }
  }
  // NAT64 lies outside global unicast, yet a NAT64 address embedding a public IPv4 address is how an IPv6-only
  // network reaches a public IPv4 host.
  if (ipv6.match(GLOBAL_UNICAST) || ipv6.match(NAT64)) return { public: true, address, family };
  return {
    public: false,
    address,
    family,
    range: IPV6_GLOBAL_UNICAST,
    kind: 'outside global unicast, unassigned',
  };
}

/** The non-public IPv4 range of the address a NAT64 or 6to4 address carries, or undefined when it is public. */
function embeddedNonPublic(
  ipv6: ipaddr.IPv6,
  embedding: EmbeddingRange,
): { range: string; kind: string } | undefined {
  const bytes = ipv6.toByteArray().slice(embedding.ipv4At, embedding.ipv4At + 4);
  const matched = firstMatch(new ipaddr.IPv4(bytes), IPV4_RULES);
  return matched === undefined ? undefined : { range: matched.range.cidr, kind: matched.range.name };
}

/** True when `text` is a public IP address. */
export function isPublicAddress(text: string): boolean {
  return classifyAddress(text).public;
}

/** "127.0.0.1 is not a public address (loopback, 127.0.0.0/8)", for messages. */
export function describeAddress(verdict: AddressClass): string {
  return verdict.public
    ? `${verdict.address} is a public address`
    : `${verdict.address} is ${whyNotPublic(verdict)}`;
}

/** "not a public address (loopback, 127.0.0.0/8)". */
export function whyNotPublic(verdict: NonPublicAddress): string {
  const embeds =
    verdict.embeds === undefined ? '' : `, embedding ${verdict.embeds.kind} ${verdict.embeds.range}`;
  return `not a public address (${verdict.kind}, ${verdict.range}${embeds})`;
}
