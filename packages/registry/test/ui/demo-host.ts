/**
 * The demo registry's report builder: a real `@agentry/host` on loopback HTTPS whose one operation runs as a
 * deferred task (`executionModel: 'async'`: the host answers 202 with the task's Location, and the task is polled
 * until it completes). Each report waits until the test lets one finish (`finishReport`, which also counts when
 * called before the report has started), so the browser can be seen showing the task while it works.
 */
import type { Server } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createHost, defineAgent } from '@agentry/host';
import { serveNode } from '@agentry/host/node';
import { tlsMaterial } from '../gateway/agent-server.js';

export interface ReportHost {
  /** The host's base URL, `https://127.0.0.1:<port>`. */
  url: string;
  /** The CA that signed the host's certificate (the registry's fetcher must trust it). */
  ca: string;
  /** Lets the report being built (or the next one) finish. */
  finishReport(): void;
  close(): Promise<void>;
}

export async function startReportHost(): Promise<ReportHost> {
  const { ca, key, cert } = await tlsMaterial();
  // Node's https.Server serves requests as an http.Server does (serveNode takes either).
  const server = createServer({ key, cert }) as unknown as Server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let finishes = 0;
  let wake = () => {};
  const reports = defineAgent({
    id: 'reports',
    name: 'Report Builder',
    description: 'Builds the sales report of a quarter; it takes a while, so it runs as a deferred task.',
    version: '1.0.0',
    tags: ['reports'],
    operations: {
      build: {
        description: 'Build the sales report of a quarter (a deferred task: polled until it completes).',
        executionModel: 'async',
        input: {
          type: 'object',
          properties: {
            quarter: {
              type: 'string',
              enum: ['Q1', 'Q2', 'Q3', 'Q4'],
              description: 'The quarter to report on.',
            },
          },
          required: ['quarter'],
        },
        output: {
          type: 'object',
          properties: { report: { type: 'string' }, pages: { type: 'integer' } },
          required: ['report', 'pages'],
        },
        handler: async (input: { quarter: string }, context) => {
          const { signal } = context;
          while (finishes === 0) {
            signal.throwIfAborted();
            await new Promise<void>((resolve) => {
              wake = resolve;
              signal.addEventListener('abort', () => resolve(), { once: true });
            });
          }
          finishes--;
          return { report: `Sales report for ${input.quarter}`, pages: 12 };
        },
      },
    },
  });
  // WoA REST only: the registry then calls it as the deferred task it is (202, Location, polls).
  const host = createHost({ agents: [reports], baseUrl: url, mcp: false, a2a: false });
  const served = await serveNode(host, { server });
  return {
    url,
    ca,
    finishReport() {
      finishes++;
      wake();
    },
    async close() {
      await served.close();
      await host.close();
    },
  };
}
