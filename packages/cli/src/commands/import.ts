/**
 * `agentry import <registry-url>`: imports another registry into the registry's database (the file `agentry serve`
 * uses): the official MCP Registry API, or another Agentry registry. The first import reads everything; the next
 * ones only what changed since (deletions included). Progress goes to stderr; a summary (or `--json`) to stdout.
 */
import { createSecureFetcher } from '@agentry/client';
import {
  FEDERATION_KINDS,
  FederationError,
  type FederationKind,
  type ImportSummary,
  type RegistryImportResult,
  type RegistryOptions,
} from '@agentry/registry';
import type { Command } from 'commander';
import { withCommandRegistry } from '../io/command-registry.js';
import { printableDatabase } from '../io/database-hint.js';
import { EXIT, UsageError } from '../io/errors.js';
import { addNetworkOptions, fetchPolicy, type NetworkOptions } from '../io/network.js';
import { progressLine } from '../io/progress.js';
import { registryUrl } from '../io/registry-client.js';
import { DATABASE_OPTION, environmentSettings, registryOptionsFrom } from '../io/registry-options.js';
import { plural } from '../io/report.js';

interface ImportCommandOptions extends NetworkOptions {
  kind?: string;
  full?: boolean;
  db?: string;
  database?: string;
  embeddings?: string;
  json?: boolean;
}

/** Unreadable records listed one by one in the human summary; past this many, only counted. */
const LISTED_PROBLEMS = 20;

export function registerImport(program: Command): void {
  const command = program
    .command('import')
    .description(
      'import another registry (the official MCP Registry, or an Agentry registry) into the registry database; again later for what changed',
    )
    .argument(
      '<registry-url>',
      'the registry: https://registry.modelcontextprotocol.io, https://registry.example.com',
    )
    .option('--kind <kind>', `what it is: ${FEDERATION_KINDS.join(' or ')} (default: asked of the registry)`)
    .option('--full', 'read everything again, not only what changed since the last import of this URL')
    .option('--db <file>', 'the registry database (default: AGENTRY_DB, else ./agentry.db)')
    .option(...DATABASE_OPTION)
    .option(
      '--embeddings <kind>',
      'how imported agents are indexed for semantic search: use-lite, openai or none (default: AGENTRY_EMBEDDINGS, else use-lite, as agentry serve)',
    )
    .option('--json', 'print the summary as JSON');
  addNetworkOptions(command)
    .addHelpText(
      'after',
      '\nExit status: 0 imported, 1 the registry could not be read or served records that could not be, 2 usage error.\n\nExamples:\n  agentry import https://registry.modelcontextprotocol.io\n  agentry import https://registry.example.com --kind agentry --db registry.db\n  agentry import http://localhost:7420 --allow-http --allow-private-network --full',
    )
    .action(async (target: string, options: ImportCommandOptions) => {
      const baseUrl = registryUrl(target);
      const kind = kindOf(options.kind);
      const registryOptions: RegistryOptions = registryOptionsFrom(environmentSettings(), options);
      const fetcher = createSecureFetcher({ ...fetchPolicy(options), cache: false });
      const started = performance.now();
      const progress = progressReporter();
      await withCommandRegistry(registryOptions, fetcher, {}, async (registry, signal) => {
        let result: RegistryImportResult;
        try {
          result = await registry.importRegistry({
            baseUrl,
            fetcher,
            signal,
            onPage: (summary) => progress.update(summary),
            ...(kind === undefined ? {} : { kind }),
            ...(options.full === true ? { full: true } : {}),
          });
        } catch (error) {
          progress.end();
          if (signal.aborted) {
            process.stderr.write('agentry: import interrupted; the next one starts from the same point\n');
          } else if (error instanceof FederationError) {
            process.stderr.write(`agentry: ${error.message}\n`);
          } else throw error;
          process.exitCode = EXIT.invalid;
          return;
        }
        progress.end();
        const seconds = Math.round(performance.now() - started) / 1000;
        if (options.json) {
          process.stdout.write(
            `${JSON.stringify({ database: printableDatabase(registryOptions.databasePath), registry: baseUrl, seconds, ...result }, null, 2)}\n`,
          );
        } else {
          printSummary(result, baseUrl, printableDatabase(registryOptions.databasePath), seconds);
        }
        process.exitCode = result.problems.length === 0 ? EXIT.ok : EXIT.invalid;
      });
    });
}

function kindOf(kind: string | undefined): FederationKind | undefined {
  if (kind === undefined) return undefined;
  if (!(FEDERATION_KINDS as readonly string[]).includes(kind)) {
    throw new UsageError(`--kind must be ${FEDERATION_KINDS.join(' or ')}, not "${kind}"`);
  }
  return kind as FederationKind;
}

/** One line redrawn on a terminal; otherwise a line every tenth page, at most one a second. */
function progressReporter(): { update(summary: Readonly<ImportSummary>): void; end(): void } {
  const progress = progressLine();
  let lastLog = Number.NEGATIVE_INFINITY;
  const line = (summary: Readonly<ImportSummary>) =>
    `importing: ${plural(summary.pages, 'page')}, ${summary.imported} agents, ${summary.tombstoned} deleted, ${summary.problems.length} unreadable`;
  return {
    update(summary) {
      if (progress.tty) {
        progress.draw(line(summary));
        return;
      }
      const now = performance.now();
      if (summary.pages % 10 === 0 && now - lastLog >= 1000) {
        lastLog = now;
        progress.log(line(summary));
      }
    },
    end: () => progress.end(),
  };
}

function printSummary(
  result: RegistryImportResult,
  baseUrl: string,
  database: string,
  seconds: number,
): void {
  const out = (text: string) => process.stdout.write(`${text}\n`);
  const since = result.updatedSince === undefined ? 'everything' : `changes since ${result.updatedSince}`;
  out(
    `agentry: imported ${baseUrl} (${result.kind}, ${since}) into ${database} in ${seconds.toFixed(1)} s (${plural(result.pages, 'page')})`,
  );
  out(
    `  agents: ${result.imported} imported, ${result.tombstoned} deleted, ${result.skipped} skipped (older versions), ${result.problems.length} unreadable`,
  );
  for (const problem of result.problems.slice(0, LISTED_PROBLEMS)) {
    out(`  unreadable ${problem.id ?? '(no name)'}: ${problem.message}`);
  }
  if (result.problems.length > LISTED_PROBLEMS) {
    out(`  … and ${result.problems.length - LISTED_PROBLEMS} more (--json lists them all)`);
  }
  if (result.latestUpdatedAt !== undefined) out(`  next import: changes since ${result.latestUpdatedAt}`);
}
