/**
 * The demo behind `agentry serve --demo` (and `npm start`): the repository's example agents (examples/<name>/agent.ts),
 * each hosted on its own loopback port as `agentry host` would, then registered with the registry from their
 * WoT TD cards (the format that carries the most of the canonical model).
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { consoleLogger, createHost, type HostOptions, serveNode } from '@agentry/host';
import type { Registry } from '@agentry/registry';
import { agentsOf } from './agents.js';
import { UsageError } from './errors.js';
import { loadModule } from './module.js';
import { listeningServer } from './server.js';

export interface DemoHost {
  url: string;
  agents: string[];
  close(): Promise<void>;
}

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
    hosts.push({ url: baseUrl, agents: unique.map((agent) => agent.id), close: () => served.close() });
  }

  return {
    hosts,
    async register(registry) {
      const { token, info } = await registry.store.tokens.create(
        { role: 'publisher', publisher: 'agentry-demo' },
        'demo',
      );
      const registered: Array<{ id: string; hostUrl: string }> = [];
      try {
        for (const host of hosts) {
          for (const agentId of host.agents) {
            const card = await (await fetch(`${host.url}/agents/${agentId}/card`)).text();
            const response = await registry.fetch(
              new Request('http://registry.local/agents', {
                method: 'POST',
                headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
                body: card,
              }),
            );
            const body = (await response.json()) as { id?: string; detail?: string };
            if (!response.ok || body.id === undefined) {
              throw new Error(
                `registering the demo agent ${agentId} failed: ${body.detail ?? response.status}`,
              );
            }
            registered.push({ id: body.id, hostUrl: host.url });
          }
        }
      } finally {
        await registry.store.tokens.revoke(info.id, 'demo');
      }
      return registered;
    },
    async close() {
      await Promise.all(hosts.map((host) => host.close()));
    },
  };
}

/** Demo hosts listen on plain-HTTP loopback, which WoA warns about on every start: only errors are worth showing. */
const quietLogger = { error: consoleLogger.error, warn() {} };
