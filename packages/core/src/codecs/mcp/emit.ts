/**
 * A canonical agent → our combined MCP document: the registry server.json fields, plus the server's tools. The
 * `tools` array is always written (even empty), so the document is recognised as MCP with or without bindings.
 */
import { setOwn } from '../../json/values.js';
import type { Agent, JsonObject } from '../../model/agent.js';
import type { Loss } from '../codec.js';
import type { EmitOne } from '../define.js';
import { emitBindings } from './emit-bindings.js';
import { emitTools, type LoseField } from './emit-tools.js';
import { CODE, SERVER_FIELDS } from './rules.js';

export function emitServer(agent: Agent): EmitOne {
  const losses: Loss[] = [];
  const lose: LoseField = (field, message) => {
    if (!losses.some((loss) => loss.field === field)) losses.push({ agent: agent.id, field, message });
  };
  const extension = agent.extensions?.['mcp'];
  const document: JsonObject = {};
  // Conventionally first, so that editors pick the schema up.
  if (extension?.['$schema'] !== undefined) document['$schema'] = extension['$schema'];
  document['name'] = agent.id;
  if (agent.name !== agent.id) document['title'] = agent.name;
  document['description'] = agent.description;
  if (agent.version !== undefined) document['version'] = agent.version;
  if (agent.documentationUrl !== undefined) document['websiteUrl'] = agent.documentationUrl;
  if (extension !== undefined) {
    for (const [key, value] of Object.entries(extension)) {
      if (key === '$schema') continue;
      if (SERVER_FIELDS.has(key)) {
        lose('extensions.mcp', `extensions.mcp.${key} would overwrite the record's own "${key}".`);
        continue;
      }
      setOwn(document, key, value);
    }
  }
  const { remotes, packages } = emitBindings(agent.bindings, lose);
  if (remotes.length > 0) document['remotes'] = remotes;
  if (packages.length > 0) document['packages'] = packages;
  document['tools'] = emitTools(agent.operations, lose);

  const result: EmitOne = { document, losses };
  if (agent.id.trim() === '') {
    result.issues = [
      {
        severity: 'error',
        pointer: '/name',
        code: `${CODE}.emit.name`,
        message: 'The agent has no id, and an MCP server needs a name: give the agent an id.',
      },
    ];
  }
  return result;
}
