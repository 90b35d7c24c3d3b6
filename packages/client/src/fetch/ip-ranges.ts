/**
 * The address ranges the secure fetcher treats as not public, from the IANA special-purpose registries (RFC 6890 and
 * its updates). A range is listed when a request to it could reach something that is not a public web server: the
 * local machine, a private or carrier network, a link, a multicast group, or space that is not routed at all
 * (documentation, benchmarking, reserved). Globally reachable special ranges (AS112, AMT, PCP anycast) are left out of
 * IPv4 and fall inside the blocked 2001::/23 block in IPv6, where no agent is hosted.
 */

export interface SpecialRange {
  /** Network address and prefix length, e.g. `10.0.0.0/8`. */
  readonly cidr: string;
  /** What the range is, for messages: `loopback`, `private, RFC 1918`. */
  readonly name: string;
}

/** IPv4 ranges that are not public. The first match names an address, so narrower ranges come first. */
export const NON_PUBLIC_IPV4: readonly SpecialRange[] = [
  { cidr: '0.0.0.0/8', name: 'unspecified, "this network"' },
  { cidr: '10.0.0.0/8', name: 'private, RFC 1918' },
  { cidr: '100.64.0.0/10', name: 'carrier-grade NAT, RFC 6598' },
  { cidr: '127.0.0.0/8', name: 'loopback' },
  { cidr: '169.254.0.0/16', name: 'link-local' },
  { cidr: '172.16.0.0/12', name: 'private, RFC 1918' },
  { cidr: '192.0.0.0/24', name: 'IETF protocol assignment, RFC 6890' },
  { cidr: '192.0.2.0/24', name: 'documentation, TEST-NET-1' },
  { cidr: '192.88.99.0/24', name: '6to4 relay anycast, deprecated, RFC 7526' },
  { cidr: '192.168.0.0/16', name: 'private, RFC 1918' },
  { cidr: '198.18.0.0/15', name: 'benchmarking, RFC 2544' },
  { cidr: '198.51.100.0/24', name: 'documentation, TEST-NET-2' },
  { cidr: '203.0.113.0/24', name: 'documentation, TEST-NET-3' },
  { cidr: '224.0.0.0/4', name: 'multicast' },
  { cidr: '255.255.255.255/32', name: 'broadcast' },
  { cidr: '240.0.0.0/4', name: 'reserved, future use' },
];

/**
 * IPv6 ranges that are not public, whatever they embed. IPv4-mapped, -compatible and -translated addresses are refused
 * outright: a socket connecting to one reaches the embedded IPv4 address, and no public host publishes one in DNS, so
 * they only ever serve as a disguise.
 */
export const NON_PUBLIC_IPV6: readonly SpecialRange[] = [
  { cidr: '::/128', name: 'unspecified' },
  { cidr: '::1/128', name: 'loopback' },
  { cidr: '::ffff:0:0/96', name: 'IPv4-mapped' },
  { cidr: '::ffff:0:0:0/96', name: 'IPv4-translated, RFC 6145' },
  { cidr: '::/96', name: 'IPv4-compatible, deprecated' },
  { cidr: '64:ff9b:1::/48', name: 'local-use NAT64, RFC 8215' },
  { cidr: '100::/64', name: 'discard-only, RFC 6666' },
  { cidr: '2001::/32', name: 'Teredo, RFC 4380' },
  { cidr: '2001::/23', name: 'IETF protocol assignment, RFC 2928' },
  { cidr: '2001:db8::/32', name: 'documentation, RFC 3849' },
  { cidr: '3fff::/20', name: 'documentation, RFC 9637' },
  { cidr: '5f00::/16', name: 'SRv6 segment identifier, RFC 9602' },
  { cidr: 'fc00::/7', name: 'unique local, RFC 4193' },
  { cidr: 'fe80::/10', name: 'link-local' },
  { cidr: 'fec0::/10', name: 'site-local, deprecated' },
  { cidr: 'ff00::/8', name: 'multicast' },
];

/** IPv6 ranges that carry an IPv4 address inside them; the address is as public as the IPv4 address it embeds. */
export interface EmbeddingRange extends SpecialRange {
  /** Where the embedded IPv4 address starts, in bytes of the IPv6 address (RFC 6052 §2.2 with a /96 prefix). */
  readonly ipv4At: number;
}

export const IPV4_EMBEDDING_IPV6: readonly EmbeddingRange[] = [
  { cidr: '64:ff9b::/96', name: 'NAT64, RFC 6052', ipv4At: 12 },
  { cidr: '2002::/16', name: '6to4, RFC 3056', ipv4At: 2 },
];

/** Everything public in IPv6 is global unicast; addresses outside it that no range above names are unassigned. */
export const IPV6_GLOBAL_UNICAST = '2000::/3';
