/** Which of a document's agents the target names, and which operation its path names. */
import type { Agent } from '@agentry/core';

export interface Picked {
  agent: Agent;
  /** `name`: its id or name is one of the names looked for; `only`: it is the only agent the document describes. */
  by: 'name' | 'only';
}

function sameName(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

/** The agent whose id or name is one of `names` (case-insensitively), else the only agent, else none. */
export function pickAgent(agents: readonly Agent[], names: readonly string[]): Picked | undefined {
  for (const name of names) {
    const agent =
      agents.find((candidate) => candidate.id === name) ??
      agents.find((candidate) => sameName(candidate.id, name) || sameName(candidate.name, name));
    if (agent !== undefined) return { agent, by: 'name' };
  }
  return agents.length === 1 ? { agent: agents[0]!, by: 'only' } : undefined;
}

/**
 * The agents.json entry the target names: by name, or the only entry when the target names none. A map lists every
 * agent of a domain, so an entry that is merely alone does not stand for a name it does not have.
 */
export function pickEntry(entries: readonly Agent[], names: readonly string[]): Agent | undefined {
  for (const name of names) {
    const entry =
      entries.find((candidate) => candidate.id === name) ??
      entries.find((candidate) => sameName(candidate.id, name));
    if (entry !== undefined) return entry;
  }
  return names.length === 0 && entries.length === 1 ? entries[0] : undefined;
}

/** The first path segment (other than those naming the agent) that names one of `agent`'s operations. */
export function operationInPath(
  agent: Agent,
  segments: readonly string[],
  agentNames: readonly string[],
): string | undefined {
  for (const segment of segments) {
    if (segment === '' || agentNames.includes(segment)) continue;
    const operation = agent.operations.find((candidate) => candidate.name === segment);
    if (operation !== undefined) return operation.name;
  }
  return undefined;
}
