export type * from './codecs/codec.js';
export type { CarrySpec } from './codecs/losses.js';
export { codecs, DETECTION_ORDER, detectFormat, getCodec } from './codecs/registry.js';
export * from './issues.js';
export * from './json/pointer.js';
export { parseJsonText } from './json/text.js';
export * from './json-schema/validator.js';
export * from './model/agent.js';
export * from './model/diff.js';
