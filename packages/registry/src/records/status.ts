/**
 * An agent's lifecycle status. AIDIP §3.1 makes `status` a free string ("e.g., active, inactive, deprecated"), so
 * the registry keeps whatever word the publisher chose (`maintenance`, `beta` …) and serves, filters and resolves
 * by it. It knows four words and acts on them: `inactive`, `deprecated` and `retired` rank lower
 * (`standing.ts`), `retired` is refused by the gateway and left out of resolution unless asked for.
 */
import type { Agent } from '@agentry/core';

/** A status word, as stored: trimmed and lower-cased, so that `Maintenance` and `maintenance` are one filter. */
export type RecordStatus = string;

/** The words the registry acts on; any other word is kept and served as the publisher wrote it (lower-cased). */
export const LIFECYCLE_STATUSES: readonly RecordStatus[] = ['active', 'inactive', 'deprecated', 'retired'];

/** Longest status word kept: AIDIP names a word, and a filter value longer than this cannot match one. */
export const MAX_STATUS_LENGTH = 64;

/** The stored form of a status word, or undefined when it is empty or longer than `MAX_STATUS_LENGTH`. */
export function statusWord(value: string): RecordStatus | undefined {
  const word = value.trim().toLowerCase();
  return word === '' || word.length > MAX_STATUS_LENGTH ? undefined : word;
}

/**
 * The registry status of an agent: its own lifecycle word, whichever it is (`maintenance` is kept as such);
 * without one (or one longer than a word), from whether it says it works.
 */
export function statusOf(agent: Agent): RecordStatus {
  const state = agent.status?.state === undefined ? undefined : statusWord(agent.status.state);
  if (state !== undefined) return state;
  return agent.status?.operational === false ? 'inactive' : 'active';
}
