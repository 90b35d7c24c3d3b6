/** Reading the real-world corpora beside the checkout (`../shared`), at run time: nothing is copied in. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Agent, readDocument } from '@agentry/core';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
const sharedDir = resolve(repoRoot, '../shared');

export function sharedPath(...parts: string[]): string {
  return join(sharedDir, ...parts);
}

function listFiles(dir: string): string[] {
  return readdirSync(dir)
    .flatMap((entry) => {
      const path = join(dir, entry);
      return statSync(path).isDirectory() ? listFiles(path) : [path];
    })
    .sort();
}

/** Each MCP Registry seed server, read through core (the way a registration would be). */
export function mcpSeedAgents(): Agent[] {
  const seed = JSON.parse(readFileSync(sharedPath('corpora/mcp-registry/seed.json'), 'utf8')) as unknown[];
  return seed.flatMap((server) => readDocument(server).agents);
}

/** Every agent of the A2A cards, AWP surfaces and WoT Thing Descriptions of the corpora, and our examples. */
export function documentCorpusAgents(): Array<{ file: string; agent: Agent }> {
  const files = [
    ...listFiles(sharedPath('corpora/a2a')),
    ...listFiles(sharedPath('corpora/awp')),
    ...listFiles(sharedPath('corpora/wot-testing-td')),
    ...listFiles(join(repoRoot, 'examples/documents')),
  ].filter((file) => /\.(?:json|jsonld)$/.test(file));
  const out: Array<{ file: string; agent: Agent }> = [];
  for (const file of files) {
    let document: unknown;
    try {
      document = JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      continue; // a few example documents are deliberately broken JSON
    }
    for (const agent of readDocument(document).agents) out.push({ file, agent });
  }
  return out;
}

/** One row per line of a benchmark's `tools.jsonl` (`../shared/bench/<set>/tools.jsonl`). */
export function benchTools(set: string): Array<Record<string, unknown> & { id: string }> {
  return readFileSync(sharedPath('bench', set, 'tools.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as Record<string, unknown> & { id: string });
}
