/** `agent://` URIs (draft-narvaneni-agent-uri §4): parse, format, normalise. */
export { AgentUriError, type AgentUriPart } from './errors.js';
export { formatAgentUri } from './format.js';
export { normalizeAgentUri, removeDotSegments } from './normalize.js';
export { type AgentUriResult, hasAgentScheme, isAgentUri, parseAgentUri, tryParseAgentUri } from './parse.js';
export {
  AGENT_TRANSPORTS,
  type AgentAuthority,
  type AgentAuthorityParts,
  type AgentTransport,
  type AgentUri,
  type AgentUriParts,
  type Did,
  type HostKind,
  type UnixSocketAddress,
} from './types.js';
