/**
 * How long the lists a request may carry are: an agent's tags, capabilities, languages, operations and bindings,
 * and the values of each search or listing filter. Far past what a real agent or query needs, and well inside what
 * one answer, one index update or one SQL statement handles: a longer list is a 400 naming the field and its limit,
 * never a statement the database refuses (a 500) or an answer listing one issue per item.
 */
import type { Agent } from '@agentry/core';
import { problem } from './problems.js';

/** Items one registered agent may list, per field. */
export const AGENT_LIST_LIMITS = {
  tags: 100,
  capabilities: 100,
  languages: 100,
  operations: 1000,
  bindings: 100,
} as const satisfies Record<string, number>;

/** Values one filter of a search or listing may name (all must match: a real query names a few). */
export const MAX_FILTER_VALUES = 50;

type AgentListField = keyof typeof AGENT_LIST_LIMITS;

/** A 400 for the first agent with a list longer than its limit; undefined when every list is within its limit. */
export function agentListProblem(agents: readonly Agent[]): Response | undefined {
  for (const [index, agent] of agents.entries()) {
    for (const field of Object.keys(AGENT_LIST_LIMITS) as AgentListField[]) {
      const count = agent[field]?.length ?? 0;
      const limit = AGENT_LIST_LIMITS[field];
      if (count <= limit) continue;
      const which = agents.length > 1 ? ` (agent ${index + 1} of ${agents.length}, "${agent.id}")` : '';
      return problem({
        status: 400,
        code: 'InvalidInput',
        title: 'List too long',
        detail: `The agent lists ${count} ${field}${which}; an agent may list at most ${limit}. Keep the ${field} that describe it best.`,
        extensions: { field, limit, count },
      });
    }
  }
  return undefined;
}

/** Why a filter (`name` as the request spelt it) names too many values, or undefined when it does not. */
export function filterListDetail(name: string, values: readonly string[]): string | undefined {
  if (values.length <= MAX_FILTER_VALUES) return undefined;
  return `Filter "${name}" names ${values.length} values; a filter may name at most ${MAX_FILTER_VALUES} (every one must match, so a few narrow a search).`;
}
