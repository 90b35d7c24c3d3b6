/**
 * The address policy: IP literals in every spelling, the public/non-public verdict checked against an independent
 * arithmetic oracle over the range tables, IPv6 forms that embed IPv4, and the allowAddresses exception list.
 */
import assert from 'node:assert/strict';
import { isIP } from 'node:net';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseAllowList } from '../src/fetch/address-allow-list.js';
import { classifyAddress, describeAddress } from '../src/fetch/address-policy.js';
import { canonicalIpv6, parseIpLiteral } from '../src/fetch/ip-literal.js';
import { NON_PUBLIC_IPV4, NON_PUBLIC_IPV6 } from '../src/fetch/ip-ranges.js';

const runs = Number(process.env['AGENTRY_PROPERTY_RUNS'] ?? 300);
const byte = fc.integer({ min: 0, max: 255 });
const quad = fc.tuple(byte, byte, byte, byte);
const u32 = fc.integer({ min: 0, max: 2 ** 32 - 1 });

const dotted = ([a, b, c, d]: number[]): string => `${a}.${b}.${c}.${d}`;
const toInt = ([a, b, c, d]: number[]): number => ((a! << 24) | (b! << 16) | (c! << 8) | d!) >>> 0;
const fromInt = (n: number): number[] => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];

type Radix = 'dec' | 'hex' | 'oct';
const spell = (n: number, radix: Radix): string =>
  radix === 'dec' ? String(n) : radix === 'hex' ? `0x${n.toString(16)}` : `0${n.toString(8)}`;
const radix = fc.constantFrom<Radix>('dec', 'hex', 'oct');

/** The inet_aton spellings of an IPv4 address: 1 to 4 parts, the last part holding the remaining bytes. */
function spellings(bytes: number[], radices: Radix[]): string[] {
  const [a = 0, b = 0, c = 0, d = 0] = bytes;
  const r = (i: number): Radix => radices[i % radices.length]!;
  return [
    spell(toInt(bytes), r(0)),
    `${spell(a, r(0))}.${spell(((b << 16) | (c << 8) | d) >>> 0, r(1))}`,
    `${spell(a, r(0))}.${spell(b, r(1))}.${spell((c << 8) | d, r(2))}`,
    `${spell(a, r(0))}.${spell(b, r(1))}.${spell(c, r(2))}.${spell(d, r(3))}`,
  ];
}

/** The oracle: an IPv4 address is non-public when some range of the table contains it, by plain arithmetic. */
function inIpv4Table(n: number): string | undefined {
  for (const { cidr } of NON_PUBLIC_IPV4) {
    const [network = '', prefixText = ''] = cidr.split('/');
    const prefix = Number(prefixText);
    const shift = 32 - prefix;
    const base = toInt(network.split('.').map(Number));
    if (prefix === 0 || Math.floor(n / 2 ** shift) === Math.floor(base / 2 ** shift)) return cidr;
  }
  return undefined;
}

