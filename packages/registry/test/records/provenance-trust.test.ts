/**
 * Provenance trust: what the registry can vouch for about where a description came from, from the agent's
 * provenance and endpoints (as the codecs and the crawler record them).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Agent, readDocument } from '@agentry/core';
import { hasVerifiedProvenance, provenanceTrust } from '../../src/records/provenance-trust.js';
import { aidipAgent } from '../fixtures.js';

/** The agent of an AIDIP document whose endpoint is `endpoint`, read as if from `sourceUrl`. */
function agentAt(endpoint: string, sourceUrl?: string): Agent {
  const read = readDocument(aidipAgent({ name: 'Summarizer', endpoint }), sourceUrl ? { sourceUrl } : {});
  assert.equal(read.valid, true, JSON.stringify(read.issues));
  return read.agents[0]!;
}

describe('provenance trust', () => {
  it('vouches for a description read from the origin that serves the agent, or a parent domain of it', () => {
    for (const [endpoint, source] of [
      ['https://sum.example/invoke', 'https://sum.example/.well-known/agent.json'],
      ['https://api.sum.example/v1/invoke', 'https://sum.example/.well-known/woa.json'],
      ['https://127.0.0.1:8443/invoke', 'https://127.0.0.1:8443/agent.json'],
    ] as const) {
      const agent = agentAt(endpoint, source);
      assert.equal(provenanceTrust(agent), 0.8, `${endpoint} from ${source}`);
      assert.equal(hasVerifiedProvenance(agent), true);
    }
  });

  it('does not vouch for a description registered through the API or read from another origin', () => {
    for (const [endpoint, source] of [
      ['https://sum.example/invoke', undefined],
      // What the registry's POST /agents records: its own URL.
      ['https://sum.example/invoke', 'https://registry.example/agents'],
      ['https://sum.example/invoke', 'https://evil-sum.example/agent.json'],
      ['https://sum.example/invoke', 'http://sum.example/agent.json'],
      ['https://127.0.0.1:8443/invoke', 'https://127.0.0.1:7420/agents'],
      ['https://example/invoke', 'https://api.example/agent.json'],
    ] as const) {
      const agent = agentAt(endpoint, source);
      assert.equal(provenanceTrust(agent), 0.5, `${endpoint} from ${source}`);
      assert.equal(hasVerifiedProvenance(agent), false);
    }
  });

  it('trusts signatures that checked, never ones that failed, and synthetic descriptions by their confidence', () => {
    const base = agentAt('https://sum.example/invoke', 'https://sum.example/agent.json');
    const signed = (verified: boolean): Agent => ({
      ...base,
      provenance: { ...base.provenance!, signature: { verified } },
    });
    assert.equal(provenanceTrust(signed(true)), 1);
    assert.equal(provenanceTrust(signed(false)), 0);
    assert.equal(hasVerifiedProvenance(signed(false)), false);
    const synthetic = (confidence?: number): Agent => ({
      ...base,
      provenance: {
        sourceFormat: 'awp',
        origin: 'synthetic',
        sourceUrl: 'https://sum.example/openapi.json',
        ...(confidence === undefined ? {} : { confidence }),
      },
    });
    assert.equal(provenanceTrust(synthetic(0)), 0.3);
    assert.equal(provenanceTrust(synthetic()), 0.45);
    assert.equal(provenanceTrust(synthetic(1)), 0.6);
    assert.equal(hasVerifiedProvenance(synthetic(1)), false);
  });
});
