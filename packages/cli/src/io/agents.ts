/** The agents a user's module defines: what `agentry host` serves and `serve --demo` hosts. */
import type { AgentDefinition } from '@agentry/host';

/** What defineAgent returns: an id, the canonical agent and the runnable operations. */
export function isAgentDefinition(value: unknown): value is AgentDefinition {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Partial<AgentDefinition>;
  return (
    typeof candidate.id === 'string' &&
    typeof candidate.agent === 'object' &&
    candidate.operations instanceof Map
  );
}

/** The module's agent definitions: its default export (one or a list), then its named exports, each once. */
export function agentsOf(module: Record<string, unknown>): AgentDefinition[] {
  const found = new Map<string, AgentDefinition>();
  const add = (value: unknown) => {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (isAgentDefinition(item) && !found.has(item.id)) found.set(item.id, item);
    }
  };
  add(module['default']);
  for (const [name, value] of Object.entries(module)) if (name !== 'default') add(value);
  return [...found.values()];
}
