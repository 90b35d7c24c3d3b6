/**
 * The vocabulary the TD codec reads and writes beyond TD 1.1 itself: the ADR-0015 capability fields (under our
 * `agentry:` prefix and, when reading, also under the ADR's own `trails:` prefix), the ADR's reused terms
 * (`schema:softwareVersion`, `prov:wasRevisionOf`, `dct:description`), and our terms for canonical operation fields
 * TD has no word for. Terms are recognised by their expanded IRI, so a document may bind any prefix it likes.
 */
import type { Operation } from '../../model/agent.js';
import {
  AGENTRY_NS,
  AGENTRY_PREFIX,
  DCTERMS_NS,
  PROV_NS,
  SCHEMA_ORG_NS,
  TRAILS_NS,
} from '../../vocabulary.js';

/** How a term's value is read into the canonical field. */
export type TermValueKind =
  | 'string'
  | 'boolean'
  | 'json'
  /** A list; a single value is read as a list of one. */
  | 'jsonList'
  | 'stringList'
  | 'sensitivity'
  | 'examples'
  | 'idempotency';

export interface OperationTerm {
  field: keyof Operation;
  /** Local name under `agentry:`. */
  local: string;
  /** Local name of the ADR-0015 `trails:` term carrying the same field. */
  trails?: string;
  kind: TermValueKind;
}

/** Canonical operation fields carried by our own (and the ADR's) action-level terms, in the order we write them. */
export const OPERATION_TERMS: readonly OperationTerm[] = [
  // ADR-0015 fields 6–9 and 12–14.
  { field: 'preconditions', local: 'precondition', trails: 'precondition', kind: 'jsonList' },
  { field: 'sideEffects', local: 'sideEffect', trails: 'sideEffect', kind: 'json' },
  { field: 'costEstimate', local: 'costEstimate', trails: 'costEstimate', kind: 'json' },
  { field: 'policiesRequired', local: 'policyRequired', trails: 'policyRequired', kind: 'stringList' },
  { field: 'reasoningMode', local: 'reasoningMode', trails: 'reasoningMode', kind: 'string' },
  { field: 'assurance', local: 'assurance', trails: 'assurance', kind: 'string' },
  { field: 'versionStatus', local: 'versionStatus', trails: 'versionStatus', kind: 'string' },
  // Behavioural metadata (agent:// §7).
  { field: 'deterministic', local: 'deterministic', kind: 'boolean' },
  { field: 'outputVariability', local: 'outputVariability', kind: 'string' },
  { field: 'latency', local: 'latency', kind: 'string' },
  { field: 'requiresContext', local: 'requiresContext', kind: 'boolean' },
  { field: 'memoryEnabled', local: 'memoryEnabled', kind: 'boolean' },
  { field: 'confidenceEstimation', local: 'confidenceEstimation', kind: 'boolean' },
  // Effects and calling contract (AWP §9).
  { field: 'sensitivity', local: 'sensitivity', kind: 'sensitivity' },
  { field: 'requiresConfirmation', local: 'requiresConfirmation', kind: 'boolean' },
  { field: 'reversible', local: 'reversible', kind: 'boolean' },
  { field: 'authRequired', local: 'authRequired', kind: 'boolean' },
  { field: 'rateLimit', local: 'rateLimit', kind: 'string' },
  { field: 'idempotency', local: 'idempotency', kind: 'idempotency' },
  { field: 'dependsOn', local: 'dependsOn', kind: 'stringList' },
  { field: 'pollEndpoint', local: 'pollEndpoint', kind: 'string' },
  { field: 'streaming', local: 'streaming', kind: 'boolean' },
  // Discovery aids.
  { field: 'tags', local: 'tags', kind: 'stringList' },
  { field: 'examples', local: 'examples', kind: 'examples' },
  { field: 'inputModes', local: 'inputModes', kind: 'stringList' },
  { field: 'outputModes', local: 'outputModes', kind: 'stringList' },
];

/** The Thing-level term holding the canonical agent id (the TD `id` is a URI; agent ids usually are not). */
export const AGENT_ID_TERM = 'agentId';

