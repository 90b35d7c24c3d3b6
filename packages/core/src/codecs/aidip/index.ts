/** AIDIP agent metadata (draft-cui-ai-agent-discovery-invocation-01 §3): what a registry's `GET /agents/{id}` returns. */
import { isObject } from '../../json/values.js';
import { defineCodec } from '../define.js';
import { emitAidip } from './emit.js';
import { parseAidip } from './parse.js';

export const aidipCodec = defineCodec({
  format: 'aidip',
  title: 'AIDIP agent metadata',
  specName: 'AIDIP',
  mediaType: 'application/json',
  signature: 'name with operations, endpoint, or top-level inputs and outputs',
  carries: {
    agent: [
      'id',
      'name',
      'description',
      'version',
      'publisher',
      'capabilities',
      'tags',
      'languages',
      'status.state',
      'auth.schemes',
      'auth.security',
      'auth.instructions',
      'extensions.aidip',
    ],
    operation: ['description', 'input', 'output', 'examples', 'extensions.aidip'],
    bindings: ['http'],
  },
  detect: (document) =>
    isObject(document) &&
    typeof document['name'] === 'string' &&
    (Array.isArray(document['operations']) ||
      typeof document['endpoint'] === 'string' ||
      (isObject(document['inputs']) && isObject(document['outputs']))),
  parse: parseAidip,
  emitOne: emitAidip,
});
