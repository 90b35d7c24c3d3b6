/**
 * Whether an IP address is public: the SSRF rule of the secure fetcher. Ranges are matched with node:net's
 * `BlockList`; IPv6 ranges that embed an IPv4 address (NAT64, 6to4) are matched against the IPv4 rules by building
 * the embedded networks up front (64:ff9b::7f00:0/104 for 127.0.0.0/8), so nothing here does bit arithmetic.
 */
import { BlockList } from 'node:net';
import { type IpLiteral, parseIpLiteral } from './ip-literal.js';
import {
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

type Family = 'ipv4' | 'ipv6';

interface Rule {
  readonly family: Family;
  readonly network: string;
  readonly prefix: number;
  readonly list: BlockList;
  readonly verdict: Omit<NonPublicAddress, 'public' | 'address' | 'family'>;
}

function splitCidr(cidr: string): { network: string; prefix: number } {
  const [network = '', prefix = ''] = cidr.split('/');
  return { network, prefix: Number(prefix) };
}

function subnet(family: Family, network: string, prefix: number): BlockList {
  const list = new BlockList();
  list.addSubnet(network, prefix, family);
  return list;
}

function rulesFor(family: Family, ranges: readonly SpecialRange[]): Rule[] {
  return ranges.map(({ cidr, name }) => {
    const { network, prefix } = splitCidr(cidr);
    return {
      family,
      network,
      prefix,
      list: subnet(family, network, prefix),
      verdict: { range: cidr, kind: name },
    };
  });
}

function embeddingRules(): Rule[] {
  return IPV4_EMBEDDING_IPV6.flatMap((embedding) =>
    NON_PUBLIC_IPV4.map(({ cidr, name }) => {
      const { network, prefix } = splitCidr(cidr);
      const embedded = embedding.embed(network, prefix);
      return {
        family: 'ipv6' as const,
        network: embedded.address,
        prefix: embedded.prefix,
        list: subnet('ipv6', embedded.address, embedded.prefix),
        verdict: { range: embedding.cidr, kind: embedding.name, embeds: { range: cidr, kind: name } },
      };
    }),
  );
}

// Narrower ranges come first in each table, so the first match names the address precisely.
const IPV4_RULES = rulesFor('ipv4', NON_PUBLIC_IPV4);
const IPV6_RULES = [...rulesFor('ipv6', NON_PUBLIC_IPV6), ...embeddingRules()];
// Every rule of a family in one list: one check (each check allocates) answers whether an address is public; the
// rules are consulted one by one only to name the range of an address that is not.
function anyOf(rules: readonly Rule[]): BlockList {
  const list = new BlockList();
  for (const { family, network, prefix } of rules) list.addSubnet(network, prefix, family);
  return list;
}
const ANY_IPV4 = anyOf(IPV4_RULES);
const ANY_IPV6 = anyOf(IPV6_RULES);
const global = splitCidr(IPV6_GLOBAL_UNICAST);
const GLOBAL_UNICAST = subnet('ipv6', global.network, global.prefix);
const nat64 = splitCidr(IPV4_EMBEDDING_IPV6[0]!.cidr);
const NAT64 = subnet('ipv6', nat64.network, nat64.prefix);

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
  const familyName: Family = family === 4 ? 'ipv4' : 'ipv6';
  if ((family === 4 ? ANY_IPV4 : ANY_IPV6).check(address, familyName)) {
    const rules = family === 4 ? IPV4_RULES : IPV6_RULES;
    const matched = rules.find((rule) => rule.list.check(address, familyName))!;
    return { public: false, address, family, ...matched.verdict };
  }
  if (family === 4) return { public: true, address, family };
  // NAT64 lies outside global unicast, yet a NAT64 address embedding a public IPv4 address is how an IPv6-only
  // network reaches a public IPv4 host.
  if (GLOBAL_UNICAST.check(address, 'ipv6') || NAT64.check(address, 'ipv6')) {
    return { public: true, address, family };
  }
  return {
    public: false,
    address,
    family,
    range: IPV6_GLOBAL_UNICAST,
    kind: 'outside global unicast, unassigned',
  };
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
