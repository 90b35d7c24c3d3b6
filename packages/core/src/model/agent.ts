/**
 * The canonical agent model (DESIGN.md §2).
 *
 * Every format Agentry reads maps onto `Agent`, and every format it writes is emitted from it. A field lives here
 * when at least one format can say it; what a target format cannot carry is named by that codec's loss report.
 *
 * Conventions:
 * - Optional fields are absent, never `undefined`-valued, so that structural comparison (round trips) is exact.
 * - Schemas are JSON Schema 2020-12 documents. AWP's named types survive as annotations (`x-awp-type`,
 *   `x-awp-entity`) that validators ignore.
 * - Nothing in an `Agent` is trusted: names and descriptions are text from the publisher (WoA §8.2).
 */

/** A JSON value, as parsed from a document. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/** A JSON Schema 2020-12 document (an object, or a boolean schema). */
export type JsonSchema = JsonObject | boolean;

/** The formats Agentry reads and writes. These are the names the CLI's `--format` and `--to` accept. */
export const FORMAT_NAMES = ['woa', 'awp', 'a2a', 'agent-json', 'agents-json', 'td', 'aidip', 'mcp'] as const;
export type FormatName = (typeof FORMAT_NAMES)[number];

export interface Agent {
  /**
   * The agent's identifier within its source: the WoA `id`, the AIDIP `id`, an A2A skill-less card's slugged name,
   * an AWP surface's `domain`, a TD's `id`, an MCP server's `name`. Unique within one document.
   */
  id: string;
  /** Short human-readable name. */
  name: string;
  /** What the agent does, in plain language. Untrusted text. */
  description: string;
  version?: string;
  publisher?: Publisher;
  /** Where the agent lives: an `agent://` URI when known, otherwise the URL of its primary interface. */
  url?: string;
  documentationUrl?: string;
  iconUrl?: string;
  /** Free-form search tags (AIDIP `tags`, A2A skill tags gathered at agent level stay on the operations). */
  tags?: string[];
  /** Capability identifiers (WoA `capabilities`, AIDIP `capabilities`). No controlled vocabulary. */
  capabilities?: string[];
  /** Natural languages the agent handles (BCP 47 tags, AIDIP `supported_languages`). */
  languages?: string[];
  status?: AgentStatus;
  operations: Operation[];
  bindings: Binding[];
  auth?: AuthContract;
  /** AWP surface-level data and agent://-style interaction metadata. */
  surface?: Surface;
  /** Versions of this agent served elsewhere (agent:// `supportedVersions`: version → path or URL). */
  supportedVersions?: Record<string, string>;
  /** Default media types accepted and produced (A2A `defaultInputModes`/`defaultOutputModes`). */
  inputModes?: string[];
  outputModes?: string[];
  provenance?: Provenance;
  /**
   * Fields the canonical model has no place for, kept under the namespace of the format they came from
   * (`woa`, `awp`, `a2a`, `agent-json`, `td`, `aidip`, `mcp`), never dropped silently.
   */
  extensions?: Extensions;
}

export type Extensions = Record<string, JsonObject>;

export interface Publisher {
  name: string;
  url?: string;
}

export interface AgentStatus {
  /** Lifecycle state: `active`, `inactive`, `deprecated` (AIDIP), or another publisher-defined word. */
  state?: string;
  /** AWP `agent_status.operational`. */
  operational?: boolean;
  /** Operations currently impaired (AWP `degraded_actions`). */
  degradedOperations?: string[];
  /** Where real-time status can be read (AWP `status_endpoint`). */
  statusEndpoint?: string;
}

export type Sensitivity = 'standard' | 'destructive' | 'irreversible';

export interface Operation {
  /** Token naming the operation (WoA operation name, AWP action id, A2A skill id, TD action key, MCP tool name). */
  name: string;
  /** Human-readable title, where the format separates it from the name (A2A skill `name`, TD `title`). */
  title?: string;
  description?: string;
  version?: string;
  input?: JsonSchema;
  output?: JsonSchema;
  examples?: OperationExample[];
  tags?: string[];
  /** Media types accepted and produced (A2A skill modes, agent:// `contentTypes`). */
  inputModes?: string[];
  outputModes?: string[];

  // Behavioural metadata (agent:// §7).
  /** Identical inputs give identical outputs (`isDeterministic`). */
  deterministic?: boolean;
  /** Typical variability of outputs (`expectedOutputVariability`): `low`, `medium`, `high`. */
  outputVariability?: string;
  /** Expected response time class (`responseLatency`): `low`, `medium`, `high`. */
  latency?: string;
  /** Whether the agent needs context beyond the input (`requiresContext`). */
  requiresContext?: boolean;
  /** Whether the agent remembers interactions (`memoryEnabled`). */
  memoryEnabled?: boolean;
  /** Whether responses carry a confidence estimate (`confidenceEstimation`). */
  confidenceEstimation?: boolean;

