/**
 * The rules of an AWP agent.json in one place: the spec sections issues cite, the fields each object defines, and
 * the closed vocabularies. The draft numbers its sections only in cross-references ("see §6" … "see §13"); the
 * numbers below follow that scheme (versioning §4, top-level fields §5, synthetic files §14).
 */
import type { Binding, HttpMethod, SecuritySchemeType, Sensitivity } from '../../model/agent.js';

export const SECTION = {
  versioning: '§4',
  document: '§5',
  capabilities: '§6',
  auth: '§7',
  entities: '§8',
  actions: '§9',
  errors: '§10',
  dependencies: '§11',
  hints: '§12',
  status: '§13',
  synthetic: '§14',
} as const;

/** The version this codec implements; 0.2's additions (`protocols`, `via` actions) are read too. */
export const SPEC_VERSION = '0.1';
/** The version written when the agent delegates actions to protocols (a 0.2 addition). */
export const PROTOCOLS_VERSION = '0.2';
export const VERSION_PATTERN = /^(\d+)\.(\d+)$/;

export const HOST_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?(?::\d{1,5})?$/;
/** RFC 3339 date-time, as `last_verified` is written. */
export const DATE_TIME_PATTERN =
  /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;

export const HTTP_METHODS: ReadonlySet<string> = new Set<HttpMethod>([
  'GET',
  'POST',
  'PUT',
  'DELETE',
  'PATCH',
]);
export const SENSITIVITIES: ReadonlySet<string> = new Set<Sensitivity>([
  'standard',
  'destructive',
  'irreversible',
]);
export const EXECUTION_MODELS: ReadonlySet<string> = new Set(['sync', 'async']);
export const PAGINATION_STYLES: ReadonlySet<string> = new Set(['cursor', 'offset', 'page', 'none']);

/** `auth.type` → canonical scheme type; other values are kept as `other` schemes. */
export const AUTH_TYPES: ReadonlyMap<string, SecuritySchemeType> = new Map([
  ['oauth2', 'oauth2'],
  ['api_key', 'apiKey'],
  ['bearer', 'bearer'],
  ['none', 'none'],
]);
/** Canonical scheme type → `auth.type`. */
export const AUTH_TYPE_NAMES: ReadonlyMap<SecuritySchemeType, string> = new Map(
  [...AUTH_TYPES].map(([name, type]) => [type, name]),
);

/** `capabilities` flags that are booleans → canonical `SurfaceFlags` keys; `pagination` is a string. */
export const BOOLEAN_CAPABILITIES = [
  ['streaming', 'streaming'],
  ['batch_actions', 'batchActions'],
  ['webhooks', 'webhooks'],
  ['idempotency', 'idempotency'],
] as const;
export const CAPABILITY_FIELDS = [...BOOLEAN_CAPABILITIES.map(([field]) => field), 'pagination'] as const;

export const TOP_FIELDS = [
  'awp_version',
  'domain',
  'intent',
  'capabilities',
  'auth',
  'entities',
  'actions',
  'errors',
  'dependencies',
  'agent_hints',
  'agent_status',
] as const;
/** The declaration a synthetic file carries (§14); read only when `source` is `synthetic`. */
export const SYNTHETIC_FIELDS = ['source', 'generated_by', 'confidence', 'last_verified'] as const;
export const AUTH_FIELDS = [
  'required_for',
  'optional_for',
  'type',
  'token_expiry',
  'refresh_endpoint',
] as const;
export const STATUS_FIELDS = ['operational', 'degraded_actions', 'status_endpoint'] as const;
export const ENTITY_FIELDS = ['fields'] as const;
export const ACTION_FIELDS = [
  'id',
  'description',
  'auth_required',
  'inputs',
  'outputs',
  'endpoint',
  'method',
  'rate_limit',
  'idempotency',
  'execution_model',
  'poll_endpoint',
  'sensitivity',
  'requires_human_confirmation',
  'reversible',
] as const;
export const IDEMPOTENCY_FIELDS = ['supported', 'key_field', 'window', 'header'] as const;
export const INPUT_FIELDS = ['type', 'required', 'default', 'options', 'description'] as const;

/** Binding kinds a file can express: endpoints, and (0.2) the protocols actions delegate to. */
export const CARRIED_BINDINGS = ['http', 'mcp', 'a2a', 'other'] as const satisfies readonly Binding['kind'][];
export const CARRIED_BINDING_KINDS: ReadonlySet<string> = new Set(CARRIED_BINDINGS);
