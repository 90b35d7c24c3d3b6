/**
 * The policy's verdict on connecting to an address on a port, remembered per address: the verdict is a pure function
 * of the address, the port and the policy (which is fixed when the fetcher is created), so every request still has
 * each address it resolved to checked, without classifying the same address over and over (each classification
 * parses the address with ipaddr.js's regular expressions). Only verdicts are remembered, never what a name resolves
 * to. The tables are bounded: the oldest entries go first (all of them, when too many ports are in use).
 */

import type { AddressAllowList } from './address-allow-list.js';
import { classifyLiteral, type NonPublicAddress } from './address-policy.js';
import { type IpLiteral, parseIpLiteral } from './ip-literal.js';

const MAX_ENTRIES = 512;
const MAX_PORTS = 16;

/** What the policy says about an address on a port: `null` when it may be connected to, else why it may not. */
export type AddressVerdict = NonPublicAddress | null;

export class AddressVerdicts {
  readonly #allowPrivateNetwork: boolean;
  readonly #allowList: AddressAllowList;
  /** Address text as a resolver wrote it → the address parsed (port-independent). */
  readonly #parsed = new Map<string, IpLiteral>();
  /** Port → canonical address → verdict. */
  readonly #verdicts = new Map<number, Map<string, AddressVerdict>>();

  constructor(allowPrivateNetwork: boolean, allowList: AddressAllowList) {
    this.#allowPrivateNetwork = allowPrivateNetwork;
    this.#allowList = allowList;
  }

  /** `parseIpLiteral`, remembered: undefined for text that is not an IP address. */
  parse(text: string): IpLiteral | undefined {
    const known = this.#parsed.get(text);
    if (known !== undefined) return known;
    const literal = parseIpLiteral(text);
    if (literal !== undefined) remember(this.#parsed, text, literal);
    return literal;
  }

  /**
   * Null when connecting to the address on the port is allowed: a public address, or a non-public one that
   * allowPrivateNetwork or an allowAddresses entry (for the address and port) lets through. Otherwise the address's
   * class, saying why not.
   */
  verdict(literal: IpLiteral, port: number): AddressVerdict {
    if (this.#allowPrivateNetwork) return null;
    let onPort = this.#verdicts.get(port);
    if (onPort === undefined) {
      if (this.#verdicts.size >= MAX_PORTS) this.#verdicts.clear();
      onPort = new Map();
      this.#verdicts.set(port, onPort);
    }
    const known = onPort.get(literal.address);
    if (known !== undefined) return known;
    const verdict = classifyLiteral(literal);
    const refusal =
      verdict.public || this.#allowList.allows(verdict.address, verdict.family, port) ? null : verdict;
    remember(onPort, literal.address, refusal);
    return refusal;
  }
}

function remember<V>(table: Map<string, V>, key: string, value: V): void {
  if (table.size >= MAX_ENTRIES) {
    const oldest = table.keys().next();
    if (oldest.done !== true) table.delete(oldest.value);
  }
  table.set(key, value);
}
