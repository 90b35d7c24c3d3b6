/** `agentry validate <file|->`: detect the format, print the issues, exit 0 (valid), 1 (invalid) or 2 (usage/I-O). */
import { codecs, type FormatName, readDocumentText } from '@agentry/core';
import type { Command } from 'commander';
import { EXIT } from '../io/errors.js';
import { parseFormatName } from '../io/formats.js';
import { readInput } from '../io/input.js';
import { addNetworkOptions, createFetcher, type NetworkOptions } from '../io/network.js';
import { colorEnabled, formatIssue, paint, plural } from '../io/report.js';

interface ValidateOptions extends NetworkOptions {
  format?: FormatName;
  json?: boolean;
}

export function registerValidate(program: Command): void {
  const command = program
    .command('validate')
    .description(
      'check an agent description: detect its format, validate it against its spec, list the agents',
    )
    .argument('<file>', 'a JSON document: a path, an http(s) URL, or - for standard input')
    .option('-f, --format <name>', 'read as this format instead of detecting it', parseFormatName)
    .option('--json', 'print {format, valid, agents, issues} as JSON');
  addNetworkOptions(command)
    .addHelpText(
      'after',
      '\nExit status: 0 valid (warnings allowed), 1 invalid, 2 usage or I/O error.\n\nExamples:\n  agentry validate .well-known/woa.json\n  agentry validate https://example.com/.well-known/agent-card.json\n  curl -s https://example.com/agent.json | agentry validate - --json',
    )
    .action(async (file: string, options: ValidateOptions) => {
      const fetcher = createFetcher(options);
      const input = await readInput(file, fetcher).finally(() => fetcher.close());
      const result = readDocumentText(input.text, {
        ...(options.format ? { format: options.format } : {}),
        ...(input.sourceUrl ? { sourceUrl: input.sourceUrl } : {}),
        ...(input.fetchedAt ? { fetchedAt: input.fetchedAt } : {}),
      });
      if (options.json) {
        const { format = null, valid, agents, issues } = result;
        process.stdout.write(`${JSON.stringify({ format, valid, agents, issues }, null, 2)}\n`);
      } else {
        const color = colorEnabled(process.stdout);
        const errors = result.issues.filter((issue) => issue.severity === 'error').length;
        const warnings = result.issues.length - errors;
        const what = result.format
          ? `${codecs[result.format].title} (${result.format})`
          : 'unrecognised document';
        const verdict = result.valid ? paint(color, 'green', 'valid') : paint(color, 'red', 'invalid');
        const ids = result.agents.map((agent) => agent.id);
        const agentList =
          ids.length === 0
            ? 'no agents'
            : `${plural(ids.length, 'agent')}: ${ids.slice(0, 10).join(', ')}${ids.length > 10 ? ', …' : ''}`;
        const counts = [errors ? plural(errors, 'error') : '', warnings ? plural(warnings, 'warning') : '']
          .filter(Boolean)
          .join(', ');
        process.stdout.write(
          `${input.label}: ${what}, ${verdict}; ${agentList}${counts ? `; ${counts}` : ''}\n`,
        );
        for (const issue of result.issues) process.stdout.write(`${formatIssue(issue, color)}\n`);
      }
      process.exitCode = result.valid ? EXIT.ok : EXIT.invalid;
    });
}
