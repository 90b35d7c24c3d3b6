/**
 * Reading one description and finding the named agent in it. An agents.json map (whatever path it was served at:
 * detection goes by keys) is followed one level, to the descriptor of the entry the target names.
 */
import type { Agent, Binding } from '@agentry/core';
import type { ReadOptions, ResolveContext } from './context.js';
import { pickAgent, pickEntry } from './select.js';
import type { ResolutionSource, ResolveStep } from './types.js';

export interface Found {
  agent: Agent;
  source: ResolutionSource;
  /** How the agent was picked (see `Picked`). */
  by: 'name' | 'only' | 'endpoint';
  /** The step whose document described the agent. */
  step?: ResolveStep;
  /** The document the agent was read from (relative `supportedVersions` locations resolve against it). */
  documentUrl?: string;
  /** A binding the step supplied itself (a DID service endpoint, a WebFinger link, a static-map transport URI). */
  binding?: Binding;
}

export async function findInDescription(
  ctx: ResolveContext,
  url: string,
  step: ResolveStep,
  names: readonly string[],
  source: ResolutionSource,
  options: ReadOptions = {},
): Promise<Found | undefined> {
  const { read, finalUrl } = await ctx.readDescription(url, step, options);
  if (read?.format === undefined) return undefined;
  if (read.format !== 'agents-json') {
    const picked = pickAgent(read.agents, names);
    return picked === undefined
      ? undefined
      : { agent: picked.agent, by: picked.by, source, step, documentUrl: finalUrl };
  }
  const entry = pickEntry(read.agents, names);
  if (entry?.url === undefined) return undefined;
  const descriptor = await ctx.readDescription(entry.url, 'descriptor');
  if (descriptor.read?.format === undefined) return undefined;
  if (descriptor.read.format === 'agents-json') {
    ctx.issue(
      'warning',
      'resolve.agents-json.nested',
      `${entry.url}: the agents.json entry "${entry.id}" points to another agents.json map; entries must point to an agent's descriptor (agent:// §5.1).`,
    );
    return undefined;
  }
  // The entry was chosen by name, so the descriptor's only agent is the one named, whatever it calls itself.
  const picked = pickAgent(descriptor.read.agents, [entry.id, ...names]);
  if (picked === undefined) return undefined;
  return { agent: picked.agent, by: 'name', source, step: 'descriptor', documentUrl: descriptor.finalUrl };
}
