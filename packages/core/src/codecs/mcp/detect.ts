/**
 * Detection by keys: a tools/list result (`tools` array), a registry `server.json` record, an array of records, or a
 * registry list response (`servers` of `{server, _meta}` entries).
 */
import { isObject } from '../../json/values.js';
import { SERVER_SCHEMA_MARKER } from './rules.js';

/** A server.json record: a string `name` with `packages` or `remotes`, or a `$schema` naming server.schema.json. */
export function isServerRecord(value: unknown): boolean {
  if (!isObject(value)) return false;
  if (
    typeof value['name'] === 'string' &&
    (Array.isArray(value['packages']) || Array.isArray(value['remotes']))
  )
    return true;
  const schema = value['$schema'];
  return typeof schema === 'string' && schema.includes(SERVER_SCHEMA_MARKER);
}

/** A record or our combined document (a named server with its tools), as items of arrays and lists. */
function isServerLike(value: unknown): boolean {
  return (
    isServerRecord(value) ||
    (isObject(value) && typeof value['name'] === 'string' && Array.isArray(value['tools']))
  );
}

/** A registry list entry wraps its record in `server`; older registry responses listed records directly. */
export function isRegistryEntry(value: unknown): boolean {
  return isObject(value) && (isServerLike(value['server']) || isServerLike(value));
}

export function detectMcp(document: unknown): boolean {
  if (Array.isArray(document)) return document.length > 0 && document.every(isServerLike);
  if (!isObject(document)) return false;
  if (Array.isArray(document['tools'])) return true;
  if (isServerRecord(document)) return true;
  const servers = document['servers'];
  if (!Array.isArray(servers)) return false;
  // An empty page of a registry listing is still a listing, told apart by its pagination metadata.
  return servers.length > 0 ? servers.every(isRegistryEntry) : isObject(document['metadata']);
}
