// STUB: replaced by the real codec.
import { defineCodec } from '../define.js';

export const mcpCodec = defineCodec({
  format: 'mcp',
  title: 'MCP tools',
  specName: 'MCP',
  mediaType: 'application/json',
  signature: 'tools (a tools/list result) or an MCP server.json',
  carries: { agent: [], operation: [], bindings: [] },
  detect: () => false,
  parse: (_document, issues) => {
    issues.error('', 'mcp.unimplemented', 'Not implemented yet.');
    return [];
  },
  emitOne: () => ({ document: {} }),
});
