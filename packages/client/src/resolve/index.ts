/** Resolution of agent URIs, URLs and origins (agent:// §5, §6; docs/resolution.md). */
export { chooseBinding, type EndpointBinding, endpointBinding, isUsableBinding } from './bindings.js';
export {
  DID_A2A_SERVICE_TYPES,
  DID_DESCRIPTION_SERVICE_TYPES,
  DID_ENDPOINT_SERVICE_TYPES,
  DID_MCP_SERVICE_TYPES,
  type DidWebLocation,
  didWebLocation,
} from './did-web.js';
export { InvalidTargetError, StaticMapError } from './errors.js';
export { resolve } from './resolve.js';
export {
  createResolver,
  DEFAULT_RESOLUTION_CACHE_ENTRIES,
  type ResolutionCacheOptions,
  type Resolver,
  type ResolverOptions,
  type ResolverResolveOptions,
} from './resolver.js';
export { siteSteps } from './site.js';
export { loadStaticMap } from './static-map.js';
export type {
  Resolution,
  ResolutionSource,
  ResolvedDocument,
  ResolveOptions,
  ResolveStep,
} from './types.js';
export { matchVersion } from './versions.js';
export { WEBFINGER_REL_DESCRIPTION, WEBFINGER_REL_ENDPOINT, webfingerUrl } from './webfinger.js';
