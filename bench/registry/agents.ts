/**
 * Deterministic, realistic-looking agents for the registry bench: AIDIP metadata documents across a dozen domains,
 * each with a name, a description of a sentence or two, tags, capabilities, languages and one to four operations
 * with JSON Schema inputs. The same index always gives the same agent.
 */
import { type Agent, readDocument } from '@agentry/core';
import { seededUniform } from '../../packages/embeddings/src/vectors/seeded-uniform.js';
import type { SearchDocument } from '../../packages/registry/src/search/types.js';

interface Domain {
  name: string;
  nouns: string[];
  verbs: string[];
  tags: string[];
  capabilities: string[];
  params: string[];
}

const DOMAINS: Domain[] = [
  {
    name: 'weather',
    nouns: ['forecast', 'temperature', 'rainfall', 'wind', 'air quality'],
    verbs: ['get', 'predict', 'report', 'compare'],
    tags: ['weather', 'climate', 'geo'],
    capabilities: ['forecasting', 'data_retrieval'],
    params: ['city', 'latitude', 'longitude', 'days'],
  },
  {
    name: 'translation',
    nouns: ['text', 'document', 'subtitle', 'web page', 'message'],
    verbs: ['translate', 'detect', 'localize', 'transliterate'],
    tags: ['nlp', 'language', 'translation'],
    capabilities: ['translation', 'language_detection'],
    params: ['text', 'source_language', 'target_language'],
  },
  {
    name: 'finance',
    nouns: ['stock quote', 'exchange rate', 'portfolio', 'invoice', 'earnings report'],
    verbs: ['fetch', 'analyze', 'convert', 'summarize'],
    tags: ['finance', 'markets', 'data'],
    capabilities: ['data_retrieval', 'analysis'],
    params: ['symbol', 'currency', 'amount', 'date'],
  },
  {
    name: 'travel',
    nouns: ['flight', 'hotel room', 'train ticket', 'rental car', 'itinerary'],
    verbs: ['search', 'book', 'cancel', 'plan'],
    tags: ['travel', 'booking', 'tourism'],
    capabilities: ['booking', 'search'],
    params: ['origin', 'destination', 'date', 'passengers'],
  },
  {
    name: 'code',
    nouns: ['pull request', 'repository', 'unit test', 'bug report', 'code snippet'],
    verbs: ['review', 'generate', 'refactor', 'explain'],
    tags: ['developer', 'code', 'git'],
    capabilities: ['code_generation', 'code_review'],
    params: ['repository', 'language', 'diff', 'path'],
  },
  {
    name: 'documents',
    nouns: ['PDF', 'contract', 'legal document', 'report', 'spreadsheet'],
    verbs: ['summarize', 'extract', 'classify', 'redact'],
    tags: ['documents', 'nlp', 'office'],
    capabilities: ['summarization', 'extraction'],
    params: ['url', 'text', 'max_length', 'format'],
  },
  {
    name: 'health',
    nouns: ['symptom', 'medication', 'appointment', 'lab result', 'clinical trial'],
    verbs: ['check', 'schedule', 'explain', 'find'],
    tags: ['health', 'medical'],
    capabilities: ['search', 'scheduling'],
    params: ['patient_id', 'condition', 'date', 'location'],
  },
  {
    name: 'commerce',
    nouns: ['product', 'order', 'shopping cart', 'coupon', 'shipment'],
    verbs: ['track', 'search', 'recommend', 'return'],
    tags: ['ecommerce', 'shopping', 'retail'],
    capabilities: ['search', 'recommendation'],
    params: ['order_id', 'query', 'category', 'price_max'],
  },
  {
    name: 'media',
    nouns: ['image', 'video', 'podcast', 'song', 'thumbnail'],
    verbs: ['generate', 'transcribe', 'caption', 'resize'],
    tags: ['media', 'images', 'audio'],
    capabilities: ['generation', 'transcription'],
    params: ['prompt', 'url', 'width', 'height'],
  },
  {
    name: 'calendar',
    nouns: ['meeting', 'event', 'reminder', 'availability', 'time zone'],
    verbs: ['schedule', 'list', 'move', 'convert'],
    tags: ['productivity', 'calendar'],
    capabilities: ['scheduling'],
    params: ['start', 'end', 'attendees', 'title'],
  },
  {
    name: 'search',
    nouns: ['web page', 'news article', 'research paper', 'patent', 'dataset'],
    verbs: ['search', 'rank', 'cite', 'summarize'],
    tags: ['search', 'research', 'web'],
    capabilities: ['search', 'summarization'],
    params: ['query', 'limit', 'since', 'site'],
  },
  {
    name: 'data',
    nouns: ['SQL query', 'CSV file', 'chart', 'dashboard', 'database table'],
    verbs: ['run', 'visualize', 'clean', 'join'],
    tags: ['data', 'analytics', 'sql'],
    capabilities: ['analysis', 'visualization'],
    params: ['sql', 'table', 'columns', 'chart_type'],
  },
];

