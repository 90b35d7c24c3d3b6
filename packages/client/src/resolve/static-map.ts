/**
 * Static resolution maps (agent:// §5.1): configuration that says where an agent's description is, ahead of any
 * lookup. Keys are agent URIs (`agent://example.com/planner`), authorities (`example.com`, `example.com:8443`,
 * `did:web:example.com`) or origins (`https://example.com`); values are URLs of descriptions (any format, detected by
 * keys) or explicit `agent+<transport>://` URIs. Keys are compared normalised (RFC 3986 §6.2.2), without query,
 * fragment or trailing slash; the most specific key that matches wins: the whole URI, then
 * `agent://<authority>/<first segment>`, then `agent://<authority>`, then the authority alone.
 *
 * A map file is a JSON object of such entries (`$schema` and `$comment` keys are ignored):
 *
 *     { "agent://example.com/planner": "https://agents.example.net/planner/agent.json",
 *       "did:web:example.org": "agent+https://example.org/invoke" }
 */
import { readFile } from 'node:fs/promises';
import {
  type AgentUri,
  hasAgentScheme,
  normalizeAgentUri,
  trimTrailingSlash,
  tryParseAgentUri,
} from '@agentry/core';
import { StaticMapError } from './errors.js';
import { isRecord } from './json.js';

const IGNORED_KEYS: ReadonlySet<string> = new Set(['$schema', '$comment']);

/** Reads and checks a static map file; throws `StaticMapError` naming the file (and entry) at fault. */
export async function loadStaticMap(file: string): Promise<Record<string, string>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new StaticMapError(
      `Cannot read the static resolution map ${file}: ${messageOf(error)}`,
      file,
      undefined,
      {
        cause: error,
      },
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new StaticMapError(
      `The static resolution map ${file} is not JSON: ${messageOf(error)}`,
      file,
      undefined,
      {
        cause: error,
      },
    );
  }
  if (!isRecord(json)) {
    throw new StaticMapError(
      `The static resolution map ${file} must be a JSON object of "<agent URI or authority>": "<URL>" entries.`,
      file,
    );
  }
  const map: Record<string, string> = {};
  for (const [key, value] of Object.entries(json)) {
    if (IGNORED_KEYS.has(key)) continue;
    if (normalizeMapKey(key) === undefined) {
      throw new StaticMapError(
        `${file}: the key "${key}" is not an agent URI, an authority or an http(s) origin.`,
        file,
        key,
      );
    }
    const problem = typeof value === 'string' ? checkMapValue(value) : 'it is not a string';
    if (problem !== undefined) {
      throw new StaticMapError(`${file}: the entry "${key}" cannot be used: ${problem}.`, file, key);
    }
    map[key] = value as string;
  }
  return map;
}

/** Why a map value cannot be used, or undefined when it can. */
export function checkMapValue(value: string): string | undefined {
  if (hasAgentScheme(value)) {
    const parsed = tryParseAgentUri(value);
    if (!parsed.ok) return parsed.error.message;
    return parsed.uri.protocol === undefined
      ? `"${value}" is an agent:// URI; a map entry points to a description URL or an agent+<transport>:// URI`
      : undefined;
  }
  if (URL.canParse(value) && /^https?:$/.test(new URL(value).protocol)) return undefined;
  return `"${value}" is neither an http(s) URL nor an agent+<transport>:// URI`;
}

/** The key as compared, or undefined when it is not a usable key. */
export function normalizeMapKey(key: string): string | undefined {
  if (hasAgentScheme(key)) {
    const parsed = tryParseAgentUri(key);
    return parsed.ok ? withoutQuery(normalizeAgentUri(parsed.uri)) : undefined;
  }
  if (/^https?:\/\//i.test(key)) {
    return URL.canParse(key) ? trimTrailingSlash(new URL(key).href) : undefined;
  }
  // An authority alone: check it by parsing it as one.
  const parsed = tryParseAgentUri(`agent://${key}`);
  return parsed.ok ? authorityOf(normalizeAgentUri(parsed.uri)) : undefined;
}

/** The keys that would name `uri`, most specific first. */
export function mapKeysForUri(uri: AgentUri): string[] {
  const normal = normalizeAgentUri(uri);
  const authority = authorityOf(normal);
  const base = `agent://${authority}`;
  const keys = [withoutQuery(normal)];
  const first = normal
    .slice(base.length)
    .replace(/[?#].*$/s, '')
    .split('/')[1];
  if (first !== undefined && first !== '') keys.push(`${base}/${first}`);
  keys.push(base, authority);
  return [...new Set(keys)];
}

export function mapKeysForOrigin(origin: string): string[] {
  return [origin, new URL(origin).host];
}

/** The entry for the first of `keys` the map has. */
export function lookUp(
  map: Readonly<Record<string, string>>,
  keys: readonly string[],
): { key: string; value: string } | undefined {
  const normalized = new Map<string, { key: string; value: string }>();
  for (const [key, value] of Object.entries(map)) {
    const normal = normalizeMapKey(key);
    if (normal !== undefined && !normalized.has(normal)) normalized.set(normal, { key, value });
  }
  for (const key of keys) {
    const entry = normalized.get(key);
    if (entry !== undefined) return entry;
  }
  return undefined;
}

function withoutQuery(normalUri: string): string {
  return trimTrailingSlash(normalUri.replace(/[?#].*$/s, ''));
}

function authorityOf(normalUri: string): string {
  const rest = normalUri.slice(normalUri.indexOf('://') + 3);
  return rest.split(/[/?#]/)[0] ?? '';
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
