import { isObject } from '../../json/values.js';
import { TD_CONTEXTS } from '../../vocabulary.js';

/**
 * An agent:// descriptor: a list of capability objects, a `supportedVersions` map, or a JSON-LD `@context` with a
 * `name` (WoT Thing Descriptions also have a context; theirs is told apart by its IRI).
 */
export function isAgentDescriptor(document: unknown): boolean {
  if (!isObject(document)) return false;
  const capabilities = document['capabilities'];
  if (Array.isArray(capabilities) && capabilities.length > 0 && capabilities.every(isObject)) return true;
  if (Object.hasOwn(document, 'supportedVersions')) return true;
  const context = document['@context'];
  return context !== undefined && !isTdContext(context) && typeof document['name'] === 'string';
}

function isTdContext(context: unknown): boolean {
  const entries = Array.isArray(context) ? context : [context];
  return entries.some((entry) => typeof entry === 'string' && TD_CONTEXTS.includes(entry));
}
