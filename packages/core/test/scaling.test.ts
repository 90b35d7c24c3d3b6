/**
 * Documents with thousands of members are read and written in time linear in their size. Each case here took
 * time quadratic in its member count (a list compared with every member kept, every binding scanned for every
 * action): at these sizes that is minutes, so a regression outlasts the test's timeout (no timed assertions).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type Agent, codecs, FORMAT_NAMES, readDocument } from '../src/index.js';
import { readVector } from './helpers.js';

const TIMEOUT = { timeout: 60_000 };
const { cases, baseUrl } = readVector<{ baseUrl: string; cases: Array<{ agent: Agent }> }>(
  'round-trip-agents.json',
);
const agent = cases[0]!.agent;

describe('thousands of members', () => {
  test('an A2A card with 30,000 interfaces reads and writes back', TIMEOUT, () => {
    const card = codecs.a2a.emit([agent], { baseUrl }).document as Record<string, unknown>;
    const interfaces = card['supportedInterfaces'] as Array<Record<string, unknown>>;
    const first = interfaces[0]!;
    for (let i = 0; i < 30_000; i++)
      interfaces.push({ ...first, url: `https://agents.example.net/a2a/${i}` });
    const read = readDocument(card, { format: 'a2a' });
    assert.ok(read.agents[0]!.bindings.length > 30_000);
    for (const format of FORMAT_NAMES)
      assert.equal(typeof codecs[format].emit(read.agents, { baseUrl }).document, 'object');
  });

  test('a TD with 20,000 actions, each with its own binding, reads and writes back', TIMEOUT, () => {
    const operations = Array.from({ length: 20_000 }, (_, i) => ({ name: `op${i}`, description: 'Runs.' }));
    const large: Agent = {
      ...agent,
      operations,
      bindings: operations.map((op) => ({
        kind: 'http' as const,
        url: `https://agents.example.net/${op.name}`,
        method: 'POST',
        operations: [op.name],
      })),
    };
    const td = codecs.td.emit([large], { baseUrl }).document;
    const read = readDocument(td, { format: 'td' });
    assert.equal(read.agents[0]!.operations.length, 20_000);
    for (const format of ['td', 'woa', 'awp'] as const)
      assert.equal(typeof codecs[format].emit(read.agents, { baseUrl }).document, 'object');
  });
});
