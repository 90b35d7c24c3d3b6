// STUB: replaced by the real codec.
import { defineCodec } from '../define.js';

export const tdCodec = defineCodec({
  format: 'td',
  title: 'WoT Thing Description',
  specName: 'WoT TD',
  mediaType: 'application/td+json',
  signature: '@context with the WoT TD context',
  carries: { agent: [], operation: [], bindings: [] },
  detect: () => false,
  parse: (_document, issues) => {
    issues.error('', 'td.unimplemented', 'Not implemented yet.');
    return [];
  },
  emitOne: () => ({ document: {} }),
});
