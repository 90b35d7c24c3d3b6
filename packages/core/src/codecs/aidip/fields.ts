/** Field names and sections of AIDIP agent metadata (draft-cui-ai-agent-discovery-invocation-01 §3). */

export const AGENT_FIELDS: ReadonlySet<string> = new Set([
  'id',
  'name',
  'description',
  'version',
  'publisher',
  'capabilities',
  'tags',
  'endpoint',
  'supported_languages',
  'authentication',
  'status',
  'operations',
  'inputs',
  'outputs',
]);

export const OPERATION_FIELDS: ReadonlySet<string> = new Set([
  'name',
  'description',
  'inputs',
  'outputs',
  'examples',
]);

export const EXAMPLE_FIELDS: ReadonlySet<string> = new Set(['input', 'output']);

export const AUTHENTICATION_FIELDS: ReadonlySet<string> = new Set(['type', 'instructions', 'scopes']);

/**
 * The key of `extensions.aidip` holding unknown fields of the `authentication` object. It cannot clash with an
 * unknown top-level field, because `authentication` is a known one.
 */
export const AUTHENTICATION_EXTRAS_KEY = 'authentication';

/** The operation an agent with top-level `inputs`/`outputs` implicitly has (§3.2). */
export const DEFAULT_OPERATION = 'default';

export const SECTION = {
  metadata: '§3',
  core: '§3.1',
  operations: '§3.2',
  invocation: '§5.1',
  security: '§9',
} as const;
