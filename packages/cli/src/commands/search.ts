/**
 * `agentry search "<need>"`: asks a registry for agents matching a plain-language need (hybrid lexical and
 * semantic ranking), optionally narrowed by tags, capabilities and languages.
 */
import { RegistryError } from '@agentry/client';
import type { Command } from 'commander';
import { EXIT, UsageError } from '../io/errors.js';
import {
  addRegistryOptions,
  listOption,
  type RegistryOptions,
  registryClientFor,
  registryFailureMessage,
} from '../io/registry-client.js';
import { colorEnabled, paint } from '../io/report.js';

interface SearchCommandOptions extends RegistryOptions {
  top: string;
  tags?: string;
  capabilities?: string;
  language?: string;
  json?: boolean;
}

interface Hit {
  id: string;
  name?: string;
  description?: string;
  score?: number;
  why?: string[];
  endpoint?: string;
  /** Set by the registry when its safety scan found instructions aimed at a model in the agent's text. */
  flagged?: boolean;
  safety_flags?: Array<{ rule?: string }>;
}

export function registerSearch(program: Command): void {
  const command = program
    .command('search')
    .description('find agents in a registry by plain-language need (and filters)')
    .argument('<need>', 'what you need, in plain words, e.g. "summarize a long legal document"')
    .option('-n, --top <n>', 'how many agents to show', '10')
    .option('--tags <list>', 'only agents with all these tags (comma-separated)')
    .option('--capabilities <list>', 'only agents with all these capabilities (comma-separated)')
    .option('--language <list>', 'only agents supporting all these languages (comma-separated)')
    .option('--json', 'print the results as JSON');
  addRegistryOptions(command)
    .addHelpText(
      'after',
      '\nExit status: 0 agents found, 1 none found, 2 usage error or registry unreachable.\n\nExamples:\n  agentry search "book a flight to Paris"\n  agentry search "translate chinese" --tags nlp --json\n  agentry search "summarize an article" --top 3 --registry https://registry.example.com',
    )
    .action(async (need: string, options: SearchCommandOptions) => {
      const top = Number(options.top);
      if (!Number.isInteger(top) || top < 1 || top > 100) throw new UsageError('--top must be 1 to 100');
      const filters: Record<string, string[]> = {};
      for (const [key, value] of [
        ['tags', options.tags],
        ['capabilities', options.capabilities],
        ['supported_languages', options.language],
      ] as const) {
        const list = listOption(value);
        if (list !== undefined) filters[key] = list;
      }
      try {
        const hits: Hit[] = await registryClientFor(options).searchAgents({ query: need, filters, top });
        if (options.json) process.stdout.write(`${JSON.stringify(hits, null, 2)}\n`);
        else printHits(need, hits);
        process.exitCode = hits.length > 0 ? EXIT.ok : EXIT.invalid;
      } catch (error) {
        if (!(error instanceof RegistryError)) throw error;
        process.stderr.write(`agentry: ${registryFailureMessage(error, options)}\n`);
        process.exitCode = error.status === 0 || error.status === 400 ? EXIT.usage : EXIT.invalid;
      }
    });
}

function printHits(need: string, hits: Hit[]): void {
  const color = colorEnabled(process.stdout);
  const out = (line = '') => process.stdout.write(`${line}\n`);
  if (hits.length === 0) {
    out(`No agents found for "${need}".`);
    return;
  }
  hits.forEach((hit, index) => {
    const score = typeof hit.score === 'number' ? hit.score.toFixed(3) : '';
    out(
      `${String(index + 1).padStart(2)}. ${paint(color, 'bold', hit.id)} ${hit.name ? `— ${hit.name}` : ''} ${paint(color, 'dim', score)}`.trimEnd(),
    );
    if (hit.flagged === true) out(`    ${paint(color, 'red', flaggedNote(hit))}`);
    // Descriptions are the publisher's words, shown as data on one line.
    if (hit.description) out(`    ${oneLine(hit.description, 110)}`);
    if (hit.why && hit.why.length > 0) out(`    ${paint(color, 'dim', `why: ${hit.why.join('; ')}`)}`);
  });
}

/** What a flagged agent's line warns of: its text holds instructions aimed at a model (AIDIP §9 unsafe agents). */
function flaggedNote(hit: Hit): string {
  const rules = [...new Set((hit.safety_flags ?? []).flatMap((flag) => (flag.rule ? [flag.rule] : [])))];
  const named = rules.length > 0 ? ` (${rules.join(', ')})` : '';
  return `FLAGGED by the registry's safety scan${named}: its text may try to instruct your model; treat it as data`;
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
