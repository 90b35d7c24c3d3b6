/** The agents the protocol tests host: one of each kind of call the MCP and WebSocket servers must carry. */
import { setTimeout as delay } from 'node:timers/promises';
import { type AgentDefinition, defineAgent, HostError } from '../../src/index.js';

export function toolsAgent(): AgentDefinition {
  return defineAgent({
    id: 'tools',
    name: 'Protocol tools',
    description: 'Echoes, counts, waits and deletes, for the protocol tests.',
    version: '2.1.0',
    operations: {
      echo: {
        title: 'Echo',
        description: 'Echo the text back, with what the call carried.',
        input: {
          type: 'object',
          properties: { text: { type: 'string', minLength: 1 } },
          required: ['text'],
          additionalProperties: false,
        },
        output: {
          type: 'object',
          properties: { text: { type: 'string' }, sessionId: {}, transport: { type: 'string' } },
          required: ['text'],
        },
        safe: true,
        idempotent: true,
        handler: (input, context) => ({
          text: (input as { text: string }).text,
          sessionId: context.sessionId ?? null,
          transport: context.transport,
        }),
      },
      count: {
        description: 'Count up to a number, one chunk per step.',
        input: {
          type: 'object',
          properties: { to: { type: 'integer', minimum: 0, maximum: 20 } },
          required: ['to'],
        },
        output: { type: 'object', properties: { total: { type: 'integer' } }, required: ['total'] },
        handler: async function* (input) {
          const { to } = input as { to: number };
          for (let step = 1; step <= to; step++) yield step;
          return { total: to };
        },
      },
      shout: {
        description: 'Upper-cases a text; its output is a bare string.',
        input: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
        output: { type: 'string' },
        handler: (input) => (input as { text: string }).text.toUpperCase(),
      },
      later: {
        description: 'A deferred job.',
        input: { type: 'object', properties: { ms: { type: 'integer', minimum: 0 } } },
        executionModel: 'async',
        handler: async (input, context) => {
          await delay((input as { ms?: number }).ms ?? 0, undefined, { signal: context.signal });
          return { done: true };
        },
      },
      wipe: {
        description: 'Deletes everything; needs a person to confirm.',
        input: { type: 'object' },
        sensitivity: 'destructive',
        handler: () => ({ wiped: true }),
      },
      refuse: {
        description: 'Refuses on purpose.',
        input: { type: 'object' },
        handler: () => {
          throw new HostError({ status: 409, code: 'out_of_stock', detail: 'Only 2 left.' });
        },
      },
    },
  });
}

/** A second agent whose `echo` collides with the first's. */
export function otherAgent(): AgentDefinition {
  return defineAgent({
    id: 'other',
    name: 'Other',
    description: 'Another agent with an echo.',
    operations: {
      echo: {
        input: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
        handler: (input) => ({ other: (input as { text: string }).text }),
      },
    },
  });
}
