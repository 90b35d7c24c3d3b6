/** What `invoke` was asked to call, made into an agent (and the binding and version resolution chose). */
import type { Agent, Binding } from '@agentry/core';
import type { SecureFetcher } from '../fetch/types.js';
import type { Resolution, ResolveOptions } from '../resolve/types.js';
import { AgentNotFoundError } from './errors.js';
import type { InvokeOptions, InvokeTarget, ResolvedTarget } from './types.js';

export interface Target {
  agent: Agent;
  binding?: Binding;
  version?: string;
  /** The operation the target names (`agent://host/planner/gen-iti`, `agent+local://name/op`). */
  operation?: string;
  /** `binding` is an HTTP binding whose method follows the payload (agent:// §6.2): GET when there is no input. */
  methodByPayload?: boolean;
  /** Who is being called, as the delegation hop's `sub`: the URI asked for, else the agent's URL or id. */
  subject: string;
}

export type Resolver = (target: string, options: ResolveOptions) => Promise<Resolution>;

/** The target as an agent: asynchronous only when a string has to be resolved first. */
export function targetOf(
  target: InvokeTarget,
  options: InvokeOptions,
  fetcher: SecureFetcher,
  resolver: Resolver,
): Target | Promise<Target> {
  if (typeof target === 'string') {
    const resolveOptions: ResolveOptions = { ...options.resolve, fetcher };
    if (options.version !== undefined) resolveOptions.version = options.version;
    if (options.signal !== undefined) resolveOptions.signal = options.signal;
    return resolver(target, resolveOptions).then((resolution) => fromResolution(resolution, target));
  }
  if (isResolution(target)) return fromResolution(target, target.target);
  return fromResolved(target);
}

function isResolution(target: Resolution | ResolvedTarget): target is Resolution {
  return 'agents' in target && 'documents' in target;
}

function fromResolved(target: ResolvedTarget): Target {
  const out: Target = { agent: target.agent, subject: target.agent.url ?? target.agent.id };
  if (target.binding !== undefined) out.binding = target.binding;
  if (target.version !== undefined) out.version = target.version;
  return out;
}

function fromResolution(resolution: Resolution, subject: string): Target {
  const agent = resolution.agent ?? (resolution.agents.length === 1 ? resolution.agents[0] : undefined);
  if (agent === undefined) {
    throw new AgentNotFoundError(notFoundMessage(resolution), {
      detail: resolution.documents
        .map((doc) => `${doc.url}: ${doc.error ?? doc.format ?? doc.status ?? 'read'}`)
        .join('; '),
    });
  }
  const out: Target = { agent, subject };
  if (resolution.binding !== undefined) out.binding = resolution.binding;
  if (resolution.version !== undefined) out.version = resolution.version;
  if (resolution.operation !== undefined) out.operation = resolution.operation;
  if (resolution.methodByPayload === true) out.methodByPayload = true;
  return out;
}

function notFoundMessage(resolution: Resolution): string {
  if (resolution.agents.length > 1) {
    const ids = resolution.agents.map((agent) => agent.id).join(', ');
    return `${resolution.target} names none of the ${resolution.agents.length} agents its documents describe (${ids}); name one by its path or id.`;
  }
  const tried = resolution.documents.map((doc) => `${doc.url} (${doc.error ?? doc.status ?? 'no agent'})`);
  return `No agent found at ${resolution.target}${tried.length > 0 ? `; tried ${tried.join(', ')}` : ''}.`;
}
