/**
 * `FetchPolicy.allowAddresses`: a narrow exception to the private-network rule, e.g. one intranet service, without
 * opening every private address the way `allowPrivateNetwork` does. An entry names an address or a CIDR range,
 * optionally limited to one port (as in Stripe's smokescreen `allow_addresses`):
 *
 *   10.1.2.3   10.1.0.0/16   127.0.0.1:8443   10.1.0.0/16:443   fd00::5   fd00::/8   [::1]:8443   [fd00::/8]:443
 *
 * Entries and addresses are matched by ipaddr.js in IPv6 space, an IPv4 address standing as its IPv4-mapped form
 * (`::ffff:10.1.2.3`, an IPv4 range's prefix plus 96): an entry for 127.0.0.1 lets in ::ffff:127.0.0.1, which reaches
 * the same socket, and an entry for ::ffff:0:0/96 lets in every IPv4 address.
 */
import ipaddr from 'ipaddr.js';
import { parseIpLiteral } from './ip-literal.js';

interface AllowEntry {
  readonly network: [ipaddr.IPv6, number];
  readonly port?: number;
}

export interface AddressAllowList {
  /** True when connecting to `address` (canonical form) on `port` is allowed by an entry. */
  allows(address: string, family: 4 | 6, port: number): boolean;
}

const NOTHING_ALLOWED: AddressAllowList = { allows: () => false };

/** Parses the entries; throws a TypeError naming the first one that is not an address, a range or either with a port. */
export function parseAllowList(entries: readonly string[] | undefined): AddressAllowList {
  if (entries === undefined || entries.length === 0) return NOTHING_ALLOWED;
  const parsed = entries.map(parseEntry);
  return {
    allows: (address, family, port) => {
      const onPort = parsed.filter((entry) => entry.port === undefined || entry.port === port);
      if (onPort.length === 0) return false;
      const ipv6 = asIpv6(address, family);
      return onPort.some((entry) => ipv6.match(entry.network));
    },
  };
}

/** The address in IPv6 space: itself, or for IPv4 its IPv4-mapped form. */
function asIpv6(address: string, family: 4 | 6): ipaddr.IPv6 {
  return family === 4 ? ipaddr.IPv4.parse(address).toIPv4MappedAddress() : ipaddr.IPv6.parse(address);
}

function parseEntry(entry: string): AllowEntry {
  const invalid = (): TypeError =>
    new TypeError(
      `allowAddresses entry "${entry}" is not an IP address or CIDR range, optionally with a port ` +
        '(10.0.0.5, 10.0.0.0/8, 127.0.0.1:8443, [::1]:8443).',
    );
  const { range, port } = splitPort(entry.trim());
  if (port !== undefined && !(Number.isInteger(port) && port > 0 && port < 65536)) throw invalid();
  const [addressText = '', prefixText, ...rest] = range.split('/');
  const literal = parseIpLiteral(addressText);
  if (literal === undefined || rest.length > 0) throw invalid();
  const maxPrefix = literal.family === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? maxPrefix : Number(prefixText);
  if (!/^\d+$/.test(prefixText ?? '0') || prefix > maxPrefix) throw invalid();
  const network: [ipaddr.IPv6, number] = [
    asIpv6(literal.address, literal.family),
    literal.family === 4 ? 96 + prefix : prefix,
  ];
  return port === undefined ? { network } : { network, port };
}

/** `[v6...]:port`, `v4...:port` (exactly one colon), or a bare address/range with no port. */
function splitPort(text: string): { range: string; port?: number } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  if (bracketed !== null) {
    const [, range = '', port] = bracketed;
    return port === undefined ? { range } : { range, port: Number(port) };
  }
  const colons = text.split(':').length - 1;
  if (colons !== 1) return { range: text };
  const at = text.lastIndexOf(':');
  const port = text.slice(at + 1);
  return { range: text.slice(0, at), port: /^\d+$/.test(port) ? Number(port) : Number.NaN };
}
