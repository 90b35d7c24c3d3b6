/**
 * `agentry invoke <agent-uri|url> --input <json|@file>`: call an agent's operation over whatever binding it has.
 * Destructive, irreversible and confirmation-requiring operations ask first (or take --yes).
 */
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline/promises';
import {
  ConfirmationRequiredError,
  type InvokeOptions,
  invoke,
  invokeStream,
  resolve,
} from '@agentry/client';
import { type JsonValue, parseJsonText } from '@agentry/core';
import type { Command } from 'commander';
import { EXIT, UsageError } from '../io/errors.js';
import { cliMessage, describeFailure } from '../io/failures.js';
import { addNetworkOptions, createFetcher, type NetworkOptions } from '../io/network.js';
import { addTargetOptions, resolveOptions, type TargetOptions } from '../io/targets.js';
import { describeBinding } from './resolve.js';

interface InvokeCommandOptions extends NetworkOptions, TargetOptions {
  operation?: string;
  input?: string;
  stream?: boolean;
  yes?: boolean;
  json?: boolean;
  header?: string[];
  bearer?: string;
  apiKey?: string;
  idempotencyKey?: string;
  timeout?: number;
  validate?: 'strict' | 'warn' | 'off';
}

export function registerInvoke(program: Command): void {
  const command = program
    .command('invoke')
    .description("call an agent's operation; the output goes to stdout, warnings to stderr")
    .argument(
      '<target>',
      "agent://host/path, agent+https://..., agent+local://name, a document URL, or a registry's <url>/agents/<id>",
    )
    .option('-o, --operation <name>', 'the operation to run (optional when the agent has one)')
    .option('-i, --input <json>', 'the input: JSON text, @file.json, or - for standard input')
    .option('--stream', 'stream the output (SSE, NDJSON, WebSocket): one JSON event per line')
    .option('-y, --yes', 'confirm destructive or irreversible operations without asking')
    .option('--json', 'print {output, status, operation, binding, warnings, taskId, attempts} as JSON')
    .option('-H, --header <name:value...>', 'extra request headers')
    .option('--bearer <token>', 'send Authorization: Bearer <token> (also AGENTRY_BEARER_TOKEN)')
    .option('--api-key <key>', "send the agent's API key (also AGENTRY_API_KEY)")
    .option('--idempotency-key <key>', 'make a non-idempotent call safe to retry')
    .option('--timeout <ms>', 'time allowed for each request', (value) => Number.parseInt(value, 10))
    .option('--validate <mode>', 'schema checks of input and output: strict (default), warn, off');
  addTargetOptions(command);
  addNetworkOptions(command)
    .addHelpText(
      'after',
      '\nExit status: 0 success, 1 the agent or the network failed (the message says why and what to do), 2 usage error.\n\nExamples:\n  agentry invoke agent://agents.example.com/summarizer --input \'{"text": "…"}\'\n  agentry invoke agent://flights.example.com/cancel_booking -i @booking.json --yes --bearer $FLIGHTS_TOKEN\n  agentry invoke agent://flights.example.com/flight_status --stream -i \'{"flight_number": "AG100"}\'\n  agentry invoke https://registry.example.com/agents/translator -i @text.json --bearer $AGENTRY_TOKEN --api-key $TRANSLATOR_KEY',
    )
    .action(async (target: string, options: InvokeCommandOptions) => {
      const input = await readInputValue(options.input);
      const fetcher = createFetcher(options);
      try {
        const resolution = await resolve(target, {
          ...(await resolveOptions(options)),
          fetcher,
        });
        const invokeOptions = buildOptions(options, fetcher);
        if (options.stream) {
          for await (const event of invokeStream(resolution, input, invokeOptions)) {
            process.stdout.write(`${JSON.stringify(options.json ? event : event.data)}\n`);
          }
          return;
        }
        let result: Awaited<ReturnType<typeof invoke>>;
        try {
          result = await invoke(resolution, input, invokeOptions);
        } catch (error) {
          if (!(error instanceof ConfirmationRequiredError) || options.yes) throw error;
          if (!(await askConfirmation(error))) {
            process.stderr.write('agentry: not confirmed; nothing was sent.\n');
            process.exitCode = EXIT.invalid;
            return;
          }
          result = await invoke(resolution, input, { ...invokeOptions, confirm: true });
        }
        for (const warning of result.warnings) process.stderr.write(`warning: ${warning.message}\n`);
        if (options.json) {
          const { output, status, operation, binding, warnings, taskId, attempts } = result;
          process.stdout.write(
            `${JSON.stringify({ output, status, operation, binding, warnings, taskId, attempts }, null, 2)}\n`,
          );
        } else {
          process.stdout.write(`${JSON.stringify(result.output, null, 2)}\n`);
          process.stderr.write(
            `${result.operation} via ${describeBinding(result.binding)}: ${result.status}\n`,
          );
        }
      } catch (error) {
        const { message, exitCode } = describeFailure(error);
        process.stderr.write(`agentry: ${message}\n`);
        process.exitCode = exitCode;
      } finally {
        await fetcher.close();
      }
    });
}

