export {
  type AddressClass,
  classifyAddress,
  describeAddress,
  isPublicAddress,
  type NonPublicAddress,
  type PublicAddress,
} from './fetch/address-policy.js';
export { BufferedResponse } from './fetch/buffered-response.js';
export {
  type CacheEntry,
  type CacheHit,
  type CacheRequest,
  type CacheState,
  DEFAULT_CACHE_BYTES,
  HttpCache,
  type HttpCacheOptions,
  type StorableResponse,
} from './fetch/cache.js';
export * from './fetch/errors.js';
export { type IpLiteral, parseIpLiteral } from './fetch/ip-literal.js';
export { createSecureFetcher } from './fetch/secure-fetch.js';
export { resolveSocketTarget, type SocketTarget } from './fetch/socket-target.js';
export type * from './fetch/types.js';
export * from './invoke/index.js';
export * from './resolve/index.js';
export type * from './resolve/types.js';
