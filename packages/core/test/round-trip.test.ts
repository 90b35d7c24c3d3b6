/**
 * Round trips between every pair of formats on the shared fixture agents (vectors/round-trip-agents.json).
 *
 * For a source format S and a target T: the fixture is emitted as S and parsed back (what S carries), then emitted
 * as T and parsed back. Whatever T's loss report does not name must survive unchanged, and every field the report
 * names must really be gone: the report is exact.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type Agent, codecs, FORMAT_NAMES, type FormatName, lostFields } from '../src/index.js';
import { readVector } from './helpers.js';

interface Case {
  name: string;
  agent: Agent;
}
const vectors = readVector<{ baseUrl: string; cases: Case[] }>('round-trip-agents.json');
const baseUrl = vectors.baseUrl;

/** Emits one agent as `format` and parses it back, asserting the document is valid. */
function through(format: FormatName, agent: Agent): { agent: Agent; losses: string[] } {
  const codec = codecs[format];
  const emitted = codec.emit([agent], { baseUrl });
  const emitErrors = emitted.issues.filter((issue) => issue.severity === 'error');
  assert.deepEqual(emitErrors, [], `${format} emit reported errors`);
  const parsed = codec.parse(emitted.document, { sourceUrl: `${baseUrl}/document` });
  const errors = parsed.issues.filter((issue) => issue.severity === 'error');
  assert.deepEqual(
    errors,
    [],
    `${format} could not read back its own document: ${JSON.stringify(emitted.document)}`,
  );
  const back = parsed.agents.find((candidate) => candidate.id === agent.id) ?? parsed.agents[0];
  assert.ok(back, `${format} read back no agent`);
  return {
    agent: back,
    losses: emitted.losses.filter((loss) => loss.agent === agent.id).map((l) => l.field),
  };
}

function assertExactLosses(before: Agent, after: Agent, reported: string[], label: string): void {
  const lost = lostFields(before, after).sort();
  assert.deepEqual(
    [...new Set(reported)].sort(),
    lost,
    `${label}: the loss report must name exactly the fields that did not survive`,
  );
}

for (const { name, agent } of vectors.cases) {
  describe(`round trip: ${name}`, () => {
    for (const target of FORMAT_NAMES) {
      test(`canonical → ${target}`, () => {
        const { agent: back, losses } = through(target, agent);
        assertExactLosses(agent, back, losses, `canonical → ${target}`);
      });
    }
    for (const source of FORMAT_NAMES) {
      for (const target of FORMAT_NAMES) {
        test(`${source} → ${target}`, () => {
          const viaSource = through(source, agent).agent;
          const { agent: back, losses } = through(target, viaSource);
          assertExactLosses(viaSource, back, losses, `${source} → ${target}`);
        });
      }
    }
    for (const format of FORMAT_NAMES) {
      test(`${format}: parse(emit(x)) is stable`, () => {
        const once = through(format, agent).agent;
        const twice = through(format, once).agent;
        const { provenance: _p1, ...a } = once;
        const { provenance: _p2, ...b } = twice;
        assert.deepEqual(b, a);
      });
    }
  });
}
