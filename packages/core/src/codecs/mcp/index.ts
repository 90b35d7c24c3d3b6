/**
 * The MCP projection of an agent: a registry `server.json` record (how to install or reach the server) together
 * with the server's tools (what it can do). Reads tools/list results, server.json records, arrays of records and
 * registry list responses; writes one combined document per agent.
 */
import { defineCodec } from '../define.js';
import { detectMcp } from './detect.js';
import { emitServer } from './emit.js';
import { parseMcp } from './parse.js';

export const mcpCodec = defineCodec({
  format: 'mcp',
  title: 'MCP server description',
  specName: 'MCP',
  mediaType: 'application/json',
  signature:
    'tools (a tools/list result), or name with packages or remotes (an MCP Registry server.json), or servers',
  carries: {
    agent: ['id', 'name', 'description', 'version', 'documentationUrl', 'extensions.mcp'],
    operation: [
      'title',
      'description',
      'input',
      'output',
      'safe',
      'idempotent',
      'sensitivity',
      'extensions.mcp',
    ],
    bindings: ['mcp'],
  },
  detect: detectMcp,
  parse: parseMcp,
  emitOne: (agent) => emitServer(agent),
});
