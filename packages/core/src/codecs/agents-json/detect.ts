import { isObject } from '../../json/values.js';

/**
 * An agents.json map (agent:// §5.1): `agents` is an object from names to descriptor URLs (entries that are
 * objects with a `url` are tolerated). WoA documents also have `agents`, as an array, and a `woa_version`.
 */
export function isAgentsMap(document: unknown): boolean {
  if (!isObject(document) || Object.hasOwn(document, 'woa_version')) return false;
  const agents = document['agents'];
  if (!isObject(agents)) return false;
  return Object.values(agents).every(
    (entry) => typeof entry === 'string' || (isObject(entry) && typeof entry['url'] === 'string'),
  );
}
