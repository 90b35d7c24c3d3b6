// STUB: replaced by the real codec.
import { defineCodec } from '../define.js';

export const agentsJsonCodec = defineCodec({
  format: 'agents-json',
  title: 'agent:// agents.json map',
  specName: 'agent://',
  mediaType: 'application/json',
  signature: 'agents as an object mapping names to descriptor URLs',
  carries: { agent: [], operation: [], bindings: [] },
  detect: () => false,
  parse: (_document, issues) => {
    issues.error('', 'agents-json.unimplemented', 'Not implemented yet.');
    return [];
  },
  emitOne: () => ({ document: {} }),
});