  // Effects and governance (AWP §9, WoT ADR-0015 fields 6–14).
  /** Repeating the call has no further effect (TD `idempotent`, ADR field 10). */
  idempotent?: boolean;
  /** The call has no side effects (TD `safe`, MCP `readOnlyHint`). */
  safe?: boolean;
  /** Structured description of side effects (ADR field 7, `trails:sideEffect`). */
  sideEffects?: JsonValue;
  /** AWP `sensitivity`: consequences of running the operation. */
  sensitivity?: Sensitivity;
  /** The caller should obtain a person's confirmation first (AWP `requires_human_confirmation`). */
  requiresConfirmation?: boolean;
  /** The effect can be undone (AWP `reversible`). */
  reversible?: boolean;
  /** `sync` (default) or `async` (deferred; poll `pollEndpoint` or a task URL). */
  executionModel?: 'sync' | 'async';
  pollEndpoint?: string;
  /** The operation can stream partial results. */
  streaming?: boolean;
  /** AWP rate limit string, e.g. `30/minute`. */
  rateLimit?: string;
  idempotency?: IdempotencyContract;
  /** ADR field 8 (`trails:costEstimate`), e.g. `{ tokensEstimate, usdEstimate }`. */
  costEstimate?: JsonValue;
  /** ADR field 6 (`trails:precondition`): structured references that must hold before the call. */
  preconditions?: JsonValue[];
  /** Operations that must run first (AWP `dependencies[name]`). */
  dependsOn?: string[];
  /** ADR field 9 (`trails:policyRequired`): policy identifiers the caller must satisfy. */
  policiesRequired?: string[];
  /** ADR field 13 (`trails:assurance`), e.g. `L1`, `L2`, `L3`. */
  assurance?: string;
  /** ADR field 12 (`trails:reasoningMode`): `none`, `rdfs`, `owl-rl`. */
  reasoningMode?: string;
  /** ADR field 14 (`trails:versionStatus`): `active`, `deprecated`, `retired`. */
  versionStatus?: string;
  /** ADR field 11 (`prov:wasRevisionOf`): the capability this one revises. */
  revisionOf?: string;
  /** Whether calling requires authentication (AWP `auth_required`, `auth.required_for`). */
  authRequired?: boolean;
  /** Security requirements of this operation, overriding the agent's (same shape as `AuthContract.security`). */
  security?: SecurityRequirement[];
  extensions?: Extensions;
}

export interface OperationExample {
  /** A plain-language example request (A2A skill examples are text). */
  text?: string;
  input?: JsonValue;
  output?: JsonValue;
}

export interface IdempotencyContract {
  supported: boolean;
  /** Input field carrying the idempotency key (AWP `key_field`). */
  keyField?: string;
  /** HTTP header carrying the key. */
  header?: string;
  /** How long a key is remembered, e.g. `24h`. */
  window?: string;
}

/** How to call an agent. An agent may have several; `operations` restricts a binding to some operations. */
export type Binding =
  | WoaRestBinding
  | HttpBinding
  | McpBinding
  | A2aBinding
  | WebSocketBinding
  | UnixBinding
  | LocalBinding
  | OtherBinding;

interface BindingCommon {
  /** Names of the operations this binding serves; absent means all of them. */
  operations?: string[];
  /** Security requirements specific to this binding. */
  security?: SecurityRequirement[];
  /**
   * Fields of the source's transport entry the canonical binding has no place for (a WoA transport config's extra
   * keys, an A2A interface's unknown fields, a TD form's `response`), under the source format's namespace.
   */
  extensions?: Extensions;
}

/** WoA `rest`: POST the envelope `{agent, operation, input}` to `base + invoke_path` (`{agent_id}` replaced). */
export interface WoaRestBinding extends BindingCommon {
  kind: 'woa-rest';
  base: string;
  invokePath: string;
  /** The key of this transport in the WoA document's `transports` object. */
  transportName?: string;
}

