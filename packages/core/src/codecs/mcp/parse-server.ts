/**
 * One MCP server description → one canonical agent. The same reader takes a tools/list result (`{tools}`), a
 * registry server.json record, and our combined document (a record with its `tools`).
 */
import type { ObjectReader } from '../../json/reader.js';
import type { Agent } from '../../model/agent.js';
import type { ParseOptions } from '../codec.js';
import { nativeProvenance } from '../provenance.js';
import { isAbsoluteUrl } from '../urls.js';
import { readBindings } from './parse-bindings.js';
import { readTools } from './parse-tools.js';
import { CODE, SECTION, SERVER_FIELDS, SERVER_NAME, UNNAMED_SERVER_ID } from './rules.js';

export function readServer(server: ObjectReader, options: ParseOptions): Agent {
  const section = SECTION.server;
  // A tools/list result names no server; only records (named, or with packages or remotes) owe the record fields.
  const isToolList =
    server.has('tools') && !server.has('name') && !server.has('packages') && !server.has('remotes');
  const name = server.text('name', { required: !isToolList, section });
  const usable = name !== undefined && name.trim() !== '';
  if (usable && !SERVER_NAME.test(name)) {
    server.issues.warning(
      server.at('name'),
      `${CODE}.server.name`,
      `Server name "${name}" should be reverse-DNS with one slash between namespace and name (e.g. io.github.owner/server); the MCP Registry rejects other names.`,
      section,
    );
  }
  const title = server.string('title', { section });
  const description = server.string('description', { required: !isToolList, lenient: true, section });
  const version = server.string('version', { required: !isToolList, lenient: true, section });
  const websiteUrl = server.string('websiteUrl', { section });
  if (websiteUrl !== undefined && !isAbsoluteUrl(websiteUrl)) {
    server.issues.warning(
      server.at('websiteUrl'),
      `${CODE}.server.website-url`,
      `websiteUrl "${websiteUrl}" should be an absolute URL.`,
      section,
    );
  }
  const bindings = readBindings(server);
  const operations = readTools(server);

  const id = usable ? name : UNNAMED_SERVER_ID;
  const agent: Agent = {
    id,
    name: title ?? id,
    description: description ?? '',
    operations,
    bindings,
  };
  if (version !== undefined) agent.version = version;
  if (websiteUrl !== undefined) agent.documentationUrl = websiteUrl;
  agent.provenance = nativeProvenance('mcp', options);

  const extension = server.rest(SERVER_FIELDS);
  if (extension !== undefined) agent.extensions = { mcp: extension };
  return agent;
}
