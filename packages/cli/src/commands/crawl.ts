/**
 * `agentry crawl <origin...>`: crawls origins into the registry's database (the file `agentry serve` uses), once,
 * now: their discovery documents are fetched, read and merged, and the agents they describe registered, updated or
 * retired. Progress goes to stderr; a summary (or `--json`) to stdout.
 */
import { createSecureFetcher } from '@agentry/client';
import type { RegistryOptions } from '@agentry/registry';
import { type CrawlProgress, type CrawlSummary, normalizeOrigin } from '@agentry/registry/crawler';
import type { Command } from 'commander';
import { withCommandRegistry } from '../io/command-registry.js';
import { printableDatabase } from '../io/database-hint.js';
import { EXIT, UsageError } from '../io/errors.js';
import { readInput } from '../io/input.js';
import { addNetworkOptions, fetchPolicy, type NetworkOptions } from '../io/network.js';
import { progressLine } from '../io/progress.js';
import {
  addCrawlLimitOptions,
  type CrawlLimitFlags,
  DATABASE_OPTION,
  environmentSettings,
  registryOptionsFrom,
} from '../io/registry-options.js';
import { plural } from '../io/report.js';

interface CrawlCommandOptions extends NetworkOptions, CrawlLimitFlags {
  from?: string;
  db?: string;
  database?: string;
  concurrency?: string;
  embeddings?: string;
  liveness: boolean;
  force?: boolean;
  json?: boolean;
}

/**
 * Origins listed one by one in the human summary; past this many, only the failed ones, those cut short and those
 * taken over are.
 */
const LISTED_ORIGINS = 50;

interface OriginResult {
  origin: string;
  outcome: CrawlProgress['outcome'] | 'skipped';
  agents: number;
  error?: string;
  /** For `not-due`: when it is due. */
  nextDueAt?: string;
  /** What the per-origin limits left out. */
  dropped?: { agents: number; documents: number };
}

