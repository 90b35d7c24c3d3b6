/** Names and patterns of the WoA draft (draft-gaikwad-woa-00) shared by the parser and the emitter. */

export const WOA_VERSION = '1';

/** `agent-id = 1*( ALPHA / DIGIT / "-" / "_" )` (§4.1); ALPHA and DIGIT are ASCII in ABNF. */
export const AGENT_ID_PATTERN = /^[A-Za-z0-9_-]+$/;

/**
 * A private transport name carries a reverse-DNS prefix (§4.3.3), as in `com.example.mytransport`: at least two
 * dot-separated labels.
 */
export const PRIVATE_TRANSPORT_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*(?:\.[A-Za-z0-9][A-Za-z0-9_-]*)+$/;

export const REST_TRANSPORT = 'rest';
export const MCP_TRANSPORT = 'mcp';

export const DOCUMENT_FIELDS: ReadonlySet<string> = new Set(['woa_version', 'agents', 'transports']);
export const AGENT_FIELDS: ReadonlySet<string> = new Set([
  'id',
  'name',
  'description',
  'version',
  'capabilities',
  'inputs',
  'outputs',
  'transports',
  'operations',
]);
export const OPERATION_FIELDS: ReadonlySet<string> = new Set(['name', 'description', 'inputs', 'outputs']);
export const REST_FIELDS: ReadonlySet<string> = new Set(['base', 'invoke_path']);
export const MCP_FIELDS: ReadonlySet<string> = new Set(['server', 'tool_namespace', 'tool_field']);

/**
 * The key inside an agent's `extensions.woa` that holds what is not the agent's own: fields of the document around
 * it. WoA agent fields never start with `@`. (Unknown fields of a transport configuration are kept in the
 * `extensions.woa` of the binding it becomes.)
 */
export const DOCUMENT_EXTRAS_KEY = '@document';

/** The operation name WoA implies when an agent lists no `operations` (§4.1, §5.1). */
export const DEFAULT_OPERATION = 'default';

/** What the emitter writes for MCP servers that name no tool namespace or envelope field of their own. */
export const DEFAULT_TOOL_NAMESPACE = '';
export const DEFAULT_TOOL_FIELD = 'operation';

/** Where Agentry hosts accept the WoA invocation envelope. */
export const AGENTRY_INVOKE_PATH = '/agents/{agent_id}/invoke';

/** Spec sections cited in issues. */
export const SECTION = {
  document: '§4',
  agent: '§4.1',
  schema: '§4.2',
  transports: '§4.3',
  rest: '§4.3.1',
  mcp: '§4.3.2',
  privateTransport: '§4.3.3',
} as const;