function buildOptions(options: InvokeCommandOptions, fetcher: InvokeOptions['fetcher']): InvokeOptions {
  const out: InvokeOptions = { fetcher, confirm: options.yes === true };
  if (options.operation) out.operation = options.operation;
  if (options.idempotencyKey) out.idempotencyKey = options.idempotencyKey;
  if (options.timeout !== undefined) {
    if (!Number.isFinite(options.timeout) || options.timeout <= 0)
      throw new UsageError('--timeout takes milliseconds, e.g. 5000');
    out.timeoutMs = options.timeout;
  }
  if (options.validate) {
    if (!['strict', 'warn', 'off'].includes(options.validate))
      throw new UsageError('--validate takes strict, warn or off');
    out.validate = options.validate;
  }
  const bearer = options.bearer ?? process.env['AGENTRY_BEARER_TOKEN'];
  const apiKey = options.apiKey ?? process.env['AGENTRY_API_KEY'];
  if (bearer || apiKey) out.auth = { ...(bearer ? { bearer } : {}), ...(apiKey ? { apiKey } : {}) };
  if (options.header) {
    out.headers = {};
    for (const header of options.header) {
      const colon = header.indexOf(':');
      if (colon <= 0) throw new UsageError(`--header takes name:value, got "${header}"`);
      out.headers[header.slice(0, colon).trim()] = header.slice(colon + 1).trim();
    }
  }
  return out;
}

/** `--input` as JSON text, `@file`, or `-` (stdin); absent means no input. */
async function readInputValue(source: string | undefined): Promise<JsonValue> {
  if (source === undefined) return null;
  let text = source;
  let where = '--input';
  if (source === '-') {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin)
      chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
    text = Buffer.concat(chunks).toString('utf8');
    where = 'standard input';
  } else if (source.startsWith('@')) {
    where = source.slice(1);
    try {
      text = await readFile(where, 'utf8');
    } catch (error) {
      throw new UsageError(`Cannot read the input file ${where}: ${(error as Error).message}`);
    }
  }
  const parsed = parseJsonText(text);
  if (!parsed.ok) throw new UsageError(`The input (${where}) is not JSON: ${parsed.issue.message}`);
  return parsed.value;
}

async function askConfirmation(error: ConfirmationRequiredError): Promise<boolean> {
  if (!process.stdin.isTTY || !process.stderr.isTTY) {
    throw new UsageError(
      error.fix === undefined ? `${error.message} Pass --yes to confirm.` : cliMessage(error),
    );
  }
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await prompt.question(`${error.fix?.summary ?? error.message}\nProceed? [y/N] `);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    prompt.close();
  }
}
