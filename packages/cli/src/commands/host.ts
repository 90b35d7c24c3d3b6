/**
 * `agentry host <module>`: serves the agents a module defines (`defineAgent` exports) on one HTTP server, in
 * every format, with invocation over REST, MCP, A2A and WebSocket. The module may export `hostOptions` (auth, rate
 * limits, signing, …: anything `createHost` takes) beside its agents.
 */

import { trimTrailingSlash } from '@agentry/core';
import { createHost, type HostOptions, hostEntry, originEntry } from '@agentry/host';
import { serveNode } from '@agentry/host/node';
import type { Command } from 'commander';
import { agentsOf } from '../io/agents.js';
import { EXIT, UsageError } from '../io/errors.js';
import { loadModule } from '../io/module.js';
import { listeningServer, parsePort, untilInterrupted } from '../io/server.js';
import { TLS_OPTIONS, type TlsOptions, tlsFiles } from '../io/tls.js';

interface HostCommandOptions extends TlsOptions {
  port: string;
  hostname: string;
  baseUrl?: string;
  allowedHost?: string[];
  allowedOrigin?: string[];
  json?: boolean;
}

export function registerHost(program: Command): void {
  program
    .command('host')
    .description(
      'serve the agents a module defines, in every format, with invocation (REST, MCP, A2A, WebSocket)',
    )
    .argument(
      '<module>',
      'a .ts or .js module exporting agents made with defineAgent (and optionally hostOptions)',
    )
    .option('-p, --port <port>', 'port to listen on (0 picks a free one)', process.env.PORT ?? '8080')
    .option('--hostname <name>', 'address to listen on', '127.0.0.1')
    .option('--base-url <url>', 'public URL the documents link to (default: the address listened on)')
    .option(
      '--allowed-host <name>',
      "a name the host also answers to (Host), besides the base URL's (and localhost for a loopback one): agents.example.com or agents.example.com:8443, * for any; repeatable",
      repeated,
    )
    .option(
      '--allowed-origin <origin>',
      "an origin whose web pages may call the agents, besides the host's own: https://app.example.com, * for any; repeatable",
      repeated,
    )
    .option(...TLS_OPTIONS.cert)
    .option(...TLS_OPTIONS.key)
    .option('--json', 'print where it listens as one JSON line')
    .addHelpText(
      'after',
      '\nThe server runs until interrupted (Ctrl-C), then closes cleanly. Requests naming another host, and calls\nfrom web pages of other sites, are refused (403) as a guard against DNS rebinding: name the others with\n--allowed-host and --allowed-origin.\n\nExamples:\n  agentry host examples/summarizer/agent.ts --port 8080\n  agentry host ./agents.js --hostname 0.0.0.0 --base-url https://agents.example.com\n  agentry host ./agents.js --port 8443 --tls-cert cert.pem --tls-key key.pem --allowed-origin https://app.example.com',
    )
    .action(async (modulePath: string, options: HostCommandOptions) => {
      const port = parsePort(options.port);
      const tls = tlsFiles(options);
      const allowedHosts = listed(
        options.allowedHost,
        hostEntry,
        '--allowed-host',
        'agents.example.com or agents.example.com:8443',
      );
      const allowedOrigins = listed(
        options.allowedOrigin,
        originEntry,
        '--allowed-origin',
        'https://app.example.com',
      );
      const module = await loadModule(modulePath);
      const agents = agentsOf(module);
      if (agents.length === 0) {
        throw new UsageError(
          `${modulePath} exports no agents: export the result of defineAgent(...) (as default, or by name)`,
        );
      }
      const hostOptions = (module.hostOptions ?? {}) as Partial<HostOptions>;
      // The documents link to the base URL, which (with --port 0) is only known once the server listens.
      const { server, url: listening } = await listeningServer(port, options.hostname, tls);
      const baseUrl = trimTrailingSlash(options.baseUrl ?? listening);
      const host = createHost({
        webSocket: true,
        ...hostOptions,
        agents,
        baseUrl,
        // The flags add to what the module allows.
        allowedHosts: [...(hostOptions.allowedHosts ?? []), ...allowedHosts],
        allowedOrigins: [...(hostOptions.allowedOrigins ?? []), ...allowedOrigins],
      });
      const served = await serveNode(host, { server });
      // Listening for Ctrl-C before saying it is ready (see serve).
      const interrupted = untilInterrupted();
      if (options.json) {
        process.stdout.write(
          `${JSON.stringify({ url: served.url, baseUrl, agents: agents.map((a) => a.id) })}\n`,
        );
      } else {
        process.stdout.write(
          `agentry: hosting ${agents.map((agent) => agent.id).join(', ')} at ${served.url}\n`,
        );
        process.stdout.write(
          `  documents  ${baseUrl}/.well-known/woa.json, ${baseUrl}/agent.json, ${baseUrl}/.well-known/agent-card.json\n`,
        );
        const a2a = hostOptions.a2a ?? true;
        for (const agent of agents) {
          const endpoints = [
            `${baseUrl}/agents/${agent.id}/card (TD)`,
            `${baseUrl}/agents/${agent.id}/invoke`,
            ...(a2a ? [`${baseUrl}/agents/${agent.id}/a2a (A2A)`] : []),
          ];
          process.stdout.write(`  ${agent.id.padEnd(10)} ${endpoints.join(', ')}\n`);
        }
        process.stdout.write(`  mcp        ${baseUrl}/mcp\n`);
      }
      await interrupted;
      await served.close();
      process.exitCode = EXIT.ok;
    });
}

/** Commander's collector for a flag that may be given more than once. */
function repeated(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** The values of a repeatable flag, each checked with `read`; one it cannot read is a usage error naming the flag. */
function listed(
  values: readonly string[] | undefined,
  read: (text: string) => string | undefined,
  flag: string,
  example: string,
): string[] {
  return (values ?? []).map((value) => {
    const entry = read(value);
    if (entry === undefined)
      throw new UsageError(`${flag} "${value}" cannot be read: write it as ${example}`);
    return entry;
  });
}
