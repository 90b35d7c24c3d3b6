/**
 * What of a SearchDocument each index sees. The lexical index gets every field separately, so a match in a name
 * can count for more than one in prose; the embedding model gets one text that reads like a description, with
 * identifiers turned into words (USE-lite has never seen `get_weather`, but knows "get weather").
 */
import type { LexicalFields } from './lexical/types.js';
import { indexableText, readableIdentifier } from './text/words.js';
import type { SearchDocument } from './types.js';

export function lexicalFields(document: SearchDocument): LexicalFields {
  const operations = document.operations;
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
  const parts = [
    sentence(head),
    list(document.operations.map((operation) => operation.name)),
    list(document.operations.flatMap((operation) => operation.parameters)),
    list([...document.tags, ...document.capabilities]),
  ];
  return parts.filter(Boolean).join(' ').slice(0, MAX_EMBEDDING_TEXT);
}
function sentence(text: string): string {
  const trimmed = text.trim().replace(/\s+/g, ' ');
  if (trimmed === '') return '';
  return /[.!?。！？]$/u.test(trimmed) ? trimmed : `${trimmed}.`;
}
