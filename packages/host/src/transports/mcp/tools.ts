/**
 * The MCP tools a host serves: one per operation of every hosted agent. Each tool is what core's `mcp` codec writes
 * for the operation (name, title, description, object-typed schemas, annotations from safe / idempotent /
 * sensitivity), so the `/capabilities` projection, the documents and `tools/list` agree. When several agents share
 * one endpoint and their tool names collide, every tool is named `<agentId>.<name>` instead.
 */
import { type Agent, getCodec, type JsonObject } from '@agentry/core';

export interface HostedTool {
  /** The name `tools/list` shows and `tools/call` takes. */
  name: string;
  agentId: string;
  operation: string;
  /** The tool definition for `tools/list`. */
  definition: JsonObject;
}

/** Characters MCP tool names may not contain (MCP §Tools: Tool names); the same rule core's codec applies. */
const TOOL_NAME_FORBIDDEN = /[^A-Za-z0-9_.-]/g;
const TOOL_NAME_MAX_LENGTH = 128;

/** The tools of `agents`, named without a prefix when the names are unique across them. */
export function hostedTools(agents: readonly Agent[]): HostedTool[] {
  const perAgent = agents.map((agent) => ({ agent, tools: toolsOf(agent) }));
  const names = perAgent.flatMap(({ tools }) => tools.map((tool) => tool.name));
  const unique = new Set(names).size === names.length;
  if (unique) return perAgent.flatMap(({ tools }) => tools);
  const used = new Set<string>();
  return perAgent.flatMap(({ agent, tools }) =>
    tools.map((tool) => {
      const name = uniqueName(`${agent.id.replace(TOOL_NAME_FORBIDDEN, '_')}.${tool.name}`, used);
      used.add(name);
      return { ...tool, name, definition: { ...tool.definition, name } };
    }),
  );
}

/** The tool `name` calls: listed names first, then `<agentId>.<operation>` (always understood). */
export function findTool(
  tools: readonly HostedTool[],
  agents: readonly Agent[],
  name: string,
): HostedTool | undefined {
  const listed = tools.find((tool) => tool.name === name);
  if (listed !== undefined) return listed;
  for (const agent of agents) {
    const prefix = `${agent.id}.`;
    if (!name.startsWith(prefix)) continue;
    const operation = name.slice(prefix.length);
    const tool = tools.find(
      (candidate) => candidate.agentId === agent.id && candidate.operation === operation,
    );
    if (tool !== undefined) return tool;
  }
  return undefined;
}

function toolsOf(agent: Agent): HostedTool[] {
  const { document } = getCodec('mcp').emit([agent]);
  const written = Array.isArray(document) ? document[0] : document;
  const definitions = Array.isArray(written?.['tools']) ? written['tools'] : [];
  // The codec writes one tool per operation, in the operations' order.
  return agent.operations.flatMap((operation, index) => {
    const definition = definitions[index];
    if (typeof definition !== 'object' || definition === null || Array.isArray(definition)) return [];
    const name = typeof definition['name'] === 'string' ? definition['name'] : operation.name;
    return [{ name, agentId: agent.id, operation: operation.name, definition }];
  });
}

function uniqueName(wanted: string, used: ReadonlySet<string>): string {
  const base = wanted.slice(0, TOOL_NAME_MAX_LENGTH);
  let candidate = base;
  for (let n = 2; used.has(candidate); n++) {
    const suffix = `_${n}`;
    candidate = base.slice(0, TOOL_NAME_MAX_LENGTH - suffix.length) + suffix;
  }
  return candidate;
}
