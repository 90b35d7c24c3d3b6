/**
 * The development retrieval benchmarks of ../shared/bench (see its README): each folder's `tools.jsonl` as
 * search documents, and its `queries*.jsonl` as queries with relevance judgements.
 *
 * A tool becomes a SearchDocument with everything it says about itself: name, description (and an OpenAI
 * plugin's `description_for_model`), its category and server as tags, and its operations — the `tools` of an MCP
 * server, or the tool itself — with their parameter names from `inputSchema`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SearchDocument, SearchOperation } from '../../packages/registry/src/search/index.js';

export interface BenchQuery {
  id: string;
  text: string;
  relevant: string[];
  grades?: Record<string, number>;
}

export interface Dataset {
  /** `<folder>` or `<folder>/<queries file without .jsonl>` for extra query files. */
  name: string;
  documents: SearchDocument[];
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
    documents: tools.map(toDocument),
    queries: evenSample(queries, maxQueries),
    totalQueries: queries.length,
  };
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

function toDocument(row: Row): SearchDocument {
  const description = [text(row['description']), text(row['description_for_model'])]
    .filter((part, i, all) => part !== '' && all.indexOf(part) === i)
    .join(' ');
  const tags = [row['category'], row['server_name'], row['name_for_human']]
    .map(text)
    .filter((tag) => tag !== '');
  const tools = Array.isArray(row['tools']) ? (row['tools'] as Row[]) : undefined;
  const operations: SearchOperation[] = tools
    ? tools.map((tool) => ({
        name: text(tool['name']),
        description: text(tool['description']),
        examples: [],
        parameters: parameterNames(tool['inputSchema']),
      }))
    : row['inputSchema'] !== undefined
      ? // A single tool is its own only operation; its name and description are already the document's.
        [{ name: '', description: '', examples: [], parameters: parameterNames(row['inputSchema']) }]
      : [];
  return { id: String(row['id']), name: text(row['name']), description, tags, capabilities: [], operations };
}

function parameterNames(schema: unknown): string[] {
  const properties = (schema as { properties?: unknown } | undefined)?.properties;
  return properties && typeof properties === 'object' && !Array.isArray(properties)
    ? Object.keys(properties)
    : [];
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.map(String) : [];
}

function text(value: unknown): string {
  return typeof value === 'string' ? value.trim() : '';
}
