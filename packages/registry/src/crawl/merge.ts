/**
 * One origin, several documents, one agent each: the same agent published as a WoA entry, an A2A card, a TD and an
 * MCP projection becomes one crawled agent with several sources (docs/crawler.md, "Merging").
 *
 * Descriptions are taken richest first (ties: format order, then URL), and each joins the first group that
 * - has a member with the same id, or
 * - has a member with the same name (case and spacing ignored), or
 * - shares at least half of its operation names (Jaccard ≥ 0.5), or, for an AWP surface (whose id is a domain),
 *   is the only group there is;
 * never a group that already holds a description of the same format under another id (two agents of one format
 * with different ids are two agents). Otherwise it starts a group. The merged agent is the richest description
 * with the gaps filled from the others in group order; bindings are the union; the id is the member id of the
 * format best at naming agents (WoA, agent://, AIDIP, TD, MCP, A2A, agents.json, AWP), so it stays stable while
 * that document does.
 */
import type { Agent, Binding, FormatName } from '@agentry/core';
import type { AgentSource, CrawledAgent } from './types.js';

/** One agent as one document describes it. */
export interface Description {
  agent: Agent;
  format: FormatName;
  documentUrl: string;
  source: AgentSource;
}

export interface Merged {
  agents: CrawledAgent[];
  /** Document URL → ids of the merged agents it contributed to. */
  agentIdsByDocument: Map<string, string[]>;
}

/** Tie-break between equally rich descriptions: the formats that say most about an agent first. */
const RICHNESS_ORDER: readonly FormatName[] = [
  'woa',
  'agent-json',
  'aidip',
  'td',
  'a2a',
  'mcp',
  'awp',
  'agents-json',
];
/** Whose id names the merged agent. */
const ID_ORDER: readonly FormatName[] = [
  'woa',
  'agent-json',
  'aidip',
  'td',
  'mcp',
  'a2a',
  'agents-json',
  'awp',
];

export function mergeDescriptions(origin: string, descriptions: readonly Description[]): Merged {
  const sorted = [...descriptions].sort(
    (a, b) =>
      richness(b.agent) - richness(a.agent) ||
      RICHNESS_ORDER.indexOf(a.format) - RICHNESS_ORDER.indexOf(b.format) ||
      compare(a.documentUrl, b.documentUrl) ||
      compare(a.agent.id, b.agent.id),
  );
  const groups: Description[][] = [];
  for (const description of sorted) {
    const group = groups.find((candidate) => belongs(description, candidate, groups.length));
    if (group === undefined) groups.push([description]);
    else group.push(description);
  }
  const agents: CrawledAgent[] = [];
  const agentIdsByDocument = new Map<string, string[]>();
  const taken = new Set<string>();
  for (const group of groups) {
    const crawled = mergeGroup(origin, group, taken);
    agents.push(crawled);
    for (const member of group) {
      const ids = agentIdsByDocument.get(member.documentUrl) ?? [];
      if (!ids.includes(crawled.id)) ids.push(crawled.id);
      agentIdsByDocument.set(member.documentUrl, ids);
    }
  }
  agents.sort((a, b) => compare(a.id, b.id));
  return { agents, agentIdsByDocument };
}

function belongs(description: Description, group: readonly Description[], groupCount: number): boolean {
  const { agent, format } = description;
  if (group.some((member) => member.format === format && member.agent.id !== agent.id)) return false;
  if (group.some((member) => member.agent.id === agent.id)) return true;
  const name = normalName(agent.name);
  if (name !== '' && group.some((member) => normalName(member.agent.name) === name)) return true;
  if (operationOverlap(agent, group[0]!.agent) >= 0.5) return true;
  return format === 'awp' && groupCount === 1;
}

function mergeGroup(origin: string, group: readonly Description[], taken: Set<string>): CrawledAgent {
  const [primary, ...others] = group as [Description, ...Description[]];
  const agent: Agent = structuredClone(primary.agent);
  for (const other of others) fillGaps(agent, other.agent);
  const namer = [...group].sort((a, b) => ID_ORDER.indexOf(a.format) - ID_ORDER.indexOf(b.format))[0]!;
  let id = namer.agent.id;
  // Two groups can only share an id across formats that name agents differently; keep identities distinct.
  for (let n = 2; taken.has(id); n++) id = `${namer.agent.id}~${n}`;
  taken.add(id);
  agent.id = id;
  const sources = group.map((member, index) => ({ ...member.source, primary: index === 0 }));
  return {
    id,
    agent,
    sources,
    synthetic: group.every((member) => member.source.origin === 'synthetic'),
    foreignClaims: foreignClaims(origin, agent),
  };
}

/**
 * Fields the primary lacks, taken from another description of the same agent (the registry merges an entry's
 * sources by it too).
 */
