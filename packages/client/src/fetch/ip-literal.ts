/**
 * Recognises an IP address written as a host, in every spelling the WHATWG URL parser accepts (decimal
 * `2130706433`, octal `0177.0.0.1`, hex `0x7f.1`, short `127.1`, percent-encoded, full-width digits, a trailing dot,
 * bracketed IPv6) and a few it does not (IPv6 without brackets, with a zone id `fe80::1%eth0` or `%25eth0`).
 *
 * The URL parser (the parser `fetch` itself uses) reads IPv4 numbers and writes the canonical IPv6 form, and node's
 * `isIP` (inet_pton's grammar) decides what is IPv6; ipaddr.js, which judges addresses in `address-policy.ts`, reads
 * only the canonical text this returns. Its own grammar differs from the one the fetch stack reads a host by, and a
 * guard that reads a host differently from the code that connects is an SSRF bypass: it refuses `127.0.0.1.`,
 * `0x.0x.0x.0x` (0.0.0.0), full-width and percent-encoded digits, all of which the URL parser turns into an IPv4
 * address; it reads `::ffff:0177.0.0.1` as ::ffff:177.0.0.1 where inet_aton reads octal 127, and the
 * IPv4-compatible `::127.0.0.1` as the IPv4-mapped ::ffff:127.0.0.1; it takes only alphanumeric zone ids and keeps
 * RFC 6874's `%25` as part of the zone, so the zone id is split off here.
 */
import { isIP } from 'node:net';

export interface IpLiteral {
  /** The canonical address: dotted quad for IPv4, RFC 5952 compressed lower case for IPv6 (no brackets, no zone). */
  readonly address: string;
  readonly family: 4 | 6;
  /** The IPv6 zone id (`eth0` in `fe80::1%eth0`), which says which link but not whether the address is public. */
  readonly zone?: string;
}

// Characters that would make `http://${host}/` mean something other than a bare host (userinfo, port, path, query).
const NOT_IN_A_HOST = /[\s/\\?#@:[\]]/;

/** The IP address `host` spells, or undefined when it is a name (or not a valid host at all). */
export function parseIpLiteral(host: string): IpLiteral | undefined {
  const text = host.trim();
  const unbracketed = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  if (unbracketed.includes(':')) return parseIpv6(unbracketed);
  if (unbracketed !== text || NOT_IN_A_HOST.test(unbracketed) || unbracketed === '') return undefined;
  if (isIP(unbracketed) === 4) return { address: unbracketed, family: 4 };
  let hostname: string;
  try {
    hostname = new URL(`http://${unbracketed}/`).hostname;
  } catch {
    return undefined;
  }
  return isIP(hostname) === 4 ? { address: hostname, family: 4 } : undefined;
}

function parseIpv6(text: string): IpLiteral | undefined {
  const zoneAt = text.indexOf('%');
  const bare = zoneAt === -1 ? text : text.slice(0, zoneAt);
  if (isIP(bare) !== 6) return undefined;
  const address = canonicalIpv6(bare);
  if (zoneAt === -1) return { address, family: 6 };
  // A zone id in a URL is percent-encoded (`%25eth0`, RFC 6874); a resolver or `ip addr` writes it bare.
  const rawZone = text.slice(zoneAt + 1);
  const zone = rawZone.startsWith('25') && rawZone.length > 2 ? safeDecode(rawZone.slice(2)) : rawZone;
  return zone === '' ? undefined : { address, family: 6, zone };
}

/**
 * RFC 5952 form (`::ffff:7f00:1` for `0:0:0:0:0:ffff:127.0.0.1`), by way of the URL parser's IPv6 serialiser, which
 * writes an embedded IPv4 address in hex, the only form `address-policy.ts` hands to ipaddr.js.
 */
export function canonicalIpv6(address: string): string {
  return new URL(`http://[${address}]/`).hostname.slice(1, -1);
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
