// STUB: replaced by the real codec.
import { defineCodec } from '../define.js';

export const woaCodec = defineCodec({
  format: 'woa',
  title: 'Web of Agents (WoA) document',
  specName: 'WoA',
  mediaType: 'application/woa+json',
  signature: 'woa_version',
  carries: { agent: [], operation: [], bindings: [] },
  detect: () => false,
  parse: (_document, issues) => {
    issues.error('', 'woa.unimplemented', 'Not implemented yet.');
    return [];
  },
  emitOne: () => ({ document: {} }),
});