export function fillGaps(agent: Agent, other: Agent): void {
  if (agent.description.trim() === '' && other.description.trim() !== '')
    agent.description = other.description;
  if (agent.name === agent.id && other.name !== other.id) agent.name = other.name;
  for (const key of SCALAR_FIELDS) {
    if (agent[key] === undefined && other[key] !== undefined) {
      (agent as unknown as Record<string, unknown>)[key] = structuredClone(other[key]);
    }
  }
  for (const key of LIST_FIELDS) {
    const merged = union(agent[key], other[key]);
    if (merged !== undefined) agent[key] = merged;
  }
  if (agent.operations.length === 0 && other.operations.length > 0) {
    agent.operations = structuredClone(other.operations);
  } else {
    // One operation described twice (a WoA operation and the A2A skill of the same name): what one lacks, such as
    // the schemas a card has no place for, comes from the other.
    for (const operation of agent.operations) {
      const twin = other.operations.find((candidate) => candidate.name === operation.name);
      if (twin === undefined) continue;
      for (const [key, value] of Object.entries(twin)) {
        const fields = operation as unknown as Record<string, unknown>;
        if (fields[key] === undefined) fields[key] = structuredClone(value);
      }
    }
  }
  const known = new Set(agent.bindings.map(bindingKey));
  for (const binding of other.bindings) {
    const key = bindingKey(binding);
    if (known.has(key)) continue;
    known.add(key);
    agent.bindings.push(structuredClone(binding));
  }
  if (other.extensions !== undefined) {
    agent.extensions = { ...structuredClone(other.extensions), ...agent.extensions };
  }
}

const SCALAR_FIELDS = [
  'version',
  'publisher',
  'url',
  'documentationUrl',
  'iconUrl',
  'status',
  'auth',
  'surface',
  'supportedVersions',
  'inputModes',
  'outputModes',
] as const satisfies ReadonlyArray<keyof Agent>;

const LIST_FIELDS = ['tags', 'capabilities', 'languages'] as const satisfies ReadonlyArray<keyof Agent>;

function union(a: string[] | undefined, b: string[] | undefined): string[] | undefined {
  if (b === undefined || b.length === 0) return a;
  if (a === undefined) return [...b];
  return [...new Set([...a, ...b])];
}

/** Where a binding sends calls: two descriptions of one endpoint are one binding. */
function bindingKey(binding: Binding): string {
  switch (binding.kind) {
    case 'woa-rest':
      return `woa-rest ${binding.base}${binding.invokePath}`;
    case 'http':
      return `http ${binding.method} ${binding.url}`;
    case 'mcp':
      return `mcp ${binding.server} ${binding.package?.identifier ?? ''}`;
    case 'a2a':
      return `a2a ${binding.protocolBinding} ${binding.url}`;
    case 'wss':
      return `wss ${binding.url}`;
    case 'unix':
      return `unix ${binding.socketPath} ${binding.path ?? ''}`;
    case 'local':
      return `local ${binding.name}`;
    case 'other':
      return `other ${binding.protocol} ${JSON.stringify(binding.config)}`;
  }
}

/** How much a description says: operations and their schemas, bindings, then filled-in fields. */
export function richness(agent: Agent): number {
  let score = agent.operations.length * 4 + agent.bindings.length * 3;
  for (const operation of agent.operations) {
    if (operation.input !== undefined) score++;
    if (operation.output !== undefined) score++;
    if (operation.description !== undefined && operation.description !== '') score++;
  }
  if (agent.description.trim() !== '') score++;
  for (const key of [...SCALAR_FIELDS, ...LIST_FIELDS]) if (agent[key] !== undefined) score++;
  return score;
}

function operationOverlap(a: Agent, b: Agent): number {
  if (a.operations.length === 0 || b.operations.length === 0) return 0;
  const left = new Set(a.operations.map((operation) => operation.name));
  const right = new Set(b.operations.map((operation) => operation.name));
  let shared = 0;
  for (const name of left) if (right.has(name)) shared++;
  return shared / (left.size + right.size - shared);
}

function normalName(name: string): string {
  return name.trim().toLowerCase().replace(/\s+/g, ' ');
}

/** Sites other than the crawled origin's that the agent's URL and bindings name as its home. */
export function foreignClaims(origin: string, agent: Agent): string[] {
  const home = siteOf(new URL(origin).hostname);
  const claims = new Set<string>();
  const consider = (value: string | undefined): void => {
    if (value === undefined || !URL.canParse(value)) return;
    const url = new URL(value);
    if (
      !['https:', 'http:', 'wss:', 'ws:', 'agent:'].includes(url.protocol) &&
      !url.protocol.startsWith('agent+')
    ) {
      return;
    }
    if (url.hostname === '' || siteOf(url.hostname) === home) return;
    claims.add(url.host);
  };
  consider(agent.url);
  for (const binding of agent.bindings) {
    if (binding.kind === 'woa-rest') consider(binding.base);
    else if (binding.kind === 'mcp') consider(binding.server);
    else if ('url' in binding) consider(binding.url);
  }
  return [...claims].sort();
}

/** The name's last two labels (a stand-in for its registrable domain), or the whole of an IP address. */
function siteOf(hostname: string): string {
  if (/^[\d.]+$/.test(hostname) || hostname.includes(':') || hostname.startsWith('[')) return hostname;
  return hostname.split('.').slice(-2).join('.');
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