const ADJECTIVES = [
  'Fast',
  'Smart',
  'Open',
  'Global',
  'Precise',
  'Simple',
  'Secure',
  'Instant',
  'Pro',
  'Lite',
  'Cloud',
  'Daily',
];
const SUFFIXES = ['Agent', 'Assistant', 'Service', 'Bot', 'Hub', 'Desk', 'Engine', 'Helper'];
const QUALIFIERS = [
  'for small teams',
  'with high accuracy',
  'in real time',
  'for enterprises',
  'using public data',
  'with caching',
  'across regions',
  'for developers',
];
const LANGUAGES = ['en', 'fr', 'de', 'es', 'zh', 'ja', 'pt', 'it'];

/** The n-th agent is the same on every run: its choices come from a seeded stream (embeddings' seededUniform). */
export const random: (seed: number) => () => number = seededUniform;

const pick = <T>(next: () => number, items: readonly T[]): T => items[Math.floor(next() * items.length)]!;

function some<T>(next: () => number, items: readonly T[], min: number, max: number): T[] {
  const count = min + Math.floor(next() * (max - min + 1));
  const pool = [...items];
  const out: T[] = [];
  while (out.length < count && pool.length > 0)
    out.push(pool.splice(Math.floor(next() * pool.length), 1)[0]!);
  return out;
}

const camel = (words: string): string =>
  words
    .split(/\s+/)
    .map((w, i) => (i === 0 ? w.toLowerCase() : w[0]!.toUpperCase() + w.slice(1).toLowerCase()))
    .join('');

export interface GeneratedAgent {
  /** The AIDIP metadata document to register. */
  document: Record<string, unknown>;
  domain: string;
  tags: string[];
  capabilities: string[];
}

/**
 * How `varied` agents (the facets bench) differ from one another beyond their domain, with shares like a public
 * registry's: most declare no authentication, English is common and French a minority, most are active.
 */
const AUTHENTICATION: ReadonlyArray<readonly [type: string | undefined, share: number]> = [
  [undefined, 0.55],
  ['api_key', 0.25],
  ['oauth2_bearer', 0.15],
  ['mtls', 0.05],
];
const STATUSES: ReadonlyArray<readonly [status: string, share: number]> = [
  ['active', 0.82],
  ['deprecated', 0.08],
  ['inactive', 0.06],
  ['maintenance', 0.04],
];
/** Each language's own chance of being listed (an agent lists at least one: English when none came up). */
const LANGUAGE_SHARES: ReadonlyArray<readonly [language: string, share: number]> = [
  ['en', 0.7],
  ['fr', 0.25],
  ['de', 0.18],
  ['es', 0.18],
  ['zh', 0.08],
  ['ja', 0.06],
  ['pt', 0.06],
  ['it', 0.05],
];

function weighted<T>(next: () => number, shares: ReadonlyArray<readonly [T, number]>): T {
  let left = next();
  for (const [value, share] of shares) {
    left -= share;
    if (left < 0) return value;
  }
  return shares.at(-1)![0];
}

/**
 * The `index`-th agent of the bench population. `varied` gives it an authentication, status and languages drawn
 * from `AUTHENTICATION`, `STATUSES` and `LANGUAGE_SHARES` (the same draws on every run); without it every agent is
 * active, 40% name an authentication and languages are one to three of eight, evenly (what the other benches
 * measured with).
 */
