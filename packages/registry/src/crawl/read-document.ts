/**
 * Reading one fetched document: the agents it describes (detected by its keys with core's codecs), the documents
 * it links to (an agents.json map's descriptors, an index's entries), and the problems found on the way.
 */
import { type Agent, type FormatName, readDocument } from '@agentry/core';
import {
  type IndexContents,
  looksLikeAiCatalog,
  readAiCatalog,
  readWotDirectory,
} from './index-documents.js';
import type { Description } from './merge.js';
import { isSameSite } from './origins.js';
import type { AgentSource, DocumentKind, DocumentRecord } from './types.js';

/** How a document is read: as an agent description, or as one of the index documents. */
export type DocumentRole = 'document' | 'ai-catalog' | 'wot-directory';

export interface ReadResult {
  kind?: DocumentKind;
  descriptions: Description[];
  /** Documents to fetch and read as agent descriptions. */
  links: string[];
  /** Index documents to fetch and read with the same role. */
  indexes: string[];
  /** The first few errors core reported. */
  issues: string[];
  /** Why nothing could be read, when nothing could. */
  problem?: string;
}

const MAX_ISSUES = 5;

export function readFetched(
  origin: string,
  record: DocumentRecord,
  json: unknown,
  role: DocumentRole,
): ReadResult {
  if (role === 'ai-catalog' && looksLikeAiCatalog(json)) {
    return fromIndex(origin, record, 'ai-catalog', readAiCatalog(json, record.url));
  }
  if (role === 'wot-directory') {
    const contents = readWotDirectory(json, record.url);
    if (contents.problem === undefined) return fromIndex(origin, record, 'wot-directory', contents);
  }
  return fromDocument(origin, record, json);
}

function fromIndex(
  origin: string,
  record: DocumentRecord,
  kind: DocumentKind,
  contents: IndexContents,
): ReadResult {
  const result: ReadResult = {
    kind,
    descriptions: [],
    links: contents.links,
    indexes: contents.indexes,
    issues: [],
  };
  for (const { pointer, document } of contents.inline) {
    const inline = fromDocument(origin, record, document);
    result.descriptions.push(...inline.descriptions);
    result.links.push(...inline.links);
    for (const issue of inline.issues) result.issues.push(`${pointer}: ${issue}`);
    if (inline.problem !== undefined) result.issues.push(`${pointer}: ${inline.problem}`);
  }
  result.issues = result.issues.slice(0, MAX_ISSUES);
  return result;
}

function fromDocument(origin: string, record: DocumentRecord, json: unknown): ReadResult {
  const read = readDocument(json, { sourceUrl: record.url, fetchedAt: record.fetchedAt });
  const issues = read.issues
    .filter((issue) => issue.severity === 'error')
    .slice(0, MAX_ISSUES)
    .map((issue) => (issue.pointer === '' ? issue.message : `${issue.pointer}: ${issue.message}`));
  if (read.format === undefined) {
    return { descriptions: [], links: [], indexes: [], issues: [], problem: issues[0] ?? 'Not recognised.' };
  }
  const format = read.format;
  const result: ReadResult = { kind: format, descriptions: [], links: [], indexes: [], issues };
  for (const agent of read.agents) {
    if (format === 'agents-json' && agent.url !== undefined) {
      result.links.push(agent.url);
      // A map entry naming a descriptor on another origin describes that origin's agent, not this one's.
      if (!isSameSite(agent.url, origin)) continue;
    }
    result.descriptions.push(describe(agent, format, record));
  }
  return result;
}

function describe(agent: Agent, format: FormatName, record: DocumentRecord): Description {
  const origin = agent.provenance?.origin ?? 'native';
  const source: AgentSource = {
    url: record.url,
    format,
    origin,
    fetchedAt: record.fetchedAt,
    primary: false,
  };
  if (record.etag !== undefined) source.etag = record.etag;
  if (record.lastModified !== undefined) source.lastModified = record.lastModified;
  const provenance = agent.provenance ?? { sourceFormat: format, origin };
  if (record.etag !== undefined) provenance.etag = record.etag;
  if (record.lastModified !== undefined) provenance.lastModified = record.lastModified;
  agent.provenance = provenance;
  return { agent, format, documentUrl: record.url, source };
}
