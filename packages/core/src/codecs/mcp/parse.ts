/**
 * Reads any MCP document shape: one server (tools/list result, server.json record, our combined document), a JSON
 * array of records, or a registry list response `{servers: [{server, _meta}], metadata}` (one agent per record).
 */
import type { IssueCollector } from '../../issues.js';
import { joinPointer } from '../../json/pointer.js';
import { describeType, ObjectReader } from '../../json/reader.js';
import { isObject } from '../../json/values.js';
import type { Agent } from '../../model/agent.js';
import type { ParseOptions } from '../codec.js';
import { readServer } from './parse-server.js';
import { CODE, REGISTRY_ENTRY, SECTION } from './rules.js';

export function parseMcp(document: unknown, issues: IssueCollector, options: ParseOptions): Agent[] {
  if (Array.isArray(document)) return readRecords(document, '', issues, options);
  if (!isObject(document)) {
    issues.error(
      '',
      `${CODE}.type`,
      `An MCP document must be a JSON object (a server.json record or a tools/list result) or an array of records, got ${describeType(document)}.`,
      SECTION.server,
    );
    return [];
  }
  if (isRegistryList(document)) return readRegistryList(document['servers'] as unknown[], issues, options);
  return [readServer(new ObjectReader(document, '', issues, CODE, SECTION.server), options)];
}

/** A `servers` array on an object that is not itself a server. */
function isRegistryList(document: Record<string, unknown>): boolean {
  return Array.isArray(document['servers']) && !('name' in document) && !('tools' in document);
}

interface Located {
  agent: Agent;
  pointer: string;
}

function readRecords(
  items: unknown[],
  pointer: string,
  issues: IssueCollector,
  options: ParseOptions,
): Agent[] {
  const read: Located[] = [];
  items.forEach((item, index) => {
    const at = joinPointer(pointer, index);
    const record = ObjectReader.of(item, at, issues, CODE, 'A server.json record', SECTION.server);
    if (record !== undefined) read.push({ agent: readServer(record, options), pointer: at });
  });
  return checkUniqueIds(read, issues);
}

/**
 * Registry list entries wrap the record in `server`; their other fields (`_meta`: status, dates) are kept. The
 * response's `metadata` (cursor, count) describes the page, not any server, so it is not carried.
 */
function readRegistryList(items: unknown[], issues: IssueCollector, options: ParseOptions): Agent[] {
  const read: Located[] = [];
  items.forEach((item, index) => {
    const at = joinPointer('/servers', index);
    const entry = ObjectReader.of(item, at, issues, CODE, 'A registry list entry', SECTION.registryList);
    if (entry === undefined) return;
    if (!entry.has('server')) {
      // Older registry responses listed records directly.
      read.push({ agent: readServer(entry, options), pointer: at });
      return;
    }
    const record = entry.child('server', { section: SECTION.registryList });
    if (record === undefined) return;
    const agent = readServer(record, options);
    const entryFields = entry.rest(['server']);
    if (entryFields !== undefined) {
      const extension = agent.extensions?.['mcp'] ?? {};
      extension[REGISTRY_ENTRY] = entryFields;
      agent.extensions = { ...agent.extensions, mcp: extension };
    }
    read.push({ agent, pointer: record.pointer });
  });
  return checkUniqueIds(read, issues);
}

/** A registry may list several versions of one server; canonical ids are meant to be unique in a document. */
function checkUniqueIds(read: readonly Located[], issues: IssueCollector): Agent[] {
  const seen = new Set<string>();
  for (const { agent, pointer } of read) {
    if (seen.has(agent.id)) {
      issues.warning(
        joinPointer(pointer, 'name'),
        `${CODE}.server.duplicate`,
        `Server "${agent.id}" is listed more than once (several versions?); tools that look agents up by id will see only one.`,
        SECTION.server,
      );
    }
    seen.add(agent.id);
  }
  return read.map(({ agent }) => agent);
}
