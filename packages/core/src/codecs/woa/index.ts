/** The Web of Agents (WoA) document codec: `/.well-known/woa.json`, `application/woa+json` (draft-gaikwad-woa-00). */
import { isObject } from '../../json/values.js';
import { defineCodec } from '../define.js';
import { emitWoa } from './emit.js';
import { parseWoa } from './parse.js';

export const woaCodec = defineCodec({
  format: 'woa',
  title: 'Web of Agents (WoA) document',
  specName: 'WoA',
  mediaType: 'application/woa+json',
  signature: 'woa_version',
  carries: {
    agent: ['id', 'name', 'description', 'version', 'capabilities', 'extensions.woa'],
    operation: ['description', 'input', 'output', 'extensions.woa'],
    bindings: ['woa-rest', 'mcp', 'other'],
  },
  detect: (document) => isObject(document) && Object.hasOwn(document, 'woa_version'),
  parse: parseWoa,
  emitMany: emitWoa,
});
