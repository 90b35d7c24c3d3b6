/**
 * Final events as MCP `tools/call` results. An output is `structuredContent` when it is an object (MCP's structured
 * results are objects) and always a text item holding its JSON, for clients that read text only. A problem is a
 * tool error (`isError: true`) whose text is the problem details' JSON, so a model reading it sees the pointer of a
 * bad argument and can correct itself (MCP §Tools: error handling). The problem is also `structuredContent`, where
 * Agentry's client reads it first, except for tools with an `outputSchema`: MCP SDK clients check any structured
 * content of such a tool against that schema, errors included, and would refuse the answer.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Problem } from '../../errors.js';

export function toolResult(output: unknown): CallToolResult {
  const value = output === undefined ? null : output;
  const result: CallToolResult = { content: [{ type: 'text', text: JSON.stringify(value) }] };
  if (isRecord(value)) result.structuredContent = value;
  return result;
}

export function toolError(problem: Problem, options: { structured: boolean }): CallToolResult {
  const result: CallToolResult = {
    isError: true,
    content: [{ type: 'text', text: JSON.stringify(problem) }],
  };
  if (options.structured) result.structuredContent = { ...problem };
  return result;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
