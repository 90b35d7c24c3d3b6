/**
 * `agentry register <file|url>`: sends an agent description, in any format Agentry reads, to a registry. The
 * registry normalises it, scans its text, indexes it, and answers with the stored metadata and the agent's id.
 */

import { RegistryError } from '@agentry/client';
import { parseJsonText } from '@agentry/core';
import type { Command } from 'commander';
import { EXIT, UsageError } from '../io/errors.js';
import { describeFailure } from '../io/failures.js';
import { readInput } from '../io/input.js';
import { addNetworkOptions, createFetcher, type NetworkOptions } from '../io/network.js';
import {
  addRegistryOptions,
  listOption,
  type RegistryOptions,
  registryClientFor,
  registryFailureMessage,
} from '../io/registry-client.js';

interface RegisterCommandOptions extends RegistryOptions, NetworkOptions {
  agent?: string;
  all?: boolean;
  groups?: string;
  json?: boolean;
}

export function registerRegister(program: Command): void {
  const command = program
    .command('register')
    .description('register an agent description (any format) with a registry')
    .argument('<source>', 'a file, - for standard input, or an https:// URL of the description')
    .option('--agent <id>', 'for a document describing several agents: the one to register')
    .option('--all', 'for a document describing several agents: register every one')
    .option(
      '--groups <list>',
      'restrict the agent to callers in these groups (comma-separated); default public',
    )
    .option('--json', 'print the registry answer as JSON');
  addRegistryOptions(command);
  addNetworkOptions(command)
    .addHelpText(
      'after',
      '\nExit status: 0 registered (created or updated), 1 refused by the registry, 2 usage error.\n\nExamples:\n  agentry register examples/documents/flights.agent.json --token $AGENTRY_TOKEN\n  agentry register https://agents.example.com/.well-known/woa.json --all\n  agentry register card.json --groups team-a,team-b --registry https://registry.example.com',
    )
    .action(async (source: string, options: RegisterCommandOptions) => {
      const fetcher = createFetcher(options);
      try {
        const input = await readInput(source, fetcher);
        const parsed = parseJsonText(input.text);
        if (!parsed.ok) throw new UsageError(`${input.label} is not JSON: ${parsed.issue.message}`);
        const groups = listOption(options.groups);
        const answer = await registryClientFor(options).registerAgent(parsed.value, {
          ...(options.agent === undefined ? {} : { agent: options.agent }),
          ...(options.all ? { all: true } : {}),
          ...(groups === undefined ? {} : { groups }),
        });
        if (options.json) process.stdout.write(`${JSON.stringify(answer.body, null, 2)}\n`);
        else printRegistered(answer.status, answer.body);
        process.exitCode = EXIT.ok;
      } catch (error) {
        if (error instanceof RegistryError) {
          if (options.json && error.body !== undefined)
            process.stdout.write(`${JSON.stringify(error.body, null, 2)}\n`);
          process.stderr.write(`agentry: ${registryFailureMessage(error, options)}\n`);
          process.exitCode = error.status === 0 ? EXIT.usage : EXIT.invalid;
        } else {
          const { message, exitCode } = describeFailure(error);
          process.stderr.write(`agentry: ${message}\n`);
          process.exitCode = exitCode;
        }
      } finally {
        await fetcher.close();
      }
    });
}

function printRegistered(status: number, body: unknown): void {
  const records = (body as { results?: unknown[] }).results ?? [body];
  for (const record of records) {
    const { id, name, flagged } = record as { id?: string; name?: string; flagged?: boolean };
    const verb = status === 201 ? 'registered' : 'updated';
    process.stdout.write(`${verb} ${id}${name ? ` (${name})` : ''}\n`);
    if (flagged) {
      process.stdout.write(
        '  flagged: its text tries to instruct AI models; resolve excludes it by default\n',
      );
    }
  }
}
