/**
 * One agent, several descriptions: what each source of an entry said (a registration of one format, a crawl of an
 * origin, an import from another registry), and the one agent the entry shows, merged from them
 * (docs/registry.md, "Identity").
 *
 * Which sources shape the entry: those the registry can vouch for (verified provenance: the agent's own origin
 * served it, or its signature checked) and the owner's registrations. A copy crawled or imported from elsewhere is
 * listed as a source but says nothing about the agent while one of those exists, so a third party cannot write
 * into someone else's entry. Of the sources that shape it, the verified ones come first, then the richest; the
 * first is the primary and the others fill its gaps (crawl/merge.ts's rule, the one the crawler merges an
 * origin's documents by).
 */
import type { Agent, FormatName } from '@agentry/core';
import { fillGaps, richness } from '../crawl/merge.js';
import type { SafetyFlag } from './types.js';

/** How a source reached the registry. */
export type SourceArrival = 'registered' | 'crawled' | 'imported';

/** One document a source was read from. */
export interface SourceDocument {
  format: FormatName;
  /** Where it was read; absent for a description posted to the API. */
  url?: string;
  /** When it was fetched (crawled, imported) or registered. */
  at: string;
}

export interface AgentSource {
  /**
   * Unique within the entry, and for crawled and imported sources across the registry: `registered <format>`,
   * `crawled <host> <id>`, `imported <host> <id>`.
   */
  key: string;
  arrival: SourceArrival;
  /** Who brought it: the publisher that registered it, or `crawler:<host>`. */
  by: string;
  /** The agent's id as the source names it. */
  handle: string;
  format: FormatName;
  documents: SourceDocument[];
  /** The agent as this source describes it. */
  agent: Agent;
  /** The untrusted-text scan's findings in this source's description. */
  flags: SafetyFlag[];
  verified: boolean;
  /** When this source last changed. */
  at: string;
}

/** The key of a registered source: one per format an owner registered the agent in. */
export function registeredSourceKey(format: FormatName): string {
  return `registered ${format}`;
}

/** The key of a crawled or imported source: the origin's host and the agent's id there. */
export function fetchedSourceKey(arrival: 'crawled' | 'imported', host: string, handle: string): string {
  return `${arrival} ${host} ${handle}`;
}

export interface MergedSources {
  /** The agent the entry shows (its id is the source's; the store replaces it with the entry's). */
  agent: Agent;
  primary: AgentSource;
  /** Findings of the sources that shaped the agent, each once. */
  flags: SafetyFlag[];
}

/** The sources that shape the entry, primary first. */
export function contributors(sources: readonly AgentSource[]): AgentSource[] {
  const vouched = sources.filter((source) => source.verified || source.arrival === 'registered');
  const chosen = vouched.length > 0 ? vouched : [...sources];
  return chosen.sort(
    (a, b) =>
      Number(b.verified) - Number(a.verified) ||
      richness(b.agent) - richness(a.agent) ||
      Number(b.arrival === 'registered') - Number(a.arrival === 'registered') ||
      compare(a.key, b.key),
  );
}

export function mergeSources(sources: readonly AgentSource[]): MergedSources {
  const [primary, ...others] = contributors(sources);
  if (primary === undefined) throw new Error('An entry without sources has no agent.');
  // Filling gaps writes into the agent: a copy, unless nothing is filled in.
  const agent = others.length === 0 ? primary.agent : structuredClone(primary.agent);
  for (const other of others) fillGaps(agent, other.agent);
  const flags: SafetyFlag[] = [];
  const seen = new Set<string>();
  for (const source of [primary, ...others]) {
    for (const flag of source.flags) {
      const key = `${flag.rule}\u0000${flag.pointer}\u0000${flag.excerpt}`;
      if (seen.has(key)) continue;
      seen.add(key);
      flags.push(flag);
    }
  }
  return { agent, primary, flags };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
