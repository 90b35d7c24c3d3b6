/**
 * Which of an agent's operations fits the intent. The search ranks agents; this ranks the operations inside one,
 * by the intent's words found in what each operation says about itself, weighted by where they are found (the
 * name says most, the parameters least). Deterministic and cheap: it runs on every candidate of every request.
 */
import type { Agent, JsonSchema, Operation } from '@agentry/core';

/** Where a word is found, and what finding it there is worth. */
const FIELD_WEIGHTS = {
  name: 3,
  title: 2.5,
  tags: 1.5,
  description: 1,
  examples: 1,
  parameters: 0.5,
} as const;

const STOPWORDS = new Set(
  (
    'a an and are as at be by can could do for from get give have how i in into is it its me my need of on or ' +
    'please some that the this to up want we what which will with would you your agent tool find help'
  ).split(' '),
);

/** Words of a text: identifiers split (`getWeather`, `get_weather` → get, weather), lower case, lightly stemmed. */
export function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .normalize('NFKC')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 1 && !STOPWORDS.has(word))
    .map(stem);
}

/** A light suffix strip so "bookings", "booking" and "booked" meet "book"; not a full stemmer. */
function stem(word: string): string {
  if (word.length <= 4) return word;
  for (const suffix of ['ations', 'ation', 'ings', 'ing', 'ies', 'ers', 'er', 'ed', 'es', 's']) {
    if (word.endsWith(suffix) && word.length - suffix.length >= 3) {
      return suffix === 'ies' ? `${word.slice(0, -3)}y` : word.slice(0, -suffix.length);
    }
  }
  return word;
}

export interface RankedOperation {
  operation: Operation;
  /** 0..1: the weighted share of the intent's words the operation mentions. */
  score: number;
  /** The intent's words it matched. */
  matched: string[];
}

/** The agent's operations, best match for `intent` first (ties keep the agent's order). */
export function rankOperations(agent: Agent, intent: string): RankedOperation[] {
  const query = [...new Set(words(intent))];
  const ranked = agent.operations.map((operation, index) => {
    const fields = operationFields(operation);
    let total = 0;
    const matched: string[] = [];
    for (const word of query) {
      let best = 0;
      for (const [field, weight] of Object.entries(FIELD_WEIGHTS)) {
        if (weight > best && fields[field as keyof typeof FIELD_WEIGHTS].has(word)) best = weight;
      }
      if (best > 0) matched.push(word);
      total += best;
    }
    const score = query.length === 0 ? 0 : total / (query.length * FIELD_WEIGHTS.name);
    return { operation, score: Math.round(score * 1e4) / 1e4, matched, index };
  });
  ranked.sort((a, b) => b.score - a.score || a.index - b.index);
  return ranked.map(({ operation, score, matched }) => ({ operation, score, matched }));
}

function operationFields(operation: Operation): Record<keyof typeof FIELD_WEIGHTS, Set<string>> {
  const examples = (operation.examples ?? []).map((example) => example.text ?? '').join(' ');
  return {
    name: new Set(words(operation.name)),
    title: new Set(words(operation.title ?? '')),
    tags: new Set(words((operation.tags ?? []).join(' '))),
    description: new Set(words(operation.description ?? '')),
    examples: new Set(words(examples)),
    parameters: new Set(words(parameterNames(operation.input).join(' '))),
  };
}

/** The property names at the top of an input schema. */
function parameterNames(schema: JsonSchema | undefined): string[] {
  if (typeof schema !== 'object' || schema === null) return [];
  const properties = schema['properties'];
  if (typeof properties !== 'object' || properties === null || Array.isArray(properties)) return [];
  return Object.keys(properties);
}