export function registerCrawl(program: Command): void {
  const command = program
    .command('crawl')
    .description(
      "crawl origins' agent descriptions into the registry database, now (see agentry serve --crawl)",
    )
    .argument('[origins...]', 'origins to crawl: https://agents.example.com, or a bare host name (https)')
    .option('--from <file>', 'read origins from a file, one per line (# starts a comment; - for stdin)')
    .option('--db <file>', 'the registry database (default: AGENTRY_DB, else ./agentry.db)')
    .option(...DATABASE_OPTION)
    .option('--concurrency <n>', 'origins crawled at once', '16')
    .option(
      '--embeddings <kind>',
      'how crawled agents are indexed for semantic search: use-lite, openai or none (default: AGENTRY_EMBEDDINGS, else use-lite, as agentry serve)',
    )
    .option('--no-liveness', 'do not probe whether the crawled agents answer')
    .option(
      '--force',
      'ask for every document of the --from origins again too (origins named on the command line always are)',
    )
    .option('--json', 'print the summary as JSON');
  addNetworkOptions(addCrawlLimitOptions(command))
    .addHelpText(
      'after',
      '\nOrigins named on the command line are crawled now, each of their documents asked for again (conditional\nrequests). Those of --from are crawled as they fall due: one with nothing due is reported "skipped <origin>\nnot due until <time>" (--force crawls them all now).\n\nExit status: 0 every origin was crawled (here, or by another crawler that took it over) or not due,\n1 some could not be (unreachable, refused, failed, removed meanwhile, interrupted), 2 usage error.\n\nExamples:\n  agentry crawl https://agents.example.com api.example.org\n  agentry crawl --from origins.txt --db registry.db --concurrency 64 --embeddings none\n  agentry crawl http://localhost:8080 --allow-http --allow-private-network',
    )
    .action(async (args: string[], options: CrawlCommandOptions) => {
      const { origins, named } = await originsOf(args, options.from);
      const concurrency = Number(options.concurrency);
      if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 1024) {
        throw new UsageError(`--concurrency must be an integer from 1 to 1024, not "${options.concurrency}"`);
      }
      const registryOptions = registryOptionsOf(options);
      const fetcher = createSecureFetcher({
        ...fetchPolicy(options),
        cache: false,
        userAgent: 'agentry-crawler/0.1',
      });
      await withCommandRegistry(
        registryOptions,
        fetcher,
        { concurrency, liveness: options.liveness },
        async (registry, signal) => {
          await registry.crawler.add(origins, { addedBy: 'cli' });
          const results = new Map<string, OriginResult>();
          const progress = progressReporter(origins.length);
          // Origins named on the command line are crawled now, every document asked for again; a --from list (a cron
          // job's) is crawled as due, its origins with nothing due reported as skipped.
          const summary = await registry.crawler.runOnce({
            origins,
            refresh: options.force === true ? true : named,
            signal,
            onProgress: (event) => {
              results.set(event.origin, {
                origin: event.origin,
                outcome: event.outcome,
                agents: event.agents,
                ...(event.error === undefined ? {} : { error: event.error }),
                ...(event.nextDueAt === undefined ? {} : { nextDueAt: event.nextDueAt }),
                ...(event.dropped === undefined ? {} : { dropped: event.dropped }),
              });
              progress.update(event);
            },
          });
          progress.end();
          const report = origins.map(
            (origin): OriginResult =>
              results.get(origin) ?? {
                origin,
                outcome: 'skipped',
                agents: 0,
                error: summary.aborted
                  ? 'Interrupted before it was crawled.'
                  : 'Another crawler was crawling it.',
              },
          );
          const failed = report.filter(isFailed);
          if (options.json) {
            const body: Record<string, unknown> = {
              database: printableDatabase(registryOptions.databasePath),
              ok: report.filter(isOk).length,
              skipped: summary.notDue,
              failed: failed.length,
              // Origins another crawler on the same database took over while this one crawled them.
              lostClaims: summary.lostClaims,
              aborted: summary.aborted,
              agents: agentCounts(summary),
              dropped: summary.dropped,
              requests: summary.documents,
              seconds: Math.round(summary.elapsedMs) / 1000,
              origins: report,
            };
            if (registry.adminToken !== undefined) body['adminToken'] = registry.adminToken;
            process.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
          } else {
            printSummary(report, failed, summary, printableDatabase(registryOptions.databasePath));
          }
          process.exitCode = failed.length === 0 && !summary.aborted ? EXIT.ok : EXIT.invalid;
        },
      );
    });
}

