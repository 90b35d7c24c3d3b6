/**
 * `agentry resolve <agent-uri|url|origin>`: the agents found, their operations, the chosen binding, and which
 * documents were read (and whether from cache).
 */
import { type Resolution, resolve } from '@agentry/client';
import type { Binding } from '@agentry/core';
import type { Command } from 'commander';
import { EXIT } from '../io/errors.js';
import { describeFailure } from '../io/failures.js';
import { addNetworkOptions, createFetcher, type NetworkOptions } from '../io/network.js';
import { colorEnabled, formatIssue, paint, plural } from '../io/report.js';
import { addTargetOptions, resolveOptions, type TargetOptions } from '../io/targets.js';

interface ResolveCommandOptions extends NetworkOptions, TargetOptions {
  json?: boolean;
}

export function registerResolve(program: Command): void {
  const command = program
    .command('resolve')
    .description(
      'resolve an agent:// URI, a document URL or an origin to agents and the binding to call them',
    )
    .argument(
      '<target>',
      'agent://host/path, agent+https://..., https://host/.well-known/woa.json, or https://host',
    )
    .option('--json', 'print the resolution as JSON');
  addTargetOptions(command);
  addNetworkOptions(command)
    .addHelpText(
      'after',
      '\nExit status: 0 an agent (or, for an origin, agents) found, 1 nothing found, 2 usage error.\n\nExamples:\n  agentry resolve agent://planner.example.com/gen-iti\n  agentry resolve https://api.example.com --json\n  agentry resolve agent://localhost:8080/summarizer --scheme http --allow-http --allow-private-network',
    )
    .action(async (target: string, options: ResolveCommandOptions) => {
      const fetcher = createFetcher(options);
      try {
        const resolution = await resolve(target, { ...(await resolveOptions(options)), fetcher });
        if (options.json) process.stdout.write(`${JSON.stringify(resolution, null, 2)}\n`);
        else printResolution(resolution);
        process.exitCode = resolution.agents.length > 0 ? EXIT.ok : EXIT.invalid;
      } catch (error) {
        const { message, exitCode } = describeFailure(error);
        process.stderr.write(`agentry: ${message}\n`);
        process.exitCode = exitCode;
      } finally {
        await fetcher.close();
      }
    });
}

export function describeBinding(binding: Binding): string {
  switch (binding.kind) {
    case 'woa-rest':
      return `WoA REST envelope → POST ${binding.base}${binding.invokePath}`;
    case 'http':
      return `HTTP ${binding.method} ${binding.url}`;
    case 'mcp':
      return `MCP ${binding.transport ?? ''} ${binding.server}`.replace('  ', ' ');
    case 'a2a':
      return `A2A ${binding.protocolBinding} ${binding.url}`;
    case 'wss':
      return `WebSocket (NDJSON) ${binding.url}`;
    case 'unix':
      return `HTTP over unix socket ${binding.socketPath}${binding.path ?? ''}`;
    case 'local':
      return `local agent "${binding.name}"`;
    case 'other':
      return `${binding.protocol} (not supported by Agentry)`;
  }
}

function printResolution(resolution: Resolution): void {
  const color = colorEnabled(process.stdout);
  const out = (line = '') => process.stdout.write(`${line}\n`);
  out(`${resolution.target}: ${plural(resolution.agents.length, 'agent')} found`);
  if (resolution.agent) {
    const agent = resolution.agent;
    out(
      `  agent     ${paint(color, 'bold', agent.id)} — ${agent.name}${agent.version ? ` ${agent.version}` : ''}`,
    );
    if (resolution.binding) out(`  binding   ${describeBinding(resolution.binding)}`);
    if (resolution.operation) out(`  operation ${resolution.operation}`);
    if (resolution.version) out(`  version   ${resolution.version}`);
  }
  for (const agent of resolution.agents) {
    out('');
    out(`  ${paint(color, 'bold', agent.id)}: ${agent.description}`);
    for (const op of agent.operations) {
      out(`    - ${op.name}${op.description ? `: ${op.description}` : ''}`);
    }
  }
  out('');
  out('  documents read:');
  for (const doc of resolution.documents) {
    const status = doc.status === undefined ? 'ERR' : String(doc.status);
    const cache = doc.fromCache ? ' (cache)' : doc.revalidated ? ' (revalidated, 304)' : '';
    const detail = doc.format ? ` ${doc.format}` : doc.error ? ` — ${doc.error}` : '';
    out(`    ${status.padEnd(4)} ${doc.url}${detail}${cache}`);
  }
  for (const issue of resolution.issues)
    process.stderr.write(`${formatIssue(issue, colorEnabled(process.stderr))}\n`);
}
