/**
 * Precision over real descriptions: the scan must leave what publishers really write alone. Every flag found is
 * printed (as a test diagnostic) and must be one this file justifies.
 */
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import type { SafetyFlag } from '../../src/records/types.js';
import { scanAgentText, scanText } from '../../src/safety/index.js';
import { benchTools, documentCorpusAgents, mcpSeedAgents } from './corpora.js';

/**
 * Flags on real text that are right to raise, with why. LiveMCPBench's desktop-commander `start_process` tells the
 * model "for any local file work, ALWAYS use this tool …, NEVER use analysis/REPL tool": steering the model away
 * from other tools is the tool-shadowing pattern the coercion rule exists for, whoever writes it.
 */
const JUSTIFIED = new Map<string, string>([
  [
    'desktop-commander/start_process tool-coercion',
    'tells the model to always use it and never another tool',
  ],
  ['desktop-commander tool-coercion', 'the same text, in the server-level row'],
]);

function report(t: TestContext, found: Array<{ id: string; flags: SafetyFlag[] }>): string[] {
  const unjustified: string[] = [];
  for (const { id, flags } of found) {
    for (const flag of flags) {
      const key = `${id} ${flag.rule}`;
      t.diagnostic(
        `${key} ${flag.pointer}: ${flag.excerpt}${JUSTIFIED.has(key) ? ` (justified: ${JUSTIFIED.get(key)})` : ''}`,
      );
      if (!JUSTIFIED.has(key)) unjustified.push(`${key} ${flag.pointer}: ${flag.excerpt}`);
    }
  }
  return unjustified;
}

describe('precision on real descriptions', () => {
  it('flags none of the 358 MCP Registry seed servers', (t) => {
    const agents = mcpSeedAgents();
    assert.equal(agents.length, 358);
    const found = agents
      .map((agent) => ({ id: agent.id, flags: scanAgentText(agent) }))
      .filter((entry) => entry.flags.length > 0);
    assert.deepEqual(report(t, found), []);
    assert.equal(found.length, 0);
  });

  it('flags none of the A2A cards, AWP surfaces, WoT Thing Descriptions and example documents', (t) => {
    const entries = documentCorpusAgents();
    assert.ok(entries.length > 400, `only ${entries.length} agents read`);
    const found = entries
      .map(({ file, agent }) => ({ id: `${file}#${agent.id}`, flags: scanAgentText(agent) }))
      .filter((entry) => entry.flags.length > 0);
    assert.deepEqual(report(t, found), []);
  });

  it('flags none of the MetaTool plugin descriptions, the prompt-like ones written for the model included', (t) => {
    const found: Array<{ id: string; flags: SafetyFlag[] }> = [];
    let texts = 0;
    for (const tool of benchTools('metatool')) {
      for (const field of ['description', 'description_for_model']) {
        const text = tool[field];
        if (typeof text !== 'string') continue;
        texts++;
        const flags = scanText(text, `/${field}`);
        if (flags.length > 0) found.push({ id: tool.id, flags });
      }
    }
    assert.ok(texts > 300);
    assert.deepEqual(report(t, found), []);
  });

  for (const set of ['livemcpbench-tools', 'livemcpbench-servers']) {
    it(`flags only justified texts among the ${set} rows (every string of each row)`, (t) => {
      const found = benchTools(set)
        .map((tool) => ({ id: tool.id, flags: scanText(JSON.stringify(tool), '') }))
        .filter((entry) => entry.flags.length > 0);
      assert.deepEqual(report(t, found), []);
      assert.ok(found.length <= 1);
    });
  }
});