/** Expands an IPv6 address to its 128-bit value (test-side oracle; the code under test never does this). */
function ipv6ToBigInt(address: string): bigint {
  let text = address;
  const dottedTail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dottedTail !== null) {
    const n = toInt(dottedTail[1]!.split('.').map(Number));
    text = `${text.slice(0, -dottedTail[1]!.length)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = [
    ...headGroups,
    ...Array(8 - headGroups.length - tailGroups.length).fill('0'),
    ...tailGroups,
  ];
  return groups.reduce((value, group) => (value << 16n) | BigInt(Number.parseInt(group, 16)), 0n);
}

function bigIntToIpv6(value: bigint): string {
  const groups: string[] = [];
  for (let i = 7; i >= 0; i--) groups.push(((value >> BigInt(i * 16)) & 0xffffn).toString(16));
  return groups.join(':');
}

describe('parseIpLiteral', () => {
  it('reads every inet_aton spelling of an IPv4 address as the same address', () => {
    fc.assert(
      fc.property(quad, fc.array(radix, { minLength: 4, maxLength: 4 }), (bytes, radices) => {
        for (const spelling of spellings(bytes, radices)) {
          assert.deepEqual(parseIpLiteral(spelling), { address: dotted(bytes), family: 4 }, spelling);
          assert.deepEqual(
            parseIpLiteral(`${spelling}.`),
            { address: dotted(bytes), family: 4 },
            `${spelling}.`,
          );
        }
      }),
      { numRuns: runs },
    );
  });

  it("reads fast-check's extended IPv4 forms as a dotted quad", () => {
    fc.assert(
      fc.property(fc.ipV4Extended(), (text) => {
        const literal = parseIpLiteral(text);
        assert.ok(literal !== undefined, text);
        assert.equal(isIP(literal.address), 4);
      }),
      { numRuns: runs },
    );
  });

  it('reads an IPv6 address bracketed, upper-cased and with a zone id as the same address', () => {
    fc.assert(
      fc.property(fc.ipV6(), fc.stringMatching(/^[a-z][a-z0-9]{0,7}$/), (text, zone) => {
        const plain = parseIpLiteral(text);
        assert.ok(plain !== undefined && plain.family === 6, text);
        assert.equal(plain.address, canonicalIpv6(text));
        assert.deepEqual(parseIpLiteral(`[${text}]`), plain);
        assert.deepEqual(parseIpLiteral(text.toUpperCase()), plain);
        assert.deepEqual(parseIpLiteral(`${text}%${zone}`), { ...plain, zone });
        assert.deepEqual(parseIpLiteral(`[${text}%25${zone}]`), { ...plain, zone });
      }),
      { numRuns: runs },
    );
  });

  it('never throws, and returns only valid addresses', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (text) => {
        const literal = parseIpLiteral(text);
        if (literal !== undefined) assert.equal(isIP(literal.address), literal.family);
      }),
      { numRuns: runs * 3 },
    );
  });

  it('treats names and host:port text as names', () => {
    for (const text of [
      'example.com',
      'localhost',
      '127.0.0.1:80',
      'a@127.0.0.1',
      '1.2.3.4.5',
      '256.0.0.1',
      '',
      ' ',
    ]) {
      assert.equal(parseIpLiteral(text), undefined, text);
    }
  });
});

describe('classifyAddress', () => {
  it('agrees with arithmetic over the IPv4 table for any address, in any spelling', () => {
    fc.assert(
      fc.property(u32, radix, (n, r) => {
        const expected = inIpv4Table(n);
        const verdict = classifyAddress(spell(n, r));
        assert.equal(verdict.public, expected === undefined, dotted(fromInt(n)));
        if (!verdict.public) assert.equal(verdict.range, expected);
      }),
      { numRuns: runs * 3 },
    );
  });

  it('refuses every address of every IPv4 range, first and last included', () => {
    for (const { cidr } of NON_PUBLIC_IPV4) {
      const [network = '', prefix = ''] = cidr.split('/');
      const first = toInt(network.split('.').map(Number));
      const last = first + 2 ** (32 - Number(prefix)) - 1;
      for (const n of [first, last, first + Math.floor((last - first) / 2)]) {
        assert.equal(classifyAddress(dotted(fromInt(n))).public, false, `${dotted(fromInt(n))} in ${cidr}`);
      }
    }
  });

  it('refuses any address inside an IPv6 range', () => {
    const ranges = NON_PUBLIC_IPV6.map(({ cidr }) => {
      const [network = '', prefix = ''] = cidr.split('/');
      return { cidr, network: ipv6ToBigInt(network), prefix: Number(prefix) };
    });
    fc.assert(
      fc.property(
        fc.constantFrom(...ranges),
        fc.bigInt({ min: 0n, max: 2n ** 128n - 1n }),
        (range, random) => {
          const hostBits = 128 - range.prefix;
          const host = hostBits === 0 ? 0n : random & ((1n << BigInt(hostBits)) - 1n);
          const address = bigIntToIpv6(range.network | host);
          assert.equal(classifyAddress(address).public, false, `${address} in ${range.cidr}`);
        },
      ),
      { numRuns: runs },
    );
  });

  it('refuses IPv4-mapped addresses, dotted or hex, whatever they embed', () => {
    fc.assert(
      fc.property(quad, (bytes) => {
        const hex = `${((bytes[0]! << 8) | bytes[1]!).toString(16)}:${((bytes[2]! << 8) | bytes[3]!).toString(16)}`;
        for (const text of [`::ffff:${dotted(bytes)}`, `::ffff:${hex}`, `0:0:0:0:0:ffff:${hex}`]) {
          const verdict = classifyAddress(text);
          assert.equal(verdict.public, false, text);
          assert.equal(verdict.public ? '' : verdict.range, '::ffff:0:0/96');
        }
      }),
      { numRuns: runs },
    );
  });

  it('judges NAT64 and 6to4 addresses by the IPv4 address they embed', () => {
    fc.assert(
      fc.property(quad, fc.integer({ min: 0, max: 0xffff }), (bytes, suffix) => {
        const ipv4 = classifyAddress(dotted(bytes));
        const high = ((bytes[0]! << 8) | bytes[1]!).toString(16);
        const low = ((bytes[2]! << 8) | bytes[3]!).toString(16);
        const nat64 = classifyAddress(`64:ff9b::${dotted(bytes)}`);
        const sixToFour = classifyAddress(`2002:${high}:${low}::${suffix.toString(16)}`);
        assert.equal(nat64.public, ipv4.public, `64:ff9b::${dotted(bytes)}`);
        assert.equal(sixToFour.public, ipv4.public, `2002:${high}:${low}::`);
        if (!ipv4.public && !nat64.public) assert.equal(nat64.embeds?.range, ipv4.range);
      }),
      { numRuns: runs },
    );
  });

  it('says what an address is', () => {
    assert.equal(
      describeAddress(classifyAddress('0x7f.1')),
      '127.0.0.1 is not a public address (loopback, 127.0.0.0/8)',
    );
    assert.equal(
      describeAddress(classifyAddress('64:ff9b::10.0.0.1')),
      '64:ff9b::a00:1 is not a public address (NAT64, RFC 6052, 64:ff9b::/96, embedding private, RFC 1918 10.0.0.0/8)',
    );
    assert.equal(describeAddress(classifyAddress('8.8.8.8')), '8.8.8.8 is a public address');
  });

  it('rejects text that is not an address', () => {
    assert.throws(() => classifyAddress('example.com'), TypeError);
  });
});

describe('allowAddresses', () => {
  it('allows an address, a range, and either limited to a port', () => {
    const list = parseAllowList([
      '10.1.2.3',
      '192.168.0.0/16',
      '127.0.0.1:8443',
      '[::1]:9000',
      'fd00::/8',
      '[fe80::/10]:80',
    ]);
    assert.equal(list.allows('10.1.2.3', 4, 1), true);
    assert.equal(list.allows('10.1.2.4', 4, 1), false);
    assert.equal(list.allows('192.168.44.1', 4, 443), true);
    assert.equal(list.allows('127.0.0.1', 4, 8443), true);
    assert.equal(list.allows('127.0.0.1', 4, 8444), false);
    assert.equal(list.allows('::1', 6, 9000), true);
    assert.equal(list.allows('::1', 6, 9001), false);
    assert.equal(list.allows('fd12::1', 6, 5), true);
    assert.equal(list.allows('fe80::1', 6, 80), true);
    assert.equal(list.allows('fe80::1', 6, 81), false);
  });

  it('reads back any address, range and port it is given', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.ipV4(), fc.ipV6()),
        fc.option(fc.integer({ min: 0, max: 32 }), { nil: undefined }),
        fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }),
        (address, prefix, port) => {
          const v6 = address.includes(':');
          const range = prefix === undefined ? address : `${address}/${prefix}`;
          const entry = port === undefined ? range : v6 ? `[${range}]:${port}` : `${range}:${port}`;
          const list = parseAllowList([entry]);
          const family = v6 ? 6 : 4;
          const canonical = parseIpLiteral(address)!.address;
          assert.equal(list.allows(canonical, family, port ?? 443), true, entry);
          if (port !== undefined)
            assert.equal(list.allows(canonical, family, (port % 65535) + 1), false, entry);
        },
      ),
      { numRuns: runs },
    );
  });

  it('lets an IPv4 entry in through the IPv4-mapped address of the same socket, and a mapped entry in through IPv4', () => {
    const ipv4 = parseAllowList(['127.0.0.1:8443', '10.0.0.0/8']);
    assert.equal(ipv4.allows('::ffff:7f00:1', 6, 8443), true);
    assert.equal(ipv4.allows('::ffff:a01:203', 6, 1), true);
    assert.equal(ipv4.allows('::7f00:1', 6, 8443), false);
    assert.equal(ipv4.allows('::1', 6, 8443), false);
    const mapped = parseAllowList(['[::ffff:0:0/96]:80', '::ffff:7f00:1']);
    assert.equal(mapped.allows('8.8.8.8', 4, 80), true);
    assert.equal(mapped.allows('8.8.8.8', 4, 81), false);
    assert.equal(mapped.allows('127.0.0.1', 4, 81), true);
    assert.equal(parseAllowList(['::/96']).allows('127.0.0.1', 4, 80), false);
  });

  it('accepts any IPv4 spelling in an entry', () => {
    assert.equal(parseAllowList(['0x7f.1:80']).allows('127.0.0.1', 4, 80), true);
  });

  it('rejects entries that are not addresses or ranges, naming them', () => {
    for (const entry of [
      'example.com',
      '10.0.0.0/33',
      '::1/129',
      '127.0.0.1:0',
      '127.0.0.1:70000',
      '10.0.0.1/8/2',
      '[::1]:x',
      '',
    ]) {
      assert.throws(
        () => parseAllowList([entry]),
        (error: unknown) => error instanceof TypeError && error.message.includes(`"${entry}"`),
        entry,
      );
    }
  });
});
