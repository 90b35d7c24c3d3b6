/**
 * Registry records for the resolve tests, built from real documents (our examples, read by core) and documents
 * written here, and a search over them: a plain word-overlap ranking, standing where the registry's search index
 * stands (resolution only needs a ranking with reasons, not a particular one).
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Agent, readDocument } from '@agentry/core';
import { hasVerifiedProvenance } from '../../src/records/provenance-trust.js';
import type { RegistryRecord } from '../../src/records/types.js';
import type { ResolveDeps } from '../../src/resolve/index.js';
import { words } from '../../src/resolve/index.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');

/** The agents of a document under examples/documents. */
export function exampleAgents(file: string): Agent[] {
  const result = readDocument(
    JSON.parse(readFileSync(resolve(repoRoot, 'examples/documents', file), 'utf8')),
  );
  return result.agents;
}

/** The single agent of a document (any format core reads). */
export function agentOf(document: unknown): Agent {
  const result = readDocument(document);
  const [agent] = result.agents;
  if (agent === undefined || result.agents.length !== 1) {
    throw new Error(`expected one agent: ${JSON.stringify(result.issues)}`);
  }
  return agent;
}

export function recordOf(agent: Agent, overrides: Partial<RegistryRecord> = {}): RegistryRecord {
  return {
    id: agent.id,
    agent,
    owner: 'publisher-1',
    status: 'active',
    flags: [],
    quality: { ratings: 0, invocations: 0, failures: 0, verified: hasVerifiedProvenance(agent) },
    revision: 1,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}

/** An AIDIP metadata document with one operation (the shape of the draft's §3.3 example). */
export function aidipDocument(fields: {
  id: string;
  name: string;
  description: string;
  operation: string;
  operationDescription: string;
  endpoint?: string;
  languages?: string[];
  auth?: string;
  tags?: string[];
}): unknown {
  const document: Record<string, unknown> = {
    id: fields.id,
    name: fields.name,
    description: fields.description,
    version: '1.0.0',
    capabilities: fields.tags ?? [],
    tags: fields.tags ?? [],
    endpoint: fields.endpoint ?? `https://${fields.id}.example.com/invoke`,
    status: 'active',
    operations: [
      {
        name: fields.operation,
        description: fields.operationDescription,
        inputs: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
        outputs: { type: 'object' },
      },
    ],
  };
  if (fields.languages !== undefined) document['supported_languages'] = fields.languages;
  if (fields.auth !== undefined) document['authentication'] = { type: fields.auth };
  return document;
}

function agentText(agent: Agent): Set<string> {
  const parts = [
    agent.name,
    agent.description,
    ...(agent.tags ?? []),
    ...(agent.capabilities ?? []),
    ...agent.operations.flatMap((op) => [op.name, op.title ?? '', op.description ?? '']),
  ];
  return new Set(words(parts.join(' ')));
}

/** Deps over an in-memory list of records: a word-overlap search and a lookup by id. */
export function depsOver(records: RegistryRecord[], baseUrl?: string): ResolveDeps & { searches: string[] } {
  const searches: string[] = [];
  const deps: ResolveDeps & { searches: string[] } = {
    searches,
    async search(query, top) {
      searches.push(query);
      const wanted = new Set(words(query));
      return records
        .map((record) => {
          const text = agentText(record.agent);
          const matched = [...wanted].filter((word) => text.has(word));
          return { id: record.id, score: matched.length, why: matched.map((word) => `matches '${word}'`) };
        })
        .filter((hit) => hit.score > 0)
        .sort((a, b) => b.score - a.score)
        .slice(0, top);
    },
    async getRecords(ids) {
      return records.filter((record) => ids.includes(record.id));
    },
  };
  if (baseUrl !== undefined) deps.baseUrl = baseUrl;
  return deps;
}