/** The origins named on the command line and in `--from`, normalised, each once; `named`: those of the command line. */
async function originsOf(
  args: readonly string[],
  from: string | undefined,
): Promise<{ origins: string[]; named: string[] }> {
  const inputs = [...args];
  if (from !== undefined) {
    const { text } = await readInput(from);
    for (const line of text.split(/\r?\n/)) {
      const origin = line.replace(/#.*$/, '').trim();
      if (origin !== '') inputs.push(origin);
    }
  }
  if (inputs.length === 0) throw new UsageError('name origins to crawl, or a file of them with --from');
  const origins = new Set<string>();
  const named = new Set<string>();
  inputs.forEach((input, index) => {
    let origin: string;
    try {
      origin = normalizeOrigin(input);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    origins.add(origin);
    if (index < args.length) named.add(origin);
  });
  return { origins: [...origins], named: [...named] };
}

function registryOptionsOf(options: CrawlCommandOptions): RegistryOptions {
  return registryOptionsFrom(environmentSettings(), options);
}

function isOk(result: OriginResult): boolean {
  return result.outcome === 'changed' || result.outcome === 'unchanged';
}

/** Not crawled here, nor by anyone: an origin not due, or taken over (another crawler's crawl stands), is not. */
function isFailed(result: OriginResult): boolean {
  return !isOk(result) && result.outcome !== 'not-due' && result.outcome !== 'taken-over';
}

/** Why a taken-over origin's crawl here was dropped (stderr as it happens, and the summary). */
const TAKEN_OVER =
  'taken over by another crawler on the same database (this crawl outlasted its lease); its crawl stands, this one was dropped';

function agentCounts(summary: CrawlSummary): Record<string, number> {
  return {
    added: summary.added,
    updated: summary.updated,
    unchanged: summary.unchangedAgents,
    inactive: summary.markedInactive,
    tombstoned: summary.tombstoned,
  };
}

/**
 * On a terminal, one line redrawn in place (at most ten times a second); otherwise a plain line each time another
 * tenth of the origins is done, so that logs show progress without a line per origin.
 */
function progressReporter(total: number): { update(event: CrawlProgress): void; end(): void } {
  const progress = progressLine();
  let lastTenth = 0;
  const line = (event: CrawlProgress): string => {
    const seconds = event.elapsedMs / 1000;
    const rate = seconds > 0 ? (event.documents / seconds).toFixed(1) : '0.0';
    return `crawling: ${event.done}/${total} origins done, ${event.failed} failed, ${rate} documents/s`;
  };
  return {
    update(event) {
      if (event.outcome === 'taken-over') progress.note(`crawling: ${event.origin} ${TAKEN_OVER}`);
      if (progress.tty) {
        progress.draw(line(event), event.done >= total);
        return;
      }
      const tenth = Math.floor((event.done * 10) / Math.max(total, 1));
      if (tenth > lastTenth) {
        lastTenth = tenth;
        progress.log(line(event));
      }
    },
    end: () => progress.end(),
  };
}

/** What the per-origin limits left out of one origin, and the flag that sets them. */
function droppedNote(dropped: { agents: number; documents: number }): string {
  const notes: string[] = [];
  if (dropped.agents > 0)
    notes.push(`${plural(dropped.agents, 'more agent')} dropped (--max-agents-per-origin)`);
  if (dropped.documents > 0)
    notes.push(`${plural(dropped.documents, 'linked document')} not followed (--max-documents-per-origin)`);
  return notes.length === 0 ? '' : `; ${notes.join('; ')}`;
}

function printSummary(
  report: readonly OriginResult[],
  failed: readonly OriginResult[],
  summary: CrawlSummary,
  database: string,
): void {
  const out = (text: string) => process.stdout.write(`${text}\n`);
  const seconds = (summary.elapsedMs / 1000).toFixed(1);
  const ok = report.filter(isOk).length;
  const skipped = summary.notDue > 0 ? `, ${summary.notDue} skipped (not due)` : '';
  const lost = summary.lostClaims > 0 ? `, ${summary.lostClaims} taken over by another crawler` : '';
  out(
    `agentry: crawled ${plural(report.length, 'origin')} into ${database} in ${seconds} s (${plural(summary.documents, 'request')}): ${ok} ok${skipped}${lost}, ${failed.length} failed${summary.aborted ? ' (interrupted)' : ''}`,
  );
  const agents = agentCounts(summary);
  out(
    `  agents: ${agents.added} added, ${agents.updated} updated, ${agents.unchanged} unchanged, ${agents.inactive} marked inactive, ${agents.tombstoned} tombstoned${summary.dropped.agents > 0 ? `, ${summary.dropped.agents} dropped (over the per-origin limit)` : ''}`,
  );
  const listed =
    report.length <= LISTED_ORIGINS
      ? report
      : report.filter(
          (result) =>
            failed.includes(result) || result.dropped !== undefined || result.outcome === 'taken-over',
        );
  for (const result of listed) {
    let label = 'ok';
    let detail = `${plural(result.agents, 'agent')}${result.outcome === 'unchanged' ? ', unchanged' : ''}${result.agents === 0 ? ' (no agent description found)' : ''}`;
    if (result.dropped !== undefined) detail += droppedNote(result.dropped);
    if (result.outcome === 'not-due') {
      label = 'skipped';
      detail = `not due until ${result.nextDueAt ?? 'later'} (name it on the command line, or --force, to crawl it now)`;
    } else if (result.outcome === 'taken-over') {
      label = 'taken';
      detail = TAKEN_OVER;
    } else if (!isOk(result)) {
      label = 'failed';
      detail = `${result.outcome}: ${result.error ?? 'failed'}`;
    }
    out(`  ${label.padEnd(7)} ${result.origin}  ${detail}`);
  }
  if (listed.length < report.length)
    out(`  (${report.length - listed.length} origins crawled or skipped as due are not listed)`);
}
