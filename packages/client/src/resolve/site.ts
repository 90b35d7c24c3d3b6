/**
 * The documents an origin may publish, asked for in the documented order (docs/resolution.md) until one names the
 * agent: the agents.json map, the agent's own agent.json, the A2A card, the legacy well-known agent.json, the WoA
 * document, and the AWP surface at the root. Each is read by its keys, whatever its path suggests.
 */
import type { ResolveContext } from './context.js';
import { type Found, findInDescription } from './describe.js';
import type { ResolveStep } from './types.js';

export interface Site {
  /** `https://host[:port]`. */
  origin: string;
  /** Names the target gives the agent (decoded), most telling first. */
  names: string[];
  /** The agent's base path (percent-encoded, no trailing slash), whose `agent.json` is asked for; none for origins. */
  agentPath?: string;
}

interface SiteStep {
  step: ResolveStep;
  path: string;
}

export function siteSteps(site: Site): SiteStep[] {
  const steps: SiteStep[] = [{ step: 'agents-json', path: '/.well-known/agents.json' }];
  if (site.agentPath !== undefined) steps.push({ step: 'agent-json', path: `${site.agentPath}/agent.json` });
  steps.push(
    { step: 'agent-card', path: '/.well-known/agent-card.json' },
    { step: 'well-known-agent', path: '/.well-known/agent.json' },
    { step: 'woa', path: '/.well-known/woa.json' },
    { step: 'root-agent-json', path: '/agent.json' },
  );
  return steps;
}

/** Asks for each document in turn; stops at the first that names the agent (or describes only one). */
export async function findOnSite(ctx: ResolveContext, site: Site): Promise<Found | undefined> {
  for (const { step, path } of siteSteps(site)) {
    const found = await findInDescription(ctx, site.origin + path, step, site.names, 'documents', {
      speculative: true,
    });
    if (found !== undefined) return found;
  }
  return undefined;
}
