/**
 * Registry ids. An agent keeps its own id when that id can stand in a URL path as it is; otherwise it gets a slug
 * of it (or of its name), so registering the same document again lands on the same id.
 */
import type { Agent } from '@agentry/core';

/** RFC 3986 unreserved characters, starting with a letter or digit (so never `.` or `..`), at most 128. */
const URL_SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._~-]{0,127}$/;

/** Ids that would collide with the API's own paths under /agents. */
const RESERVED_IDS: ReadonlySet<string> = new Set(['search']);

export function isUrlSafeId(id: string): boolean {
  return URL_SAFE_ID.test(id) && !RESERVED_IDS.has(id.toLowerCase());
}

/** The id an agent asks for. */
export function preferredId(agent: Agent): string {
  if (isUrlSafeId(agent.id)) return agent.id;
  const fromId = slug(agent.id);
  if (fromId !== undefined && isUrlSafeId(fromId)) return fromId;
  const fromName = slug(agent.name);
  if (fromName !== undefined && isUrlSafeId(fromName)) return fromName;
  return 'agent';
}

/** `Document Summarizer (v2)` → `document-summarizer-v2`; undefined when nothing is left. */
function slug(text: string): string | undefined {
  const out = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 100)
    .replace(/-+$/, '');
  return out === '' ? undefined : out;
}

/** The publisher crawled and imported agents are held by: one per origin host. */
export function crawlOwner(origin: string): string {
  return `crawler:${hostOf(origin)}`;
}

/** The registry id a crawled agent asks for: its origin's host and its own id. */
export function crawledId(origin: string, agentId: string): string {
  const id = `${hostOf(origin)}.${agentId}`;
  return preferredId({ id, name: id, description: '', operations: [], bindings: [] });
}

/** `host[:port]` of an origin URL; the text itself when it is not one. */
export function hostOf(origin: string): string {
  return URL.canParse(origin) ? new URL(origin).host : origin;
}
