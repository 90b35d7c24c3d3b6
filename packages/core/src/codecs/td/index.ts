/**
 * The W3C WoT Thing Description 1.1 codec: reads any TD (or Thing Model) as an agent, validated against the
 * official TD 1.1 JSON Schema, and writes the ADR-0015 WoT AgentCard.
 */
import { defineCodec } from '../define.js';
import { SPEC_NAME, writeThing } from './emit.js';
import { hasTdContext, readThing } from './parse.js';
import { OPERATION_TERMS } from './terms.js';

export const tdCodec = defineCodec({
  format: 'td',
  title: 'WoT Thing Description',
  specName: SPEC_NAME,
  mediaType: 'application/td+json',
  signature: '@context with the WoT TD context',
  carries: {
    agent: [
      'id',
      'name',
      'description',
      'version',
      'url',
      'documentationUrl',
      'iconUrl',
      'auth.schemes',
      'auth.security',
      'extensions.td',
    ],
    operation: [
      'title',
      'description',
      'version',
      'input',
      'output',
      'safe',
      'idempotent',
      'executionModel',
      'revisionOf',
      ...OPERATION_TERMS.map((term) => term.field),
      'extensions.td',
    ],
    bindings: ['http', 'other'],
  },
  detect: hasTdContext,
  parse: (document, issues, options) => readThing(document, issues, options),
  emitOne: writeThing,
});
