/**
 * Builds the document's `transports` object from the agents' bindings. A WoA document holds one configuration per
 * transport name, and the name is the transport's type (`rest`, `mcp`, or a private reverse-DNS name), so bindings
 * with identical configurations share an entry and a binding whose name is already taken by a different
 * configuration cannot be expressed in the same document.
 */
import type { IssueCollector } from '../../issues.js';
import { isObject, jsonEqual } from '../../json/values.js';
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
  TRANSPORT_EXTRAS_KEY,
} from './fields.js';
import { mcpBinding, otherBinding, restBinding, type WoaBinding } from './transports.js';

interface TransportEntry {
  /** The configuration the draft defines (or a private transport's whole configuration). */
  core: JsonObject;
  /** What parsing the entry gives back. */
  binding: WoaBinding;
  /** Unknown configuration fields restored from an agent's `extensions.woa["@transports"]`. */
  extras?: JsonObject;
}

interface Candidate {
  name: string;
  core: JsonObject;
  binding: WoaBinding;
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
      const taken = this.entries.get(candidate.name);
      if (taken !== undefined && !jsonEqual(taken.core, candidate.core)) {
        const message = `A WoA document holds one "${candidate.name}" transport, already configured as ${JSON.stringify(taken.core)}; this ${binding.kind} binding (${JSON.stringify(candidate.core)}) was left out. Publish the agent in a separate WoA document to keep it.`;
        lose(message);
        issues.warning(pointer, 'woa.emit.binding-dropped', message);
        continue;
      }
      if (taken === undefined)
        this.entries.set(candidate.name, { core: candidate.core, binding: candidate.binding });
      if (!names.includes(candidate.name)) names.push(candidate.name);
      if (!jsonEqual(binding, candidate.binding)) lose(changeMessage(binding, candidate));
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

  /** Unknown configuration fields an agent kept from a parsed document; the first agent to name them wins. */
  adoptExtras(agent: Agent, transports: AgentTransports): void {
    const kept = agent.extensions?.['woa']?.[TRANSPORT_EXTRAS_KEY];
    if (!isObject(kept)) return;
    for (const name of transports.names) {
      const entry = this.entries.get(name);
      const extras = kept[name];
      if (entry === undefined || entry.extras !== undefined || !isObject(extras)) continue;
      const defined = name === REST_TRANSPORT ? REST_FIELDS : name === MCP_TRANSPORT ? MCP_FIELDS : undefined;
      // A private transport's configuration is kept whole, so it never has extras.
      if (defined === undefined) continue;
      const filtered: JsonObject = {};
      for (const [key, value] of Object.entries(extras)) if (!defined.has(key)) filtered[key] = value;
      if (Object.keys(filtered).length > 0) entry.extras = filtered;
    }
  }

  /** What parsing gives an agent listing `names` under `extensions.woa["@transports"]`. */
  extrasFor(names: readonly string[]): JsonObject | undefined {
    let out: JsonObject | undefined;
    for (const name of names) {
      const extras = this.entries.get(name)?.extras;
      if (extras === undefined) continue;
      out ??= {};
      out[name] = extras;
    }
    return out;
  }

  toDocument(): JsonObject {
    const out: JsonObject = {};
    for (const [name, entry] of this.entries) out[name] = { ...entry.core, ...entry.extras };
    return out;
  }
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
      return {
        name: REST_TRANSPORT,
        core: { base: binding.base, invoke_path: binding.invokePath },
        binding: restBinding(binding.base, binding.invokePath),
      };
    }
    case 'mcp': {
      if (binding.server.trim() === '') return 'The MCP binding names no server; it was left out.';
      const toolNamespace = binding.toolNamespace ?? DEFAULT_TOOL_NAMESPACE;
      const toolField = binding.toolField?.trim() ? binding.toolField : DEFAULT_TOOL_FIELD;
      return {
        name: MCP_TRANSPORT,
        core: { server: binding.server, tool_namespace: toolNamespace, tool_field: toolField },
        binding: mcpBinding(binding.server, toolNamespace, toolField),
      };
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
function changeMessage(before: Binding, candidate: Candidate): string {
  const a = before as unknown as Record<string, unknown>;
  const b = candidate.binding as unknown as Record<string, unknown>;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  const changed = [...keys].filter((key) => !jsonEqual(a[key], b[key]));
  return `The WoA "${candidate.name}" transport cannot carry this ${before.kind} binding as it is: ${changed.join(', ')} will read back differently (WoA transports serve every operation and carry no security requirements).`;
}
