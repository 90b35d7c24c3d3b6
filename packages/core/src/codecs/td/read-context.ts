/** What every part of the TD reader needs to know about the document being read. */
import type { IssueCollector } from '../../issues.js';
import { setOwn } from '../../json/values.js';
import type { JsonObject, SecuritySchemeType } from '../../model/agent.js';
import type { TermResolver } from './terms.js';

export interface ReadContext {
  issues: IssueCollector;
  terms: TermResolver;
  /**
   * True for a Thing Description, false for a Thing Model: TMs are templates (placeholders in URIs, parts left
   * out on purpose), so the TD rules are not applied to them.
   */
  isDescription: boolean;
  /**
   * True when the official JSON Schema did not run (Thing Models), so wrongly shaped members are ours to report;
   * otherwise the schema has reported them already and the reader skips them quietly.
   */
  reportShape: boolean;
  /** What relative URIs resolve against: the TD's `base` (itself resolved against the source URL), or the source URL. */
  base?: string;
  /** Whether security names are checked against `securityDefinitions` (TDs that have them). */
  checkSecurityNames: boolean;
  /** Security scheme types by definition name, once read (form scopes apply to OAuth 2.0 schemes only). */
  schemeTypes: Map<string, SecuritySchemeType>;
}

/** The TD 1.1 sections our own checks cite. */
export const SECTION = {
  thing: '§5.3.1.1',
  action: '§5.3.1.4',
  version: '§5.3.1.6',
  dataSchema: '§5.3.2.1',
  security: '§5.3.3',
  combo: '§5.3.3.4',
  link: '§5.3.4.1',
  form: '§5.3.4.2',
  thingModel: '§9',
} as const;

/**
 * `{ ...object }` without the members `taken`: what spreading and then deleting gives, built without `delete` (which
 * turns V8 objects into slow dictionaries). Like spreading, it copies enumerable own members, symbols included, and
 * an own `__proto__` member as a member.
 */
export function without(object: JsonObject, taken: readonly string[]): JsonObject {
  const out: JsonObject = {};
  for (const key of Object.keys(object)) {
    if (!taken.includes(key)) setOwn(out, key, object[key]);
  }
  for (const symbol of Object.getOwnPropertySymbols(object)) {
    if (Object.prototype.propertyIsEnumerable.call(object, symbol))
      (out as Record<symbol, unknown>)[symbol] = (object as Record<symbol, unknown>)[symbol];
  }
  return out;
}
