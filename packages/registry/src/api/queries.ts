/**
 * The inputs of the listing and search endpoints, checked: an unknown parameter or filter is an error (a typo
 * must not silently widen a result), and each error points at what is wrong.
 */
import type { JsonObject, JsonValue } from '@agentry/core';
import { MAX_STATUS_LENGTH, type RecordStatus, statusWord } from '../records/status.js';
import type { SearchMode } from '../search/types.js';
import type { AgentFilters } from '../store/filters.js';
import { type Cursor, decodeCursor } from './cursor.js';
import { filterListDetail } from './list-limits.js';
import { invalidInput, problem } from './problems.js';
import { queryParameters } from './route-table.js';

export const DEFAULT_PAGE = 20;
export const MAX_PAGE = 100;
export const DEFAULT_TOP = 10;
export const MAX_QUERY_CHARS = 2000;

const MODES: readonly SearchMode[] = ['hybrid', 'lexical', 'semantic'];
/** How a description may have arrived: the values of the `source` filter. */
const SOURCE_ARRIVALS = ['registered', 'crawled', 'imported'] as const;
const LIST_PARAMETERS = queryParameters('listAgents');

export type Checked<T> = { ok: true; value: T } | { ok: false; response: Response };

export interface ListQuery {
  filters: AgentFilters;
  q?: string;
  mode?: SearchMode;
  limit: number;
  cursor?: Cursor;
  /** ISO 8601, normalised to the store's form. */
  updatedSince?: string;
}

/** GET /agents?capabilities=&tags=&language=&status=&source=&format=&transport=&auth=&q=&mode=&limit=&cursor=&updated_since= */
export function readListQuery(url: URL): Checked<ListQuery> {
  const params = url.searchParams;
  for (const name of new Set(params.keys())) {
    if (!LIST_PARAMETERS.includes(name)) {
      return fail(
        `Unknown query parameter "${name}"; this endpoint takes ${LIST_PARAMETERS.join(', ')}.`,
        name,
      );
    }
  }
  const many = (name: string): string[] =>
    params
      .getAll(name)
      .flatMap((value) => value.split(','))
      .map((value) => value.trim())
      .filter((value) => value !== '');
  const filters: AgentFilters = {
    capabilities: many('capabilities'),
    tags: many('tags'),
    languages: many('language'),
  };
  for (const name of [
    'capabilities',
    'tags',
    'language',
    'status',
    'source',
    'format',
    'transport',
    'auth',
  ]) {
    const tooMany = filterListDetail(name, many(name));
    if (tooMany !== undefined) return fail(tooMany, name);
  }
  const sources = many('source').map((value) => value.toLowerCase());
  const unknownSource = sources.find((value) => !(SOURCE_ARRIVALS as readonly string[]).includes(value));
  if (unknownSource !== undefined)
    return fail(`"source" is one of ${SOURCE_ARRIVALS.join(', ')}; got "${unknownSource}".`, 'source');
  if (sources.length > 0) filters.sources = sources;
  const formats = many('format');
  if (formats.length > 0) filters.formats = formats;
  const transports = many('transport');
  if (transports.length > 0) filters.transports = transports;
  const authKinds = many('auth');
  if (authKinds.length > 0) filters.authKinds = authKinds;
  const statuses = statusWords(many('status'));
  if (!statuses.ok) return fail(statuses.detail, 'status');
  filters.status = statuses.words;

  const query: ListQuery = { filters, limit: DEFAULT_PAGE };
  const limit = params.get('limit');
  if (limit !== null) {
    const value = Number(limit);
    if (!Number.isInteger(value) || value < 1 || value > MAX_PAGE) {
      return fail(`"limit" must be an integer from 1 to ${MAX_PAGE}; got "${limit}".`, 'limit');
    }
    query.limit = value;
  }
  const q = params.get('q');
  if (q !== null && q.trim() !== '') {
    if (q.length > MAX_QUERY_CHARS) return fail(`"q" is longer than ${MAX_QUERY_CHARS} characters.`, 'q');
    query.q = q.trim();
  }
  const mode = params.get('mode');
  if (mode !== null) {
    if (!(MODES as readonly string[]).includes(mode))
      return fail(`"mode" must be one of ${MODES.join(', ')}.`, 'mode');
    query.mode = mode as SearchMode;
  }
  const since = params.get('updated_since');
  if (since !== null) {
    const normalised = normaliseTimestamp(since);
    if (normalised === undefined) {
      return fail(
        `"updated_since" must be an ISO 8601 date-time (e.g. 2026-01-31T12:00:00Z); got "${since}".`,
        'updated_since',
      );
    }
    if (query.q !== undefined)
      return fail('"updated_since" and "q" cannot be combined: a mirror walks changes, not a ranking.', 'q');
    query.updatedSince = normalised;
  }
  const cursor = params.get('cursor');
  if (cursor !== null) {
    const decoded = decodeCursor(cursor);
    const expected = query.q !== undefined ? 'search' : query.updatedSince !== undefined ? 'changes' : 'id';
    if (decoded === undefined || decoded.kind !== expected) {
      return fail('"cursor" is not a cursor this listing gave out; start again without it.', 'cursor');
    }
    query.cursor = decoded;
  }
  return { ok: true, value: query };
}

