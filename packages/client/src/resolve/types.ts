/** What resolving an `agent://` URI, a URL or an origin produces. */
import type { Agent, AgentUri, Binding, FormatName, ValidationIssue } from '@agentry/core';
import type { SecureFetcher } from '../fetch/types.js';

/**
 * Why a document was asked for: the step of the resolution order (docs/resolution.md) that asked.
 * `descriptor` is a document another one pointed to (an agents.json entry, a DID service, a WebFinger link);
 * `version` is a versioned descriptor from `supportedVersions`; `document` is the URL the caller gave.
 */
export type ResolveStep =
  | 'static-map'
  | 'did-web'
  | 'agents-json'
  | 'agent-json'
  | 'agent-card'
  | 'well-known-agent'
  | 'woa'
  | 'root-agent-json'
  | 'webfinger'
  | 'descriptor'
  | 'version'
  | 'document';

/** One document the resolver asked for, in the order asked. */
export interface ResolvedDocument {
  url: string;
  /** The step that asked for it. */
  step?: ResolveStep;
  /** The URL the document was finally read from, when redirects led elsewhere. */
  finalUrl?: string;
  /** The format detected by the document's keys, when it was read. DID documents and JRDs have none. */
  format?: FormatName;
  /** HTTP status, or absent when the request failed (see `error`). */
  status?: number;
  /**
   * No request reached the origin for it: the fetcher's HTTP cache answered, or (`fromResolutionCache`) the whole
   * resolution was reused.
   */
  fromCache: boolean;
  /** A conditional request was answered 304 and the fetcher's cached response reused. */
  revalidated: boolean;
  /**
   * Set (with `fromCache: true`, `revalidated: false`) when the resolution came from a resolver's resolution cache
   * (`createResolver`): the document was neither fetched nor read again, it was still fresh from an earlier
   * resolution. The rest of the record (status, format, error) is that earlier resolution's.
   */
  fromResolutionCache?: boolean;
  /** Why the document could not be used (not found, refused, invalid JSON, unrecognised). */
  error?: string;
  /** Ids (as in `Resolution.agents`) of the agents the document described. */
  describes?: string[];
}

/**
 * How the agent (and binding) were found:
 * - `transport`: an explicit `agent+<transport>://` URI, no documents read;
 * - `static-map`, `did-web`, `documents` (the well-known documents), `webfinger`: the step that found the agent;
 * - `document`: the URL of a document the caller gave;
 * - `fallback`: nothing was found and the binding is agent:// §6.2's HTTPS fallback.
 */
export type ResolutionSource =
  | 'transport'
  | 'static-map'
  | 'did-web'
  | 'documents'
  | 'webfinger'
  | 'document'
  | 'fallback';

export interface Resolution {
  /** What was resolved, as given. */
  target: string;
  /** The target parsed, when it is an agent URI. */
  uri?: AgentUri;
  /**
   * Every agent the documents describe, each once: an agent described by several documents (its WoA entry and its
   * A2A card, an agents.json entry and its descriptor) is the fullest of those descriptions, and each of those
   * documents names it in `describes`. An agents.json entry whose descriptor was not read stays a stub.
   */
  agents: Agent[];
  /** The agent the target names (by path, id or the only one), when there is one. */
  agent?: Agent;
  /** The binding chosen to call `agent`, when it has one Agentry can use. */
  binding?: Binding;
  /**
   * Set when `binding` is an HTTP binding whose method follows the payload (agent:// §6.2): `binding.method` is
   * `POST`, and a caller with no input sends `GET` instead. Set for the §6.2 fallback, `agent+https://` URIs and
   * plain HTTPS endpoints from DID services and WebFinger links.
   */
  methodByPayload?: boolean;
  /** How the agent was found (absent when it was not). */
  source?: ResolutionSource;
  /** A segment of the URI's path that names one of `agent`'s operations (`agent://host/planner/gen-iti`). */
  operation?: string;
  /**
   * The version asked for (`options.version`, else the URI's `?version=`), as matched against the agent's
   * `supportedVersions` when it lists them. Invocation sends it as `X-Agent-Version`.
   */
  version?: string;
  documents: ResolvedDocument[];
  /** Problems met on the way: documents' validation issues (with the document URL in each message), steps that failed. */
  issues: ValidationIssue[];
}

export interface ResolveOptions {
  /** The fetcher every request goes through (default: a new `createSecureFetcher()`, closed afterwards). */
  fetcher?: SecureFetcher;
  /** Requested agent version (wins over `?version=` in the URI). */
  version?: string;
  /**
   * Static resolution map (agent:// §5.1): keys are agent URIs (`agent://example.com/planner`), authorities
   * (`example.com`, `did:web:example.com`) or origins; values are URLs of descriptions, or explicit
   * `agent+<transport>://` URIs. The most specific key wins. `loadStaticMap(path)` reads one from a JSON file.
   */
  staticMap?: Record<string, string>;
  /** Ask WebFinger (RFC 7033) after the well-known documents (default false). */
  webfinger?: boolean;
  /** Use agent:// §6.2's HTTPS fallback when nothing describes the agent (default true). */
  fallback?: boolean;
  /**
   * The scheme documents of agent:// authorities and did:web are fetched over (default `https`). `http` is for
   * local development only, and the fetcher must allow it too (`allowHttp`).
   */
  scheme?: 'https' | 'http';
  signal?: AbortSignal;
}
