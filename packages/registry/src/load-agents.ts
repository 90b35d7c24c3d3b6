/**
 * Loading agents into a registry in bulk, without HTTP: for seeding one (a demo's agents, a benchmark's preload, a
 * list moved from elsewhere). Each agent is stored as its publisher's registration would store it: scanned by the
 * safety rules, given the id a registration would give it, written with its history and audit entry; then it is
 * indexed for search. A call is one transaction: every agent is written, or none (on a conflict). No quota applies:
 * the caller is the registry's operator.
 */
import { type Agent, AgentryError, type AgentryErrorCode, type FormatName } from '@agentry/core';
import { preferredId } from './records/ids.js';
import { searchDocumentOf } from './records/search-document.js';
import type { RegistryRecord } from './records/types.js';
import type { Registry } from './registry.js';
import { scanAgentText } from './safety/index.js';

export interface LoadAgentsOptions {
  /** The publisher that holds the agents (also the actor of their audit entries). */
  owner: string;
  /** The format the agents were described in, kept as their source (default `aidip`). */
  sourceFormat?: FormatName;
}

/** Another publisher's entry stands where an agent of the batch would go; nothing of the batch was written. */
export class AgentLoadConflictError extends AgentryError {
  static override readonly code: AgentryErrorCode = 'Conflict';
  constructor(
    /** The agent of the batch (its own id) that met the entry. */
    readonly agent: string,
    /** The entry in the way. */
    readonly entry: string,
  ) {
    super(`Agent "${agent}" conflicts with entry "${entry}", which another publisher holds.`);
  }
}

/**
 * Stores `agents` as `owner`'s registrations and indexes them for search; returns their records, in order (an agent
 * registered before with the same content comes back unchanged). Throws an `AgentLoadConflictError` when another
 * publisher holds an id or the same agent, and writes nothing then.
 *
 * @example
 * ```ts
 * import { readDocument } from '@agentry/core';
 * import { createRegistry, loadAgents } from '@agentry/registry';
 *
 * const registry = await createRegistry({ databasePath: 'seeded.db', embeddings: 'none' });
 * const { agents } = readDocument({
 *   id: 'translator',
 *   name: 'Translator',
 *   description: 'Translates text between English and French.',
 *   endpoint: 'https://agents.example.com/translator/invoke',
 *   operations: [{ name: 'translate', description: 'Translate a text.' }],
 * });
 * const records = await loadAgents(registry, agents, { owner: 'acme' });
 * console.log(records.map((record) => record.id)); // ['translator'], found by search at once
 * await registry.close();
 * ```
 */
export async function loadAgents(
  registry: Pick<Registry, 'store' | 'search'>,
  agents: readonly Agent[],
  options: LoadAgentsOptions,
): Promise<RegistryRecord[]> {
  if (agents.length === 0) return [];
  const sourceFormat = options.sourceFormat ?? 'aidip';
  const outcome = await registry.store.agents.register(
    agents.map((agent) => ({
      draft: { agent, owner: options.owner, flags: scanAgentText(agent), sourceFormat },
      preferredId: preferredId(agent),
    })),
    { actor: options.owner },
  );
  if (!Array.isArray(outcome)) {
    // No quota is given, so a refusal is a conflict.
    if (outcome.kind === 'conflict') throw new AgentLoadConflictError(outcome.agent, outcome.id);
    throw new AgentryError(`Loading agents was refused: ${JSON.stringify(outcome)}`);
  }
  const records = outcome.map((written) => written.record);
  await registry.search.upsert(records.map(searchDocumentOf));
  return records;
}
