/**
 * Hosts of agent URIs: IPv6 literals, dotted-decimal IPv4, DNS names, DIDs, and the non-network names of
 * `agent+local://` and `agent+unix://`. Each is checked strictly so that what reaches the resolver is unambiguous:
 * numeric hosts in other spellings (`0x7f.1`, `2130706433`) are refused here rather than left for a fetcher to
 * interpret.
 */
import { checkChars, percentDecode, REG_NAME } from './chars.js';
import { AgentUriError } from './errors.js';

const IPV4_OCTET = '(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])';
const IPV4 = new RegExp(`^${IPV4_OCTET}(\\.${IPV4_OCTET}){3}$`);
const NUMERIC_LABEL = /^(0x[0-9a-f]*|[0-9]+)$/i;
const DNS_LABEL = /^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?$/;

export function isIpv4(text: string): boolean {
  return IPV4.test(text);
}

/** Checks an IP-literal's content (between the brackets); returns it lowercased. */
export function parseIpv6(text: string, offset: number, input: string): string {
  if (/^v/i.test(text)) {
    throw new AgentUriError(
      `IPvFuture literals ('[v...]' at offset ${offset - 1}) are not supported; use an IPv6 address or a host name.`,
      'host',
      offset,
      input,
    );
  }
  const zone = text.indexOf('%');
  if (zone >= 0) {
    throw new AgentUriError(
      `IPv6 zone identifiers ('%' at offset ${offset + zone}) are not supported in agent URIs.`,
      'host',
      offset + zone,
      input,
    );
  }
  // The platform's URL parser is a complete IPv6 address grammar; bracketed, it accepts nothing else.
  if (!/^[0-9A-Fa-f:.]+$/.test(text) || !URL.canParse(`http://[${text}]/`)) {
    throw new AgentUriError(
      `'[${text}]' at offset ${offset - 1} is not a valid IPv6 address.`,
      'host',
      offset,
      input,
    );
  }
  return text.toLowerCase();
}

/** Checks a reg-name host as a DNS name or a dotted-decimal IPv4 address; returns it lowercased. */
export function parseNetworkHost(
  text: string,
  offset: number,
  input: string,
): { host: string; kind: 'dns' | 'ipv4' } {
  checkChars(text, offset, input, 'host', REG_NAME);
  // Percent-encoded letters are legal in a reg-name (§3.2.2); DNS names only ever decode to letters, digits, '-', '.'.
  const host = percentDecode(text, offset, input, 'host').toLowerCase();
  if (isIpv4(host)) return { host, kind: 'ipv4' };
  const labels = (host.endsWith('.') ? host.slice(0, -1) : host).split('.');
  if (NUMERIC_LABEL.test(labels[labels.length - 1] ?? '')) {
    throw new AgentUriError(
      `The host '${text}' at offset ${offset} looks like an IPv4 address in a non-standard spelling; write it in dotted decimal (a.b.c.d) or use a DNS name.`,
      'host',
      offset,
      input,
    );
  }
  let at = offset;
  for (const label of labels) {
    if (!DNS_LABEL.test(label) || label.length > 63) {
      const what = label === '' ? 'an empty label' : `the label '${label}'`;
      throw new AgentUriError(
        `The host '${text}' has ${what} near offset ${at}: DNS labels are 1–63 letters, digits, '-' or '_', not starting or ending with '-'.`,
        'host',
        at,
        input,
      );
    }
    at += label.length + 1;
  }
  if (host.length > 253) {
    throw new AgentUriError(
      `The host at offset ${offset} is longer than 253 characters.`,
      'host',
      offset,
      input,
    );
  }
  return { host, kind: 'dns' };
}

/** Checks and decodes a reg-name that is a name rather than a network host (agent+local, agent+unix). */
export function parseName(text: string, offset: number, input: string): string {
  checkChars(text, offset, input, 'host', REG_NAME);
  return percentDecode(text, offset, input, 'host');
}