/** A plain HTTP endpoint taking the raw input (AWP action, AIDIP endpoint, TD form, agent:// HTTPS fallback). */
export interface HttpBinding extends BindingCommon {
  kind: 'http';
  url: string;
  method: HttpMethod;
  /** Media type of the request body (TD form `contentType`). */
  contentType?: string;
  /** TD form operation types (`invokeaction`, ...), kept for faithful re-emission. */
  op?: string[];
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';

export interface McpBinding extends BindingCommon {
  kind: 'mcp';
  /** A URL for remote servers, or an identifier (WoA `server`). */
  server: string;
  /** `streamable-http`, `sse` or `stdio`. */
  transport?: string;
  /** WoA `tool_namespace`. */
  toolNamespace?: string;
  /** WoA `tool_field`: the envelope field whose value is the tool name. */
  toolField?: string;
  /** For stdio servers published as packages (MCP Registry `server.json`). */
  package?: McpPackage;
  /** The key of this transport in a WoA document's `transports` object. */
  transportName?: string;
}

export interface McpPackage {
  registryType: string;
  identifier: string;
  version?: string;
  registryBaseUrl?: string;
  runtimeHint?: string;
  environmentVariables?: JsonObject[];
  packageArguments?: JsonObject[];
  runtimeArguments?: JsonObject[];
}

export interface A2aBinding extends BindingCommon {
  kind: 'a2a';
  url: string;
  /** `JSONRPC`, `GRPC` or `HTTP+JSON`. */
  protocolBinding: string;
  protocolVersion?: string;
  tenant?: string;
}

export interface WebSocketBinding extends BindingCommon {
  kind: 'wss';
  url: string;
}

export interface UnixBinding extends BindingCommon {
  kind: 'unix';
  socketPath: string;
  /** HTTP path to request over the socket. */
  path?: string;
}

export interface LocalBinding extends BindingCommon {
  kind: 'local';
  /** Name under which the agent is registered in-process or in the local socket directory. */
  name: string;
}

/** A transport Agentry does not speak (a WoA private transport, `agent+matrix`), kept verbatim. */
export interface OtherBinding extends BindingCommon {
  kind: 'other';
  protocol: string;
  config: JsonObject;
}

/**
 * The authentication a caller needs. `schemes` are named; `security` lists alternatives, each naming the schemes
 * (and OAuth scopes) that together satisfy it — the shape of OpenAPI and A2A security requirements.
 */
export interface AuthContract {
  schemes?: SecurityScheme[];
  security?: SecurityRequirement[];
  /** Plain-language instructions for obtaining credentials (AIDIP `authentication.instructions`). */
  instructions?: string;
  /** Operations that require or accept authentication (AWP `auth.required_for`, `optional_for`). */
  requiredFor?: string[];
  optionalFor?: string[];
  /** AWP `auth.token_expiry`, e.g. `24h`. */
  tokenExpiry?: string;
  /** AWP `auth.refresh_endpoint`. */
  refreshEndpoint?: string;
}

/** Scheme id → scopes required from it. */
export type SecurityRequirement = Record<string, string[]>;

export type SecuritySchemeType =
  | 'none'
  | 'apiKey'
  | 'bearer'
  | 'basic'
  | 'oauth2'
  | 'openIdConnect'
  | 'mtls'
  | 'other';

export interface SecurityScheme {
  id: string;
  type: SecuritySchemeType;
  description?: string;
  /** For `apiKey`: where the key goes and under what name. */
  in?: 'header' | 'query' | 'cookie';
  name?: string;
  /** For `bearer`: token format, e.g. `JWT`. */
  bearerFormat?: string;
  /** For `oauth2`: endpoints and the scopes the scheme offers. */
  authorizationUrl?: string;
  tokenUrl?: string;
  refreshUrl?: string;
  scopes?: Record<string, string>;
  /** For `openIdConnect`. */
  openIdConnectUrl?: string;
  /** For `other`: the source's own scheme name (WoA `authz.scheme`, TD scheme). */
  scheme?: string;
  extensions?: Extensions;
}

/** Surface-level data (AWP) and interaction metadata (agent://). */
export interface Surface {
  /** AWP `domain`. */
  domain?: string;
  /** AWP `intent`: what the surface is for. */
  intent?: string;
  /** Named data models (AWP `entities`) as JSON Schemas. */
  entities?: Record<string, JsonSchema>;
  /** Error codes with machine-actionable recovery (AWP `errors`). */
  errors?: Record<string, ErrorContract>;
  /** Free-form planning guidance (AWP `agent_hints`). */
  hints?: JsonObject;
  flags?: SurfaceFlags;
  /** agent:// `interactionModel`, `orchestration`, `envelopeSchemas`. */
  interactionModel?: string;
  orchestration?: string;
  envelopeSchemas?: string[];
}

export interface ErrorContract {
  recovery: string;
  /** Further fields of the error entry, kept verbatim. */
  extra?: JsonObject;
}

export interface SurfaceFlags {
  streaming?: boolean;
  batchActions?: boolean;
  webhooks?: boolean;
  /** `cursor`, `offset`, `page` or `none`. */
  pagination?: string;
  idempotency?: boolean;
  pushNotifications?: boolean;
  stateTransitionHistory?: boolean;
  /** A2A v1.0 `extendedAgentCard` / v0.3 `supportsAuthenticatedExtendedCard`. */
  extendedCard?: boolean;
}

export interface Provenance {
  sourceFormat: FormatName;
  sourceUrl?: string;
  fetchedAt?: string;
  etag?: string;
  lastModified?: string;
  /** `native` (published by the agent's origin) or `synthetic` (generated by an intermediary). */
  origin: 'native' | 'synthetic';
  /** For synthetic descriptions (AWP §14). */
  generatedBy?: string;
  confidence?: number;
  lastVerified?: string;
  signature?: SignatureCheck;
}

export interface SignatureCheck {
  /** `true` verified, `false` failed, absent when signatures were present but not checked. */
  verified?: boolean;
  detail?: string;
}
