/**
 * What of a SearchDocument each index sees. The lexical index gets every field separately, so a match in a name
 * can count for more than one in prose; the embedding model gets one text that reads like a description, with
 * identifiers turned into words (USE-lite has never seen `get_weather`, but knows "get weather").
 */
import type { LexicalFields } from './lexical/types.js';
import { indexableText, readableIdentifier } from './text/words.js';
import type { SearchDocument } from './types.js';

export function lexicalFields(document: SearchDocument): LexicalFields {
  const operations = ownOperations(document);
  return {
    name: indexableText(document.name),
    description: indexableText(document.description),
    tags: indexableText(document.tags.join(' ; ')),
    capabilities: indexableText(document.capabilities.join(' ; ')),
    operationNames: indexableText(operations.map((operation) => operation.name).join(' ; ')),
    operationText: indexableText(
      operations.flatMap((operation) => [operation.description, ...operation.examples]).join(' ; '),
    ),
    parameters: indexableText(operations.flatMap((operation) => operation.parameters).join(' ; ')),
  };
}

/** Longest text handed to the embedding model; beyond it a model like USE-lite only gets slower, not better. */
export const MAX_EMBEDDING_TEXT = 600;

/**
 * `Name: description. Operation names. Parameter names. Tags and capabilities.` — most telling first, since the
 * text is cut at MAX_EMBEDDING_TEXT. (Measured on the development benchmarks: the name joined to its
 * description, then operations and parameters, embeds better than labels first; see docs/search.md.)
 */
export function embeddingText(document: SearchDocument): string {
  const name = readableIdentifier(document.name);
  const description = document.description.trim();
  const head = name && description ? `${name}: ${description}` : name || description;
  const list = (items: readonly string[]) =>
    sentence([...new Set(items.map(readableIdentifier))].filter(Boolean).join(', '));
  const operations = ownOperations(document);
  const parts = [
    sentence(head),
    list(operations.map((operation) => operation.name)),
    list(operations.flatMap((operation) => operation.parameters)),
    list([...document.tags, ...document.capabilities]),
  ];
  return parts.filter(Boolean).join(' ').slice(0, MAX_EMBEDDING_TEXT);
}
/**
 * The operations with what only repeats the agent left out: an agent that is one tool (an MCP tool, an A2A skill
 * named like its agent) has an operation with the agent's own name and description, and indexed twice they would
 * count twice (a name match in two fields of BM25, the name twice in the embedded text).
 */
function ownOperations(document: SearchDocument): SearchDocument['operations'] {
  const name = comparable(document.name);
  const description = comparable(document.description);
  return document.operations.map((operation) => ({
    ...operation,
    name: comparable(operation.name) === name ? '' : operation.name,
    description: comparable(operation.description) === description ? '' : operation.description,
  }));
}

function comparable(text: string): string {
  return readableIdentifier(text).toLowerCase();
}

function sentence(text: string): string {
  const trimmed = text.trim().replace(/\s+/g, ' ');
  if (trimmed === '') return '';
  return /[.!?。！？]$/u.test(trimmed) ? trimmed : `${trimmed}.`;
}
