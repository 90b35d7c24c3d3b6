/** What the search index is given of a record: everything the agent says about itself, as text. */
import type { JsonSchema, Operation } from '@agentry/core';
import type { SearchDocument, SearchOperation } from '../search/types.js';
import { standingOf } from './standing.js';
import type { RegistryRecord } from './types.js';

export function searchDocumentOf(record: RegistryRecord): SearchDocument {
  const { agent } = record;
  const document: SearchDocument = {
    id: record.id,
    name: agent.name,
    description: agent.description,
    tags: [...(agent.tags ?? []), ...agent.operations.flatMap((op) => op.tags ?? [])],
    capabilities: [...(agent.capabilities ?? [])],
    operations: agent.operations.map(searchOperation),
  };
  if (record.access !== undefined) document.restricted = true;
  const standing = standingOf(record);
  if (standing.length > 0) {
    document.demotion = {
      penalty: standing.reduce((sum, signal) => sum + signal.penalty, 0),
      reasons: standing.map((signal) => signal.why),
    };
  }
  return document;
}

function searchOperation(op: Operation): SearchOperation {
  const examples: string[] = [];
  for (const example of op.examples ?? []) {
    if (example.text !== undefined) examples.push(example.text);
    else if (example.input !== undefined) examples.push(JSON.stringify(example.input));
  }
  return {
    name: op.title === undefined ? op.name : `${op.name} ${op.title}`,
    description: op.description ?? '',
    examples,
    parameters: parameterNames(op.input),
  };
}

/** The property names of an object schema, one level deep: what a caller would name when asking. */
function parameterNames(schema: JsonSchema | undefined): string[] {
  if (typeof schema !== 'object' || schema === null) return [];
  const properties = schema['properties'];
  if (typeof properties !== 'object' || properties === null || Array.isArray(properties)) return [];
  return Object.keys(properties);
}
