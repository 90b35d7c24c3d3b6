/**
 * The development retrieval benchmarks of ../shared/bench (see its README): each folder's `tools.jsonl` as agent
 * descriptions a registry accepts, and its `queries*.jsonl` as queries with relevance judgements.
 *
 * A tool becomes AIDIP metadata with everything it says about itself: name, description (and an OpenAI plugin's
 * `description_for_model`), its category, server and `name_for_human` as tags, and its operations — the `tools` of
 * an MCP server, or the tool itself — with their input schemas. AIDIP asks for an endpoint and each operation's
 * output schema, which the sets do not have: a placeholder endpoint and `{"type": "object"}` stand in, and neither
 * is indexed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isObject, readDocument } from '@agentry/core';
import { searchDocumentOf } from '../../packages/registry/src/records/search-document.js';
import type { SearchDocument } from '../../packages/registry/src/search/index.js';

export interface BenchQuery {
  id: string;
  text: string;
  relevant: string[];
  grades?: Record<string, number>;
}

/** An agent of a set: its id there, and its description as AIDIP metadata. */
export interface BenchAgent {
  id: string;
  document: Record<string, unknown>;
}

export interface Dataset {
  /** `<folder>` or `<folder>/<queries file without .jsonl>` for extra query files. */
  name: string;
  agents: BenchAgent[];
  queries: BenchQuery[];
  /** How many queries the file has, before any sampling. */
  totalQueries: number;
}

/** The query sets of the benchmark folder, in the order the report prints them. */
export const DATASETS: ReadonlyArray<{ name: string; folder: string; queries: string }> = [
  { name: 'metatool', folder: 'metatool', queries: 'queries.jsonl' },
  { name: 'metatool-multi', folder: 'metatool', queries: 'queries-multi.jsonl' },
  { name: 'livemcpbench-tools', folder: 'livemcpbench-tools', queries: 'queries.jsonl' },
  { name: 'livemcpbench-servers', folder: 'livemcpbench-servers', queries: 'queries.jsonl' },
];

export function loadDataset(
  benchDir: string,
  spec: { name: string; folder: string; queries: string },
  maxQueries: number,
): Dataset {
  const tools = readJsonl(join(benchDir, spec.folder, 'tools.jsonl'));
  const queries = readJsonl(join(benchDir, spec.folder, spec.queries)).map(toQuery);
  return {
    name: spec.name,
    agents: tools.map(toAgent),
    queries: evenSample(queries, maxQueries),
    totalQueries: queries.length,
  };
}

/**
 * What a registry indexes of the agent, without a registry: its description read as the registry reads it, and
 * the search document of a fresh record of it (for benches that only need the text, e.g. bench/embeddings).
 */
export function searchDocumentOfAgent(agent: BenchAgent): SearchDocument {
  const [read] = readDocument(agent.document).agents;
  if (read === undefined) throw new Error(`${agent.id} is not an agent description the registry reads`);
  const at = new Date(0).toISOString();
  return searchDocumentOf({
    id: agent.id,
    agent: read,
    owner: 'bench',
    status: 'active',
    flags: [],
    quality: { ratings: 0, invocations: 0, failures: 0, verified: false },
    revision: 1,
    createdAt: at,
    updatedAt: at,
  });
}

/**
 * A fixed, deterministic sample: every (n/max)-th query in file order. The files are grouped by tool, so this
 * spreads the sample over all tools, and every run scores the same queries.
 */
export function evenSample<T>(items: readonly T[], max: number): T[] {
  if (items.length <= max) return [...items];
  const step = items.length / max;
  return Array.from({ length: max }, (_, i) => items[Math.floor(i * step)]!);
}

type Row = Record<string, unknown>;

function readJsonl(path: string): Row[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Row);
}

function toQuery(row: Row): BenchQuery {
  const query: BenchQuery = {
    id: String(row['id']),
    text: String(row['text']),
    relevant: strings(row['relevant']),
  };
  const grades = row['grades'];
  if (grades && typeof grades === 'object') query.grades = grades as Record<string, number>;
  return query;
}

function toAgent(row: Row): BenchAgent {
  const id = String(row['id']);
  const description = [text(row['description']), text(row['description_for_model'])]
    .filter((part, i, all) => part !== '' && all.indexOf(part) === i)
    .join(' ');
  const tags = [row['category'], row['server_name'], row['name_for_human']]
    .map(text)
    .filter((tag) => tag !== '');
  const operation = (name: string, about: string, inputSchema: unknown) => ({
    name,
    description: about,
    inputs: isObject(inputSchema) ? withModernBounds(inputSchema) : { type: 'object' },
    outputs: { type: 'object' },
  });
  const tools = Array.isArray(row['tools']) ? (row['tools'] as Row[]) : undefined;
  // A single tool is its own only operation (the registry indexes its name and description once).
  const operations = tools
    ? tools.map((tool) => operation(text(tool['name']), text(tool['description']), tool['inputSchema']))
    : [operation(text(row['name']), description, row['inputSchema'])];
  const document: Record<string, unknown> = {
    id,
    name: text(row['name']),
    description,
    endpoint: `https://bench.invalid/agents/${encodeURIComponent(id)}/invoke`,
    operations,
  };
  if (tags.length > 0) document['tags'] = tags;
  return { id, document };
}

/**
 * Draft-04's boolean `exclusiveMinimum`/`exclusiveMaximum` (beside `minimum`/`maximum`) in 2020-12's form, the
 * numbers themselves. JSON Schema 2020-12 refuses the booleans, and so does the registry; one tool of
 * LiveMCPBench (`pdf-reader-mcp/read_pdf`) has one, and its publisher would have to write it this way to register.
 */
function withModernBounds(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withModernBounds);
  if (!isObject(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) out[key] = withModernBounds(value);
  for (const [exclusive, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (typeof out[exclusive] !== 'boolean') continue;
    if (out[exclusive] === true && typeof out[bound] === 'number') {
      out[exclusive] = out[bound];
      delete out[bound];
    } else delete out[exclusive];
  }
  return out;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.map(String) : [];
}

function text(value: unknown): string {
  return typeof value === 'string' ? value.trim() : '';
}
