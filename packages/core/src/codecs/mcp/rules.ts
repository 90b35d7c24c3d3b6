/**
 * The rules of the MCP projection in one place: the field names of a tool and of a registry `server.json` record,
 * the name patterns, the transport types, and the spec sections issues cite. Our own small definitions: core does
 * not depend on the MCP SDK.
 */
import type { JsonObject, JsonSchema } from '../../model/agent.js';
import { isAbsoluteUrl } from '../urls.js';

export const CODE = 'mcp';

/** Tool names SHOULD be 1–128 characters of ASCII letters, digits, `_`, `-` and `.` (MCP §Tools). */
export const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
export const TOOL_NAME_MAX_LENGTH = 128;
/** Every character a tool name may not contain, for sanitising operation names on emit. */
export const TOOL_NAME_FORBIDDEN = /[^A-Za-z0-9_.-]/g;

/** Registry names are reverse-DNS: exactly one slash between namespace and server name. */
export const SERVER_NAME = /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/;

/** A `$schema` containing this names the registry's server.json schema (any dated version). */
export const SERVER_SCHEMA_MARKER = 'server.schema.json';

/** The id of a tools/list result that names no server. */
export const UNNAMED_SERVER_ID = 'mcp-server';

export const TRANSPORT_TYPES: ReadonlySet<string> = new Set(['stdio', 'streamable-http', 'sse']);
/** Remote servers are reached over HTTP; stdio only makes sense for a package run locally. */
export const REMOTE_TRANSPORT_TYPES: ReadonlySet<string> = new Set(['streamable-http', 'sse']);
/** What a remote without a canonical transport is written as: the current MCP HTTP transport. */
export const DEFAULT_REMOTE_TRANSPORT = 'streamable-http';

/** Fields of a server.json record (plus our `tools`) that map to canonical fields. */
export const SERVER_FIELDS: ReadonlySet<string> = new Set([
  'name',
  'title',
  'description',
  'version',
  'websiteUrl',
  'remotes',
  'packages',
  'tools',
]);
export const TOOL_FIELDS: ReadonlySet<string> = new Set([
  'name',
  'title',
  'description',
  'inputSchema',
  'outputSchema',
  'annotations',
]);
/** Annotation hints with a canonical counterpart; the others (`title`, `openWorldHint`) stay in extensions. */
export const MAPPED_HINTS: ReadonlySet<string> = new Set([
  'readOnlyHint',
  'destructiveHint',
  'idempotentHint',
]);
export const REMOTE_FIELDS: ReadonlySet<string> = new Set(['type', 'url']);
export const PACKAGE_FIELDS: ReadonlySet<string> = new Set([
  'registryType',
  'identifier',
  'version',
  'registryBaseUrl',
  'runtimeHint',
  'environmentVariables',
  'packageArguments',
  'runtimeArguments',
  'transport',
]);
export const PACKAGE_LIST_FIELDS = ['environmentVariables', 'packageArguments', 'runtimeArguments'] as const;

/** Key of the agent's `extensions.mcp` holding a registry list entry's own fields (its `_meta`: status, dates). */
export const REGISTRY_ENTRY = 'registryEntry';

export const SECTION = {
  tool: '§Tools: Tool',
  toolName: '§Tools: Tool names',
  toolSchema: '§Tools: Tool (inputSchema, outputSchema)',
  annotations: '§Tools: Tool annotations',
  server: '§server.json: Server',
  package: '§server.json: Package',
  remote: '§server.json: Remote',
  transport: '§server.json: Transport',
  registryList: '§Registry API: list servers',
} as const;

/** True for a schema MCP accepts as a tool's input or output: an object whose `type` is `"object"`. */
export function isObjectTypedSchema(schema: JsonSchema | undefined): schema is JsonObject {
  return typeof schema === 'object' && schema !== null && schema['type'] === 'object';
}

const HTTP_SCHEMES = ['http', 'https'];
/** `{variable}` placeholders of URL templates (filled in by clients from arguments or environment variables). */
const URL_TEMPLATE_VARIABLE = /\{[^{}]*\}/g;

/** True for a URL a remote can have: absolute http(s), once any template variables are filled in. */
export function isRemoteUrl(url: string): boolean {
  return isAbsoluteUrl(url.replace(URL_TEMPLATE_VARIABLE, 'x'), HTTP_SCHEMES);
}
