/**
 * The contract every format codec implements: parse (document → canonical agents + issues), emit (canonical agents
 * → document + loss report), and detection by the document's keys.
 */
import type { ValidationIssue } from '../issues.js';
import type { Agent, FormatName, JsonObject } from '../model/agent.js';
import type { CarrySpec } from './losses.js';

export interface ParseOptions {
  /** Where the document was read from; recorded in provenance and used to resolve relative URLs. */
  sourceUrl?: string;
  /** When the document was fetched (ISO 8601), for provenance. */
  fetchedAt?: string;
}

export interface ParseResult {
  format: FormatName;
  /** The agents the document describes; partial when the document has errors. */
  agents: Agent[];
  issues: ValidationIssue[];
  /** True when no issue is an error. */
  valid: boolean;
}

export interface EmitOptions {
  /**
   * The absolute base URL the document will be served under (e.g. `https://agents.example.com`). Formats whose
   * documents need absolute URLs (TD forms, A2A `url`, `agents.json` entries) derive them from it when the agent
   * carries none.
   */
  baseUrl?: string;
}

/** A canonical field that the target format cannot carry, so did not survive the conversion. */
export interface Loss {
  /** The agent's `id`. */
  agent: string;
  /** Canonical path, e.g. `version`, `surface.entities`, `operations[search].rateLimit`, `bindings.mcp`. */
  field: string;
  message: string;
}

export interface EmitResult {
  /** The document; for single-agent formats given several agents, a JSON array of documents. */
  document: JsonObject | JsonObject[];
  losses: Loss[];
  /** Problems that make the document incomplete (e.g. no base URL to make an absolute TD form `href`). */
  issues: ValidationIssue[];
}

export interface Codec {
  readonly format: FormatName;
  /** Human name, e.g. `Web of Agents (WoA) document`. */
  readonly title: string;
  /** Short spec name used in issues, e.g. `WoA`. */
  readonly specName: string;
  readonly mediaType: string;
  /** `one`: a document describes one agent; `many`: a document lists agents. */
  readonly cardinality: 'one' | 'many';
  /** The keys that identify this format, for error messages (e.g. `woa_version`). */
  readonly signature: string;
  /** The canonical fields this format can represent; everything else is named by the loss report. */
  readonly carries: CarrySpec;
  /** True when the document's keys say it is in this format. Never throws. */
  detect(document: unknown): boolean;
  /** Never throws: every problem becomes an issue. */
  parse(document: unknown, options?: ParseOptions): ParseResult;
  emit(agents: readonly Agent[], options?: EmitOptions): EmitResult;
}
