/**
 * Reads an agents.json map (agent:// §5.1). Each entry names an agent and where its descriptor is; the agents read
 * are stubs (no operations, no bindings) whose `url` is that descriptor, to be resolved by fetching it.
 */
import type { IssueCollector } from '../../issues.js';
import { ObjectReader } from '../../json/reader.js';
import { isObject } from '../../json/values.js';
import type { Agent, JsonObject } from '../../model/agent.js';
import type { ParseOptions } from '../codec.js';
import { nativeProvenance } from '../provenance.js';
import { isAbsoluteUrl } from '../urls.js';

const ENTRY_FIELDS: ReadonlySet<string> = new Set(['url', 'name', 'description']);

export function parseMap(document: unknown, issues: IssueCollector, options: ParseOptions): Agent[] {
  const map = ObjectReader.of(document, '', issues, 'agents-json', 'An agents.json map', '§5.1');
  if (map === undefined) return [];
  const entries = map.child('agents', { required: true, section: '§5.1' });
  if (entries === undefined) return [];
  // Fields beside `agents` belong to the whole map; each agent keeps a copy so that nothing is dropped.
  const documentExtra = map.rest(['agents']);
  const agents: Agent[] = [];
  for (const name of Object.keys(entries.value)) {
    const pointer = entries.at(name);
    if (name.trim() === '') {
      issues.error(pointer, 'agents-json.name.empty', 'An agent name in "agents" must not be empty.', '§5.1');
      continue;
    }
    const entry = readEntry(entries.value[name], pointer, issues);
    if (entry === undefined) continue;
    const agent: Agent = {
      id: name,
      name: entry.name ?? name,
      description: entry.description ?? '',
      operations: [],
      bindings: [],
      provenance: nativeProvenance('agents-json', options),
    };
    const url = descriptorUrl(entry.url, pointer, issues, options.sourceUrl);
    if (url !== undefined) agent.url = url;
    const extension: JsonObject = {};
    if (entry.extra !== undefined) extension['entry'] = entry.extra;
    if (documentExtra !== undefined) extension['document'] = documentExtra;
    if (Object.keys(extension).length > 0) agent.extensions = { 'agents-json': extension };
    agents.push(agent);
  }
  return agents;
}

interface Entry {
  url: string | undefined;
  name?: string;
  description?: string;
  extra?: JsonObject;
}

function readEntry(value: unknown, pointer: string, issues: IssueCollector): Entry | undefined {
  if (typeof value === 'string') return { url: value };
  if (!isObject(value)) {
    issues.error(
      pointer,
      'agents-json.entry.type',
      'Each entry of "agents" must be the URL (a string) of the agent\'s agent.json descriptor.',
      '§5.1',
    );
    return undefined;
  }
  issues.warning(
    pointer,
    'agents-json.entry.object',
    'Entries of "agents" are descriptor URLs; an object entry is read for its "url".',
    '§5.1',
  );
  const entry = new ObjectReader(value, pointer, issues, 'agents-json', '§5.1');
  const read: Entry = { url: entry.string('url', { required: true }) };
  const name = entry.string('name');
  if (name !== undefined) read.name = name;
  const description = entry.string('description');
  if (description !== undefined) read.description = description;
  const extra = entry.rest(ENTRY_FIELDS);
  if (extra !== undefined) read.extra = extra;
  return read;
}

/** An absolute http(s) URL, or a relative reference resolved against the map's own URL. */
function descriptorUrl(
  url: string | undefined,
  pointer: string,
  issues: IssueCollector,
  sourceUrl: string | undefined,
): string | undefined {
  if (url === undefined) return undefined;
  if (isAbsoluteUrl(url, ['http', 'https'])) return url;
  if (isAbsoluteUrl(url)) {
    issues.error(
      pointer,
      'agents-json.url.scheme',
      `"${url}" is not an http(s) URL; an agents.json entry must locate the agent's agent.json descriptor.`,
      '§5.1',
    );
    return undefined;
  }
  if (sourceUrl !== undefined && URL.canParse(url, sourceUrl)) return new URL(url, sourceUrl).href;
  issues.warning(
    pointer,
    'agents-json.url.relative',
    `"${url}" is relative and the map's own URL is unknown, so it cannot be resolved.`,
    '§5.1',
  );
  return url;
}