export function generateAgent(index: number, options: { varied?: boolean } = {}): GeneratedAgent {
  const next = random(index * 7919 + 17);
  const domain = DOMAINS[index % DOMAINS.length]!;
  const noun = pick(next, domain.nouns);
  const name = `${pick(next, ADJECTIVES)} ${noun.replace(/\b\w/g, (c) => c.toUpperCase())} ${pick(next, SUFFIXES)} ${index}`;
  const operations = some(next, domain.verbs, 1, 4).map((verb) => {
    const target = pick(next, domain.nouns);
    const params = some(next, domain.params, 1, 3);
    return {
      name: camel(`${verb} ${target}`),
      description: `${verb[0]!.toUpperCase()}${verb.slice(1)} a ${target} ${pick(next, QUALIFIERS)}.`,
      inputs: {
        type: 'object',
        properties: Object.fromEntries(
          params.map((p) => [p, { type: 'string', description: `The ${p.replace(/_/g, ' ')}.` }]),
        ),
        required: params.slice(0, 1),
      },
      outputs: { type: 'object' },
    };
  });
  const tags = some(next, domain.tags, 1, domain.tags.length);
  const capabilities = some(next, domain.capabilities, 1, domain.capabilities.length);
  const slug = `${domain.name}-${index}`;
  const document: Record<string, unknown> = {
    id: slug,
    name,
    description: `${name} can ${operations.map((op) => op.description.replace(/\.$/, '').toLowerCase()).join(', and ')}. Built by ${domain.name} specialists ${pick(next, QUALIFIERS)}.`,
    version: `1.${index % 10}.0`,
    publisher: `${pick(next, ADJECTIVES)} ${domain.name} Inc.`,
    capabilities,
    tags,
    endpoint: `https://${slug}.agents.example.com/invoke`,
    supported_languages: some(next, LANGUAGES, 1, 3),
    status: 'active',
    operations,
  };
  if (options.varied === true) {
    // A generator of its own, so that the draws above stay those of the plain population.
    const draw = random(index * 104723 + 29);
    const authentication = weighted(draw, AUTHENTICATION);
    if (authentication !== undefined) document['authentication'] = { type: authentication };
    document['status'] = weighted(draw, STATUSES);
    const languages = LANGUAGE_SHARES.filter(([, share]) => draw() < share).map(([language]) => language);
    document['supported_languages'] = languages.length > 0 ? languages : ['en'];
  } else if (next() < 0.4) document['authentication'] = { type: next() < 0.5 ? 'api_key' : 'oauth2_bearer' };
  return { document, domain: domain.name, tags, capabilities };
}

/** The `index`-th agent (`generateAgent`) as the registry reads its document: what `loadAgents` takes. */
export function readGeneratedAgent(index: number, options: { varied?: boolean } = {}): Agent {
  const [agent] = readDocument(generateAgent(index, options).document).agents;
  if (agent === undefined) throw new Error(`generated agent ${index} does not read`);
  return agent;
}

/**
 * The `index`-th agent's search document as the registry derives it (records/search-document.ts), made straight
 * from the generated document: no validation, since reading a million documents through core would take most of a
 * bench's run (bench/registry/memory-postings.ts checks it against a registration's on the first agents).
 */
export function generatedSearchDocument(index: number): SearchDocument {
  const { document } = generateAgent(index);
  const operations = document['operations'] as Array<{
    name: string;
    description: string;
    inputs: { properties: Record<string, unknown> };
  }>;
  return {
    id: String(document['id']),
    name: String(document['name']),
    description: String(document['description']),
    tags: document['tags'] as string[],
    capabilities: document['capabilities'] as string[],
    operations: operations.map((operation) => ({
      name: operation.name,
      description: operation.description,
      examples: [],
      parameters: Object.keys(operation.inputs.properties),
    })),
  };
}

/** Search queries people would type, varied enough that the query cache does not answer them all. */
export function generateQuery(index: number): string {
  const next = random(index * 104729 + 3);
  const domain = pick(next, DOMAINS);
  const verb = pick(next, domain.verbs);
  return `${verb} a ${pick(next, domain.nouns)} ${pick(next, QUALIFIERS)} ${index % 50 === 0 ? '' : pick(next, LANGUAGES)}`.trim();
}

/** Filter combinations that match a few hundred agents each: one domain tag and one of its capabilities. */
export function generateFilter(index: number): { tags: string; capabilities: string } {
  const next = random(index * 31 + 5);
  const domain = pick(next, DOMAINS);
  return { tags: pick(next, domain.tags), capabilities: pick(next, domain.capabilities) };
}
