/**
 * Builds the document's `transports` object from the agents' bindings. A WoA document holds one configuration per
 * transport name, and the name is the transport's type (`rest`, `mcp`, or a private reverse-DNS name), so bindings
 * with identical configurations share an entry and a binding whose name is already taken by a different
 * configuration cannot be expressed in the same document. The unknown fields of a `rest` or `mcp` configuration
 * come from the `extensions.woa` of the binding that first claims the name.
 */
import type { IssueCollector } from '../../issues.js';
import { jsonEqual, setOwn } from '../../json/values.js';
import type { Agent, Binding, JsonObject } from '../../model/agent.js';
import type { Loss } from '../codec.js';
import { isAbsoluteUrl, trimTrailingSlash } from '../urls.js';
import {
  AGENTRY_INVOKE_PATH,
  DEFAULT_TOOL_FIELD,
  DEFAULT_TOOL_NAMESPACE,
  MCP_FIELDS,
  MCP_TRANSPORT,
  PRIVATE_TRANSPORT_NAME,
  REST_FIELDS,
  REST_TRANSPORT,
} from './fields.js';
import { mcpBinding, otherBinding, restBinding, type WoaBinding } from './transports.js';

interface TransportEntry {
  /** The configuration the draft defines (or a private transport's whole configuration). */
  core: JsonObject;
  /** What parsing the entry gives back. */
  binding: WoaBinding;
  /** Unknown configuration fields, from the `extensions.woa` of the binding that claimed the name. */
  extras?: JsonObject;
}

interface Candidate {
  name: string;
  core: JsonObject;
  /** What parsing gives back when this candidate's configuration is the one written. */
  binding: WoaBinding;
  extras?: JsonObject;
}

/** The transports one agent ends up listing. */
export interface AgentTransports {
  names: string[];
}

export class TransportTable {
  private readonly entries = new Map<string, TransportEntry>();

  /** Plans the transports of `agent` from its own bindings, reporting every binding that does not survive. */
  planAgent(agent: Agent, losses: Loss[], issues: IssueCollector, pointer: string): AgentTransports {
    const names: string[] = [];
    for (const binding of agent.bindings) {
      if (binding.kind !== 'woa-rest' && binding.kind !== 'mcp' && binding.kind !== 'other') continue;
      const lose = (message: string): void => {
        losses.push({ agent: agent.id, field: `bindings.${binding.kind}`, message });
      };
      const candidate = candidateFor(binding);
      if (typeof candidate === 'string') {
        lose(candidate);
        issues.warning(pointer, 'woa.emit.binding-dropped', candidate);
        continue;
      }
      let entry = this.entries.get(candidate.name);
      if (entry !== undefined && !jsonEqual(entry.core, candidate.core)) {
        const message = `A WoA document holds one "${candidate.name}" transport, already configured as ${JSON.stringify(entry.core)}; this ${binding.kind} binding (${JSON.stringify(candidate.core)}) was left out. Publish the agent in a separate WoA document to keep it.`;
        lose(message);
        issues.warning(pointer, 'woa.emit.binding-dropped', message);
        continue;
      }
      if (entry === undefined) {
        entry = { core: candidate.core, binding: candidate.binding };
        if (candidate.extras !== undefined) entry.extras = candidate.extras;
        this.entries.set(candidate.name, entry);
      }
      if (!names.includes(candidate.name)) names.push(candidate.name);
      // Reading back gives the configuration written, whose unknown fields may be another binding's.
      if (!jsonEqual(binding, entry.binding)) lose(changeMessage(binding, candidate.name, entry.binding));
    }
    return { names };
  }

