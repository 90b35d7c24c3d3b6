// STUB: replaced by the real codec.
import { defineCodec } from '../define.js';

export const agentJsonCodec = defineCodec({
  format: 'agent-json',
  title: 'agent:// descriptor (agent.json)',
  specName: 'agent://',
  mediaType: 'application/ld+json',
  signature: 'capabilities as an array of objects, or a JSON-LD @context',
  carries: { agent: [], operation: [], bindings: [] },
  detect: () => false,
  parse: (_document, issues) => {
    issues.error('', 'agent-json.unimplemented', 'Not implemented yet.');
    return [];
  },
  emitOne: () => ({ document: {} }),
});