/** Security scheme classes for canonical scheme types TD 1.1 has no scheme for (TD requires them prefixed). */
export const SECURITY_CLASSES = {
  openIdConnect: 'OpenIdConnectSecurityScheme',
  mtls: 'MutualTlsSecurityScheme',
  other: 'OtherSecurityScheme',
} as const;
/** Properties of those schemes. */
export const SECURITY_TERMS = { openIdConnectUrl: 'openIdConnectUrl', schemeName: 'schemeName' } as const;

/** The class of the documents we emit (`agentry:AgentCard rdfs:subClassOf td:Thing`). */
export const AGENT_CARD_CLASS = 'AgentCard';

/** Every `agentry:` term the emitter can write; the ontology and the JSON-LD context define each of them. */
export const EMITTED_AGENTRY_TERMS: readonly string[] = [
  AGENT_CARD_CLASS,
  AGENT_ID_TERM,
  ...OPERATION_TERMS.map((term) => term.local),
  ...Object.values(SECURITY_CLASSES),
  ...Object.values(SECURITY_TERMS),
];

export const HTV_NS = 'http://www.w3.org/2011/http#';
export const TM_NS = 'https://www.w3.org/2019/wot/tm#';
const SCHEMA_ORG_HTTP_NS = 'http://schema.org/';

/** Prefixes we write into our `@context`, and read with these meanings when a document forgets to declare them. */
export const EMITTED_PREFIXES: Readonly<Record<string, string>> = {
  [AGENTRY_PREFIX]: AGENTRY_NS,
  schema: SCHEMA_ORG_NS,
  prov: PROV_NS,
  dct: DCTERMS_NS,
};

/** Prefixes assumed when a document uses them without declaring them (the TD context declares htv, tm, dct). */
export const DEFAULT_PREFIXES: Readonly<Record<string, string>> = {
  ...EMITTED_PREFIXES,
  trails: TRAILS_NS,
  htv: HTV_NS,
  tm: TM_NS,
  td: 'https://www.w3.org/2019/wot/td#',
};

/** What a recognised key means. */
export type KnownTerm =
  | { kind: 'operation'; term: OperationTerm; source: 'agentry' | 'trails' }
  | { kind: 'softwareVersion' }
  | { kind: 'revisionOf' }
  | { kind: 'dctDescription' }
  | { kind: 'agentId' }
  | { kind: 'methodName' }
  | { kind: 'securityClass'; type: keyof typeof SECURITY_CLASSES }
  | { kind: 'openIdConnectUrl' }
  | { kind: 'schemeName' }
  | { kind: 'agentCard' }
  | { kind: 'thingModel' };

const KNOWN_IRIS: ReadonlyMap<string, KnownTerm> = (() => {
  const map = new Map<string, KnownTerm>();
  for (const term of OPERATION_TERMS) {
    map.set(AGENTRY_NS + term.local, { kind: 'operation', term, source: 'agentry' });
    if (term.trails !== undefined)
      map.set(TRAILS_NS + term.trails, { kind: 'operation', term, source: 'trails' });
  }
  map.set(SCHEMA_ORG_NS + 'softwareVersion', { kind: 'softwareVersion' });
  map.set(SCHEMA_ORG_HTTP_NS + 'softwareVersion', { kind: 'softwareVersion' });
  map.set(PROV_NS + 'wasRevisionOf', { kind: 'revisionOf' });
  map.set(DCTERMS_NS + 'description', { kind: 'dctDescription' });
  map.set(AGENTRY_NS + AGENT_ID_TERM, { kind: 'agentId' });
  map.set(HTV_NS + 'methodName', { kind: 'methodName' });
  for (const [type, local] of Object.entries(SECURITY_CLASSES))
    map.set(AGENTRY_NS + local, { kind: 'securityClass', type: type as keyof typeof SECURITY_CLASSES });
  map.set(AGENTRY_NS + SECURITY_TERMS.openIdConnectUrl, { kind: 'openIdConnectUrl' });
  map.set(AGENTRY_NS + SECURITY_TERMS.schemeName, { kind: 'schemeName' });
  map.set(AGENTRY_NS + AGENT_CARD_CLASS, { kind: 'agentCard' });
  map.set(TM_NS + 'ThingModel', { kind: 'thingModel' });
  return map;
})();

