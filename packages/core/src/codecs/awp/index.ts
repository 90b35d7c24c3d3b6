// STUB: replaced by the real codec.
import { defineCodec } from '../define.js';

export const awpCodec = defineCodec({
  format: 'awp',
  title: 'Agent Web Protocol (AWP) agent.json',
  specName: 'AWP',
  mediaType: 'application/json',
  signature: 'awp_version',
  carries: { agent: [], operation: [], bindings: [] },
  detect: () => false,
  parse: (_document, issues) => {
    issues.error('', 'awp.unimplemented', 'Not implemented yet.');
    return [];
  },
  emitOne: () => ({ document: {} }),
});
