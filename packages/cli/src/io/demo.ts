/**
 * The demo behind `agentry serve --demo` (and `npm start`): the repository's example agents (examples/<name>/agent.ts),
 * each hosted on its own loopback port as `agentry host` would, then registered with the registry as their WoT TD
 * cards describe them (bindings, auth, operations) with the facets no card carries — tags, capabilities, languages,
 * publisher — from their definitions, so that the demo's search filters and the page's work on them.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Agent, readDocument } from '@agentry/core';
import { type AgentDefinition, consoleLogger, createHost, type HostOptions } from '@agentry/host';
import { serveNode } from '@agentry/host/node';
import { loadAgents, type Registry } from '@agentry/registry';
import { agentsOf } from './agents.js';
import { UsageError } from './errors.js';
import { loadModule } from './module.js';
import { listeningServer } from './server.js';

export interface DemoHost {
  url: string;
  agents: string[];
  /** The agents as defined, by id: what their cards leave out is taken from here. */
  definitions: ReadonlyMap<string, AgentDefinition>;
  close(): Promise<void>;
}

/** The publisher the demo agents are registered under. */
export const DEMO_PUBLISHER = 'agentry-demo';

export interface DemoAgents {
  hosts: DemoHost[];
  /** Registers every demo agent (re-registering updates it); returns the registry ids. */
  register(registry: Registry): Promise<Array<{ id: string; hostUrl: string }>>;
  close(): Promise<void>;
}

/** packages/cli/dist/io → the repository's examples folder. */
const EXAMPLES = fileURLToPath(new URL('../../../../examples/', import.meta.url));

export async function startDemoAgents(folder = EXAMPLES): Promise<DemoAgents> {
  if (!existsSync(folder)) {
    throw new UsageError(`--demo needs the repository's examples folder (looked in ${folder})`);
  }
  const modules = readdirSync(folder, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(folder, entry.name, 'agent.ts')))
    .map((entry) => join(folder, entry.name, 'agent.ts'))
    .sort();
  const hosts: DemoHost[] = [];
  for (const path of modules) {
    const module = await loadModule(path);
    const unique = agentsOf(module);
    const hostOptions = (module['hostOptions'] ?? {}) as Partial<HostOptions>;
    const { server, url: baseUrl } = await listeningServer(0, '127.0.0.1');
    const host = createHost({ logger: quietLogger, ...hostOptions, agents: unique, baseUrl });
    const served = await serveNode(host, { server });
    hosts.push({
      url: baseUrl,
      agents: unique.map((agent) => agent.id),
      definitions: new Map(unique.map((agent) => [agent.id, agent])),
      close: () => served.close(),
    });
  }

  return {
    hosts,
    async register(registry) {
      const registered: Array<{ id: string; hostUrl: string }> = [];
      for (const host of hosts) {
        const agents: Agent[] = [];
        for (const agentId of host.agents) agents.push(await describedAgent(host, agentId));
        // Written as registrations by the demo's publisher would be (AIDIP, the one format that carries every
        // facet, refuses the demo's plain-HTTP endpoints), then indexed for search.
        const records = await loadAgents(registry, agents, { owner: DEMO_PUBLISHER, sourceFormat: 'td' });
        for (const record of records) registered.push({ id: record.id, hostUrl: host.url });
      }
      return registered;
    },
    async close() {
      await Promise.all(hosts.map((host) => host.close()));
    },
  };
}

/**
 * The agent as its TD card describes it (its bindings on the demo host, its auth, its operations), with the facets
 * a TD does not carry taken from its definition.
 */
async function describedAgent(host: DemoHost, agentId: string): Promise<Agent> {
  const cardUrl = `${host.url}/agents/${encodeURIComponent(agentId)}/card`;
  const read = readDocument(await (await fetch(cardUrl)).json(), { format: 'td', sourceUrl: cardUrl });
  const [agent] = read.agents;
  if (agent === undefined) throw new Error(`the demo agent ${agentId}'s card could not be read`);
  const defined = host.definitions.get(agentId)?.agent;
  for (const facet of ['tags', 'capabilities', 'languages', 'publisher'] as const) {
    const value = defined?.[facet];
    if (agent[facet] === undefined && value !== undefined) Object.assign(agent, { [facet]: value });
  }
  return agent;
}

/** Demo hosts listen on plain-HTTP loopback, which WoA warns about on every start: only errors are worth showing. */
const quietLogger = { error: consoleLogger.error, warn() {} };