/**
 * Expands compact IRIs (`trails:assurance`) with the prefixes a document's `@context` declares, and says which of
 * our known terms a key is. One per document: keys repeat across actions, so answers are cached. Documents that
 * declare no prefix beyond ours (with our meanings), like every AgentCard we write, share one resolver whose
 * answers are computed once, when this module loads.
 */
export class TermResolver {
  private readonly cache = new Map<string, KnownTerm | null>();

  /** `table`: every key that is a known term under `prefixes`, with its meaning; when given, the whole answer. */
  private constructor(
    private readonly prefixes: ReadonlyMap<string, string>,
    private readonly table?: ReadonlyMap<string, KnownTerm>,
  ) {}

  /** Reads the prefix declarations of a TD `@context` (strings and `{ "@id": ... }` values of its objects). */
  static forContext(context: unknown): TermResolver {
    // Stays undefined while every declaration only repeats a default prefix: the shared resolver then answers.
    let prefixes: Map<string, string> | undefined;
    const entries = Array.isArray(context) ? context : [context];
    for (const entry of entries) {
      if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) continue;
      const declarations = entry as Record<string, unknown>;
      for (const prefix of Object.keys(declarations)) {
        if (prefix.startsWith('@')) continue;
        const value = declarations[prefix];
        const iri = typeof value === 'string' ? value : idOf(value);
        if (iri === undefined) continue;
        if (prefixes === undefined) {
          if (Object.hasOwn(DEFAULT_PREFIXES, prefix) && DEFAULT_PREFIXES[prefix] === iri) continue;
          prefixes = new Map(DEFAULT_PREFIX_MAP);
        }
        prefixes.set(prefix, iri);
      }
    }
    return prefixes === undefined ? DEFAULT_RESOLVER : new TermResolver(prefixes);
  }

  /** The IRI a key or compact value stands for (the key itself when it has no declared prefix). */
  expand(key: string): string {
    const colon = key.indexOf(':');
    if (colon <= 0) return key;
    const namespace = this.prefixes.get(key.slice(0, colon));
    return namespace === undefined ? key : namespace + key.slice(colon + 1);
  }

  /** Which known term `key` is, or undefined. Plain TD terms (no colon) are never ours. */
  known(key: string): KnownTerm | undefined {
    if (this.table !== undefined) return this.table.get(key);
    if (!key.includes(':')) return undefined;
    let answer = this.cache.get(key);
    if (answer === undefined) {
      answer = KNOWN_IRIS.get(this.expand(key)) ?? null;
      this.cache.set(key, answer);
    }
    return answer ?? undefined;
  }

  /**
   * The resolver for `prefixes` with every answer computed up front: each known IRI under each prefix it starts
   * with, and itself when what precedes its first colon (`https`) is not a declared prefix. These are exactly the
   * keys `expand` turns into a known IRI.
   */
  static precomputed(prefixes: ReadonlyMap<string, string>): TermResolver {
    const table = new Map<string, KnownTerm>();
    for (const [iri, term] of KNOWN_IRIS) {
      const colon = iri.indexOf(':');
      if (colon > 0 && !prefixes.has(iri.slice(0, colon))) table.set(iri, term);
      for (const [prefix, namespace] of prefixes) {
        // A key's prefix is what precedes its first colon, so prefixes that are empty or hold a colon never apply.
        if (prefix === '' || prefix.includes(':') || !iri.startsWith(namespace)) continue;
        table.set(`${prefix}:${iri.slice(namespace.length)}`, term);
      }
    }
    return new TermResolver(prefixes, table);
  }
}

const DEFAULT_PREFIX_MAP: ReadonlyMap<string, string> = new Map(Object.entries(DEFAULT_PREFIXES));
const DEFAULT_RESOLVER = TermResolver.precomputed(DEFAULT_PREFIX_MAP);

function idOf(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const id = (value as Record<string, unknown>)['@id'];
  return typeof id === 'string' ? id : undefined;
}

/** `agentry:<local>`, the compact form we write. */
export function agentryTerm(local: string): string {
  return `${AGENTRY_PREFIX}:${local}`;
}
