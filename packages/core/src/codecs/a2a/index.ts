// STUB: replaced by the real codec.
import { defineCodec } from '../define.js';

export const a2aCodec = defineCodec({
  format: 'a2a',
  title: 'A2A AgentCard',
  specName: 'A2A',
  mediaType: 'application/json',
  signature: 'skills with protocolVersion, supportedInterfaces or url',
  carries: { agent: [], operation: [], bindings: [] },
  detect: () => false,
  parse: (_document, issues) => {
    issues.error('', 'a2a.unimplemented', 'Not implemented yet.');
    return [];
  },
  emitOne: () => ({ document: {} }),
});