export interface SearchRequest {
  query?: string;
  filters: AgentFilters;
  top: number;
  mode?: SearchMode;
}

const SEARCH_MEMBERS = ['query', 'filters', 'top', 'mode'];
const FILTER_MEMBERS = [
  'capabilities',
  'tags',
  'supported_languages',
  'supported_language',
  'languages',
  'language',
  'status',
];

/** POST /agents/search `{query?, filters?, top?, mode?}` (AIDIP §4.3.1, §4.3.2, §10). */
export function readSearchRequest(body: JsonValue): Checked<SearchRequest> {
  if (!isObject(body))
    return fail('The body must be an object: {"query": "...", "filters": {...}, "top": 10}.', '', true);
  for (const key of Object.keys(body)) {
    if (!SEARCH_MEMBERS.includes(key))
      return fail(`Unknown member "${key}"; the body takes ${SEARCH_MEMBERS.join(', ')}.`, `/${key}`, true);
  }
  const request: SearchRequest = { filters: {}, top: DEFAULT_TOP };
  const query = body['query'];
  if (query !== undefined && query !== null) {
    if (typeof query !== 'string') return fail('"query" must be a string.', '/query', true);
    if (query.length > MAX_QUERY_CHARS)
      return fail(`"query" is longer than ${MAX_QUERY_CHARS} characters.`, '/query', true);
    if (query.trim() !== '') request.query = query.trim();
  }
  const top = body['top'];
  if (top !== undefined) {
    if (typeof top !== 'number' || !Number.isInteger(top) || top < 1 || top > MAX_PAGE) {
      return fail(`"top" must be an integer from 1 to ${MAX_PAGE}.`, '/top', true);
    }
    request.top = top;
  }
  const mode = body['mode'];
  if (mode !== undefined) {
    if (typeof mode !== 'string' || !(MODES as readonly string[]).includes(mode)) {
      return fail(`"mode" must be one of ${MODES.join(', ')}.`, '/mode', true);
    }
    request.mode = mode as SearchMode;
  }
  const filters = body['filters'];
  if (filters !== undefined && filters !== null) {
    if (!isObject(filters)) return fail('"filters" must be an object.', '/filters', true);
    const read = readFilters(filters);
    if (!read.ok) return read;
    request.filters = read.value;
  }
  return { ok: true, value: request };
}

function readFilters(filters: JsonObject): Checked<AgentFilters> {
  const out: AgentFilters = { capabilities: [], tags: [], languages: [], status: [] };
  for (const [key, value] of Object.entries(filters)) {
    if (!FILTER_MEMBERS.includes(key)) {
      return fail(
        `Unknown filter "${key}"; filters are ${FILTER_MEMBERS.join(', ')}.`,
        `/filters/${key}`,
        true,
      );
    }
    const values = typeof value === 'string' ? [value] : Array.isArray(value) ? value : undefined;
    if (values === undefined || values.some((item) => typeof item !== 'string')) {
      return fail(`Filter "${key}" must be a string or an array of strings.`, `/filters/${key}`, true);
    }
    const strings = (values as string[]).map((item) => item.trim()).filter((item) => item !== '');
    const tooMany = filterListDetail(key, strings);
    if (tooMany !== undefined) return fail(tooMany, `/filters/${key}`, true);
    if (key === 'capabilities') out.capabilities = [...(out.capabilities ?? []), ...strings];
    else if (key === 'tags') out.tags = [...(out.tags ?? []), ...strings];
    else if (key === 'status') {
      const statuses = statusWords(strings);
      if (!statuses.ok) return fail(statuses.detail, `/filters/${key}`, true);
      out.status = statuses.words;
    } else out.languages = [...(out.languages ?? []), ...strings];
  }
  return { ok: true, value: out };
}

/** An ISO 8601 date-time as the store writes them (UTC, milliseconds), or undefined. */
export function normaliseTimestamp(text: string): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?)?$/.test(text)) return undefined;
  const time = Date.parse(text);
  return Number.isNaN(time) ? undefined : new Date(time).toISOString();
}

function fail<T>(detail: string, where: string, isPointer = false): Checked<T> {
  // Body members are pointed at; query parameters are named.
  if (isPointer) return { ok: false, response: invalidInput(detail, where) };
  const response = problem({
    status: 400,
    code: 'InvalidInput',
    title: 'Invalid query parameter',
    detail,
    extensions: { parameter: where },
  });
  return { ok: false, response };
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Status filter values as stored (any AIDIP status word, lower-cased): `maintenance` filters like `active`. A value
 * longer than a status word can be is an error rather than a filter that can never match.
 */
function statusWords(
  values: readonly string[],
): { ok: true; words: RecordStatus[] } | { ok: false; detail: string } {
  const words: RecordStatus[] = [];
  for (const value of values) {
    const word = statusWord(value);
    if (word === undefined) {
      return {
        ok: false,
        detail: `"status" values are status words of at most ${MAX_STATUS_LENGTH} characters.`,
      };
    }
    words.push(word);
  }
  return { ok: true, words };
}