  /**
   * For an agent with no binding WoA can express: the `rest` transport of an Agentry host at `baseUrl`. Returns an
   * error message when that is not possible.
   */
  planHostedRest(baseUrl: string | undefined): { name: string } | { error: string } {
    if (baseUrl === undefined) {
      return {
        error:
          'has no binding WoA can express (rest, mcp or a private reverse-DNS transport). Pass a base URL (the https origin that serves it) so that it is published with a "rest" transport at <base>/agents/{agent_id}/invoke.',
      };
    }
    if (!isAbsoluteUrl(baseUrl, ['https'])) {
      return {
        error: `needs a "rest" transport, but the base URL "${baseUrl}" is not an absolute https URL.`,
      };
    }
    const base = trimTrailingSlash(baseUrl);
    const core: JsonObject = { base, invoke_path: AGENTRY_INVOKE_PATH };
    const taken = this.entries.get(REST_TRANSPORT);
    if (taken !== undefined && !jsonEqual(taken.core, core)) {
      return {
        error: `would be served at ${base}${AGENTRY_INVOKE_PATH}, but the document's "rest" transport already points elsewhere (${JSON.stringify(taken.core)}). Publish it in a separate WoA document.`,
      };
    }
    if (taken === undefined) {
      this.entries.set(REST_TRANSPORT, { core, binding: restBinding(base, AGENTRY_INVOKE_PATH) });
    }
    return { name: REST_TRANSPORT };
  }

  toDocument(): JsonObject {
    const out: JsonObject = {};
    for (const [name, entry] of this.entries) setOwn(out, name, { ...entry.core, ...entry.extras });
    return out;
  }
}

/**
 * The unknown configuration fields a `rest` or `mcp` binding keeps in its `extensions.woa`, without those named
 * like the fields the draft defines (which the binding's own values write); undefined when there are none.
 */
function extrasOf(binding: Binding, defined: ReadonlySet<string>): JsonObject | undefined {
  const kept = binding.extensions?.['woa'];
  if (kept === undefined) return undefined;
  let out: JsonObject | undefined;
  for (const key of Object.keys(kept)) {
    if (defined.has(key) || kept[key] === undefined) continue;
    out ??= {};
    setOwn(out, key, kept[key]);
  }
  return out;
}

/** The transport a binding becomes, or why it cannot become one. */
function candidateFor(binding: Binding): Candidate | string {
  switch (binding.kind) {
    case 'woa-rest': {
      if (!isAbsoluteUrl(binding.base, ['https'])) {
        return `WoA REST transports need an absolute https base URL; "${binding.base}" was left out.`;
      }
      if (!binding.invokePath.startsWith('/')) {
        return `WoA REST transports need an invoke_path starting with "/"; "${binding.invokePath}" was left out.`;
      }
      const extras = extrasOf(binding, REST_FIELDS);
      const candidate: Candidate = {
        name: REST_TRANSPORT,
        core: { base: binding.base, invoke_path: binding.invokePath },
        binding: restBinding(binding.base, binding.invokePath, extras),
      };
      if (extras !== undefined) candidate.extras = extras;
      return candidate;
    }
    case 'mcp': {
      if (binding.server.trim() === '') return 'The MCP binding names no server; it was left out.';
      const toolNamespace = binding.toolNamespace ?? DEFAULT_TOOL_NAMESPACE;
      const toolField = binding.toolField?.trim() ? binding.toolField : DEFAULT_TOOL_FIELD;
      const extras = extrasOf(binding, MCP_FIELDS);
      const candidate: Candidate = {
        name: MCP_TRANSPORT,
        core: { server: binding.server, tool_namespace: toolNamespace, tool_field: toolField },
        binding: mcpBinding(binding.server, toolNamespace, toolField, extras),
      };
      if (extras !== undefined) candidate.extras = extras;
      return candidate;
    }
    case 'other': {
      const name = binding.protocol;
      if (name === REST_TRANSPORT || name === MCP_TRANSPORT || !PRIVATE_TRANSPORT_NAME.test(name)) {
        return `WoA private transports need a reverse-DNS name such as "com.example.${name}"; the "${name}" binding was left out.`;
      }
      return { name, core: binding.config, binding: otherBinding(name, binding.config) };
    }
    default:
      return `WoA cannot carry ${binding.kind} bindings.`;
  }
}

/** Says which fields of a canonical binding do not read back unchanged. */
function changeMessage(before: Binding, name: string, after: WoaBinding): string {
  const a = before as unknown as Record<string, unknown>;
  const b = after as unknown as Record<string, unknown>;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  const changed = [...keys].filter((key) => !jsonEqual(a[key], b[key]));
  const why = changed.includes('extensions')
    ? 'WoA transports serve every operation, carry no security requirements, and keep only the WoA fields of one configuration per transport name'
    : 'WoA transports serve every operation and carry no security requirements';
  return `The WoA "${name}" transport cannot carry this ${before.kind} binding as it is: ${changed.join(', ')} will read back differently (${why}).`;
}
