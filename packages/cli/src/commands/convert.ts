/**
 * `agentry convert <file|-> --to <format>`: the converted document on stdout, the loss report on stderr.
 */
import { codecs, convertDocumentText, type FormatName } from '@agentry/core';
import type { Command } from 'commander';
import { EXIT } from '../io/errors.js';
import { parseBaseUrl, parseFormatName } from '../io/formats.js';
import { readInput } from '../io/input.js';
import { addNetworkOptions, createFetcher, type NetworkOptions } from '../io/network.js';
import { colorEnabled, formatIssue, formatLoss, issueMessage, paint } from '../io/report.js';

interface ConvertOptions extends NetworkOptions {
  to: FormatName;
  from?: FormatName;
  baseUrl?: string;
  agent?: string[];
  json?: boolean;
}

export function registerConvert(program: Command): void {
  const command = program
    .command('convert')
    .description('convert an agent description to another format; the loss report goes to stderr')
    .argument('<file>', 'a JSON document: a path, an http(s) URL, or - for standard input')
    .requiredOption(
      '-t, --to <format>',
      'target format: woa, awp, a2a, agent-json, agents-json, td, aidip, mcp',
      parseFormatName,
    )
    .option('-f, --from <format>', 'read the input as this format instead of detecting it', parseFormatName)
    .option(
      '--base-url <url>',
      'absolute URL the output will be served under (TD forms, A2A url, agents.json)',
      parseBaseUrl,
    )
    .option('--agent <id...>', 'convert only these agents (by id)')
    .option('--json', 'print {format, to, document, losses, issues} as JSON on stdout');
  addNetworkOptions(command)
    .addHelpText(
      'after',
      '\nSingle-agent formats (awp, a2a, agent-json, td, aidip, mcp) given several agents produce a JSON array of\ndocuments; use --agent to pick one.\n\nExit status: 0 converted, 1 the input is invalid or the output could not be completed, 2 usage or I/O error.\n\nExamples:\n  agentry convert woa.json --to td --base-url https://agents.example.com > card.td.json\n  agentry convert agent.json --to a2a --base-url https://flights.example.com 2> losses.txt',
    )
    .action(async (file: string, options: ConvertOptions) => {
      const fetcher = createFetcher(options);
      const input = await readInput(file, fetcher).finally(() => fetcher.close());
      const result = convertDocumentText(input.text, options.to, {
        ...(options.from ? { format: options.from } : {}),
        ...(input.sourceUrl ? { sourceUrl: input.sourceUrl } : {}),
        ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
        ...(options.agent ? { agents: options.agent } : {}),
      });
      const output = result.output;
      const emitErrors = output?.issues.some((issue) => issue.severity === 'error') ?? false;
      const ok = output !== undefined && !emitErrors;
      if (options.json) {
        const payload = {
          format: result.source.format ?? null,
          to: options.to,
          document: ok ? output.document : null,
          losses: output?.losses ?? [],
          issues: [...result.source.issues, ...(output?.issues ?? [])].map((issue) => ({
            ...issue,
            message: issueMessage(issue),
          })),
        };
        process.stdout.write(`${JSON.stringify(payload, null, 2)}\n`);
        process.exitCode = ok ? EXIT.ok : EXIT.invalid;
        return;
      }
      const color = colorEnabled(process.stderr);
      if (output === undefined) {
        process.stderr.write(`${input.label}: cannot convert, the input is not valid:\n`);
        for (const issue of result.source.issues) process.stderr.write(`${formatIssue(issue, color)}\n`);
        process.exitCode = EXIT.invalid;
        return;
      }
      if (emitErrors) {
        process.stderr.write(`${input.label}: cannot write a complete ${codecs[options.to].title}:\n`);
        for (const issue of output.issues) process.stderr.write(`${formatIssue(issue, color)}\n`);
        process.exitCode = EXIT.invalid;
        return;
      }
      process.stdout.write(`${JSON.stringify(output.document, null, 2)}\n`);
      const from = result.source.format ? codecs[result.source.format].title : 'input';
      if (output.losses.length === 0) {
        process.stderr.write(
          `${paint(color, 'green', 'No losses')}: ${from} → ${codecs[options.to].title}.\n`,
        );
      } else {
        process.stderr.write(
          `${paint(color, 'yellow', 'Loss report')}: ${from} → ${codecs[options.to].title} cannot carry ${output.losses.length} field(s):\n`,
        );
        for (const loss of output.losses) process.stderr.write(`${formatLoss(loss)}\n`);
      }
      for (const issue of output.issues) process.stderr.write(`${formatIssue(issue, color)}\n`);
      process.exitCode = EXIT.ok;
    });
}
