/** The A2A AgentCard codec: v1.0 and v0.3 cards (and earlier samples) in, a card both versions read out. */
import { defineCodec } from '../define.js';
import { isAgentCard } from './detect.js';
import { emitCard } from './emit.js';
import { parseCard } from './parse.js';

export const a2aCodec = defineCodec({
  format: 'a2a',
  title: 'A2A AgentCard',
  specName: 'A2A',
  mediaType: 'application/json',
  signature: 'skills with protocolVersion, supportedInterfaces or url',
  carries: {
    // `id` is derived from the name (the emitter reports it when the two differ); `url` is the primary interface.
    agent: [
      'id',
      'name',
      'description',
      'version',
      'publisher',
      'url',
      'documentationUrl',
      'iconUrl',
      'inputModes',
      'outputModes',
      'surface.flags',
      'auth.schemes',
      'auth.security',
      'extensions.a2a',
    ],
    // Skills have no input/output schemas and no behavioural metadata.
    operation: [
      'title',
      'description',
      'tags',
      'examples',
      'inputModes',
      'outputModes',
      'security',
      'extensions.a2a',
    ],
    bindings: ['a2a'],
  },
  detect: isAgentCard,
  parse: parseCard,
  emitOne: emitCard,
});
