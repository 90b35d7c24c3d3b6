// STUB: replaced by the real codec.
import { defineCodec } from '../define.js';

export const aidipCodec = defineCodec({
  format: 'aidip',
  title: 'AIDIP agent metadata',
  specName: 'AIDIP',
  mediaType: 'application/json',
  signature: 'operations, endpoint or capability strings with name and description',
  carries: { agent: [], operation: [], bindings: [] },
  detect: () => false,
  parse: (_document, issues) => {
    issues.error('', 'aidip.unimplemented', 'Not implemented yet.');
    return [];
  },
  emitOne: () => ({ document: {} }),
});
