/** fast-check generators for canonical agents and hostile JSON, shared by the property tests. */
import fc from 'fast-check';
import type { Agent, Binding, JsonSchema, Operation } from '../src/index.js';

const token = fc.stringMatching(/^[a-z][a-z0-9_-]{0,15}$/);
const words = fc
  .array(
    fc.constantFrom(
      'find',
      'book',
      'flights',
      'text',
      'summary',
      'weather',
      'city',
      'translate',
      'émigré',
      '日本',
    ),
    {
      minLength: 1,
      maxLength: 6,
    },
  )
  .map((parts) => parts.join(' '));

const propertySchema: fc.Arbitrary<JsonSchema> = fc.oneof(
  fc.constant({ type: 'string' }),
  fc.constant({ type: 'integer', minimum: 0 }),
  fc.constant({ type: 'boolean' }),
  fc.constant({ type: 'number' }),
  fc.constant({ type: 'array', items: { type: 'string' } }),
);

export const objectSchema: fc.Arbitrary<JsonSchema> = fc
  .dictionary(token, propertySchema, { minKeys: 1, maxKeys: 4 })
  .chain((properties) =>
    fc.subarray(Object.keys(properties)).map((required) => {
      const schema: Record<string, unknown> = { type: 'object', properties };
      if (required.length > 0) schema['required'] = required;
      return schema as JsonSchema;
    }),
  );

const operation: fc.Arbitrary<Operation> = fc
  .record(
    {
      name: token,
      description: words,
      input: objectSchema,
      output: objectSchema,
      safe: fc.boolean(),
      idempotent: fc.boolean(),
    },
    { requiredKeys: ['name', 'description'] },
  )
  .map((op) => op as Operation);

export const agentArbitrary: fc.Arbitrary<Agent> = fc
  .record({
    id: token,
    name: words,
    description: words,
    version: fc.option(fc.constantFrom('1.0.0', '2.3.1', '0.1.0'), { nil: undefined }),
    tags: fc.option(fc.uniqueArray(token, { minLength: 1, maxLength: 3 }), { nil: undefined }),
    operations: fc.uniqueArray(operation, { minLength: 1, maxLength: 4, selector: (op) => op.name }),
  })
  .map((fields) => {
    const agent: Agent = {
      id: fields.id,
      name: fields.name,
      description: fields.description,
      operations: fields.operations,
      bindings: fields.operations.map(
        (op): Binding => ({
          kind: 'http',
          url: `https://agents.example.net/${fields.id}/${op.name}`,
          method: 'POST',
          operations: [op.name],
        }),
      ),
    };
    if (fields.version !== undefined) agent.version = fields.version;
    if (fields.tags !== undefined) agent.tags = fields.tags;
    return agent;
  });

/** Replaces one random subtree of `value` (or the root) with `replacement`. */
export function mutate(value: unknown, path: number[], replacement: unknown): unknown {
  if (path.length === 0 || typeof value !== 'object' || value === null) return replacement;
  const [step, ...rest] = path as [number, ...number[]];
  if (Array.isArray(value)) {
    if (value.length === 0) return replacement;
    const index = step % value.length;
    const copy = [...value];
    copy[index] = mutate(value[index], rest, replacement);
    return copy;
  }
  const keys = Object.keys(value);
  if (keys.length === 0) return replacement;
  const key = keys[step % keys.length]!;
  const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  if (replacement === DELETE && rest.length === 0) delete copy[key];
  else copy[key] = mutate((value as Record<string, unknown>)[key], rest, replacement);
  return copy;
}

/** Marker for `mutate`: delete the chosen key instead of replacing it. */
export const DELETE = Symbol('delete');
