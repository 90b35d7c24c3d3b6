import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Agent } from '@agentry/core';
import fc from 'fast-check';
import type { RegistryRecord } from '../../src/records/types.js';
import { type ResolveResponse, resolveIntent } from '../../src/resolve/index.js';
import { agentOf, aidipDocument, depsOver, exampleAgents, recordOf } from './records.js';

const [flights] = exampleAgents('flights.agent.json') as [Agent];
const [summarizer, keywords] = exampleAgents('summarizer.woa.json') as [Agent, Agent];

const translator = agentOf(
  aidipDocument({
    id: 'zh-en-translator',
    name: 'Chinese-English Translator',
    description: 'Translates text between Chinese and English.',
    operation: 'translateText',
    operationDescription: 'Translate text from one language to the other.',
    languages: ['en', 'zh'],
    auth: 'api_key',
    tags: ['translation'],
  }),
);
const frenchTranslator = agentOf(
  aidipDocument({
    id: 'fr-translator',
    name: 'French Translator',
    description: 'Translates text into French.',
    operation: 'translate',
    operationDescription: 'Translate text into French.',
    languages: ['fr'],
    tags: ['translation'],
  }),
);
const anyTranslator = agentOf(
  aidipDocument({
    id: 'any-translator',
    name: 'Universal Translator',
    description: 'Translates text between any languages.',
    operation: 'translate',
    operationDescription: 'Translate text.',
    tags: ['translation'],
  }),
);

async function resolveOk(
  body: unknown,
  records: RegistryRecord[],
  baseUrl?: string,
): Promise<ResolveResponse> {
  const result = await resolveIntent(body, depsOver(records, baseUrl));
  assert.equal(result.status, 200, JSON.stringify(result));
  if (result.status !== 200) throw new Error('unreachable');
  return result.body;
}

const ids = (response: ResolveResponse): string[] => response.candidates.map((candidate) => candidate.id);

describe('resolveIntent: request validation', () => {
  const cases: Array<[string, unknown, string[]]> = [
    ['a body that is not an object', 'book a flight', ['']],
    ['a missing intent', { top: 3 }, ['']],
    ['an intent that is not a string', { intent: 42 }, ['/intent']],
    ['a blank intent', { intent: '   ' }, ['/intent']],
    ['a top out of range', { intent: 'x', top: 0 }, ['/top']],
    ['an unknown policy member', { intent: 'x', policy: { exclude_flaged: true } }, ['/policy']],
    ['an unknown auth type', { intent: 'x', policy: { auth_types: ['password'] } }, ['/policy/auth_types/0']],
    ['a trust above 1', { intent: 'x', policy: { min_trust: 2 } }, ['/policy/min_trust']],
    [
      'several mistakes',
      { intent: 7, top: 'many', policy: { transports: ['pigeon'] } },
      ['/intent', '/top', '/policy/transports/0'],
    ],
  ];
  for (const [what, body, pointers] of cases) {
    it(`answers 400 with pointers for ${what}`, async () => {
      const result = await resolveIntent(body, depsOver([]));
      assert.equal(result.status, 400);
      if (result.status !== 400) return;
      const { problem } = result;
      assert.equal(problem['status'], 400);
      assert.equal(problem['code'], 'InvalidInput');
      assert.deepEqual(problem['error'], { code: 'InvalidInput', message: problem['detail'] });
      const found = (problem['errors'] as Array<{ pointer: string }>).map((e) => e.pointer);
      for (const pointer of pointers)
        assert.ok(found.includes(pointer), `${pointer} not in ${JSON.stringify(found)}`);
      assert.equal(problem['pointer'], found[0]);
    });
  }

  it('does not search for an invalid request', async () => {
    const deps = depsOver([recordOf(flights)]);
    await resolveIntent({ intent: 'flights', top: 1000 }, deps);
    assert.deepEqual(deps.searches, []);
  });

  it('never throws, whatever the body', async () => {
    const records = [recordOf(flights), recordOf(translator)];
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.jsonValue(),
          fc.record({
            intent: fc.string(),
            top: fc.integer(),
            policy: fc.dictionary(fc.string(), fc.jsonValue()),
          }),
        ),
        async (body) => {
          const result = await resolveIntent(body, depsOver(records));
          assert.ok(result.status === 200 || result.status === 400);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('resolveIntent: candidates and invocation metadata', () => {
  const all = [flights, summarizer, keywords, translator, frenchTranslator, anyTranslator].map((a) =>
    recordOf(a),
  );

  it('chooses the operation that fits the intent, with its binding and credentials', async () => {
    const booking = await resolveOk({ intent: 'book a seat on a flight' }, all);
    const top = booking.candidates[0]!;
    assert.equal(top.id, 'flights.example.com');
    assert.equal(top.operation?.name, 'book_flight');
    assert.equal(top.operation?.requires_confirmation, true);
    assert.deepEqual(top.binding, {
      kind: 'http',
      endpoint: 'https://flights.example.com/api/bookings',
      method: 'POST',
      content_type: 'application/json',
    });
    assert.equal(top.auth.required, true);
    assert.deepEqual(top.auth.types, ['oauth2']);
    assert.deepEqual(
      top.operations.map((op) => op.name),
      ['book_flight', 'search_flights'],
    );

    const search = await resolveOk({ intent: 'search flights from one airport to another' }, all);
    const found = search.candidates[0]!;
    assert.equal(found.operation?.name, 'search_flights');
    assert.equal(found.binding?.endpoint, 'https://flights.example.com/api/search');
    assert.equal(found.auth.required, false);
    assert.deepEqual(found.auth.types, ['none', 'oauth2']);
    assert.ok(found.operation?.input_schema !== undefined);
    assert.ok(
      found.why.some((reason) => reason.includes('search_flights')),
      JSON.stringify(found.why),
    );
  });

  it('gives WoA agents their envelope endpoint and every candidate the gateway URL', async () => {
    const response = await resolveOk(
      { intent: 'summarize a long text' },
      all,
      'https://registry.example.org',
    );
    const candidate = response.candidates.find((c) => c.id === 'summarizer')!;
    assert.deepEqual(candidate.binding, {
      kind: 'woa-rest',
      endpoint: 'https://agents.example.com/agents/summarizer/invoke',
      method: 'POST',
      envelope: true,
      content_type: 'application/json',
    });
    assert.equal(candidate.invoke.gateway, 'https://registry.example.org/agents/summarizer/invoke');
    assert.equal(candidate.auth.required, false);
    assert.deepEqual(candidate.auth.types, ['none']);
  });

  it('describes API-key credentials and their instructions', async () => {
    const response = await resolveOk({ intent: 'translate chinese text' }, all);
    const candidate = response.candidates.find((c) => c.id === 'zh-en-translator')!;
    assert.equal(candidate.auth.required, true);
    assert.deepEqual(candidate.auth.types, ['api_key']);
    assert.equal(candidate.operation?.name, 'translateText');
    assert.deepEqual(candidate.languages, ['en', 'zh']);
  });

  it('orders by score, honours top, marks untrusted members, and offers the agent:// URI', async () => {
    const withUri = recordOf({
      ...anyTranslator,
      id: 'uri-translator',
      url: 'agent://translate.example.com/any',
    });
    const response = await resolveOk({ intent: 'translate text', top: 2 }, [...all, withUri]);
    assert.equal(response.candidates.length, 2);
    assert.ok(response.considered >= 4);
    const scores = response.candidates.map((c) => c.score);
    assert.deepEqual(
      scores,
      [...scores].sort((a, b) => b - a),
    );
    assert.ok(response.untrusted.includes('/candidates/*/description'));
    const uri = await resolveOk({ intent: 'translate text', top: 10 }, [...all, withUri]);
    assert.equal(
      uri.candidates.find((c) => c.id === 'uri-translator')?.invoke.uri,
      'agent://translate.example.com/any',
    );
  });

  it('answers an empty list when nothing matches', async () => {
    const response = await resolveOk({ intent: 'quantum chromodynamics' }, all);
    assert.deepEqual(response.candidates, []);
    assert.deepEqual(response.filtered, { count: 0, reasons: {} });
  });
});

describe('resolveIntent: policy', () => {
  const base = [flights, translator, frenchTranslator, anyTranslator].map((a) => recordOf(a));

  it('keeps agents the caller has no credentials for out (auth_types)', async () => {
    const booking = await resolveOk({ intent: 'book a flight', policy: { auth_types: ['none'] } }, base);
    assert.ok(!ids(booking).includes('flights.example.com'));
    assert.equal(booking.filtered.reasons['auth'], 1);
    const search = await resolveOk({ intent: 'search flights', policy: { auth_types: ['none'] } }, base);
    assert.ok(ids(search).includes('flights.example.com'), 'searching needs no credentials');
    const keyed = await resolveOk({ intent: 'translate text', policy: { auth_types: ['api_key'] } }, base);
    assert.ok(ids(keyed).includes('zh-en-translator'));
    const noKey = await resolveOk({ intent: 'translate text', policy: { auth_types: ['bearer'] } }, base);
    assert.ok(!ids(noKey).includes('zh-en-translator'));
  });

  it('filters by language, treating agents that name none as language-agnostic', async () => {
    const response = await resolveOk({ intent: 'translate text', policy: { languages: ['fr-FR'] } }, base);
    assert.deepEqual(ids(response).sort(), ['any-translator', 'fr-translator']);
    assert.equal(response.filtered.reasons['language'], 1);
  });

  it('ranks agents that support the context language higher', async () => {
    const zh = await resolveOk({ intent: 'translate text', context: { language: 'zh-Hans' } }, base);
    assert.equal(zh.candidates[0]!.id, 'zh-en-translator');
    const fr = await resolveOk({ intent: 'translate text', context: { language: 'fr' } }, base);
    assert.equal(fr.candidates[0]!.id, 'fr-translator');
  });

  it('leaves flagged agents out by default, and marks them when the caller lets them in', async () => {
    const records = [
      ...base.filter((r) => r.id !== 'fr-translator'),
      recordOf(frenchTranslator, {
        flags: [{ rule: 'instruction-override', pointer: '/description', excerpt: '…' }],
      }),
    ];
    const strict = await resolveOk({ intent: 'translate text into french' }, records);
    assert.ok(!ids(strict).includes('fr-translator'));
    assert.equal(strict.filtered.reasons['flagged'], 1);
    const lax = await resolveOk(
      { intent: 'translate text into french', policy: { exclude_flagged: false } },
      records,
    );
    assert.equal(lax.candidates.find((c) => c.id === 'fr-translator')?.flagged, true);
  });

  it('demotes inactive agents, drops retired ones, and filters by status when asked', async () => {
    const records = [
      recordOf(anyTranslator, { status: 'inactive' }),
      recordOf(frenchTranslator),
      recordOf(translator, { status: 'retired' }),
    ];
    const response = await resolveOk({ intent: 'translate text' }, records);
    assert.deepEqual(ids(response), ['fr-translator', 'any-translator']);
    assert.ok(response.candidates[1]!.why.includes('ranked lower: inactive'));
    assert.equal(response.filtered.reasons['status'], 1);
    const activeOnly = await resolveOk({ intent: 'translate text', policy: { status: ['active'] } }, records);
    assert.deepEqual(ids(activeOnly), ['fr-translator']);
    assert.equal(activeOnly.filtered.reasons['status'], 2);
  });

  it('demotes agents whose gateway calls fail and that report themselves down', async () => {
    const failing = recordOf(anyTranslator, {
      quality: { ratings: 0, invocations: 10, failures: 9, verified: false },
    });
    const down = recordOf({ ...translator, status: { operational: false } });
    const response = await resolveOk({ intent: 'translate text' }, [
      failing,
      down,
      recordOf(frenchTranslator),
    ]);
    assert.equal(response.candidates[0]!.id, 'fr-translator');
  });

  it('applies trust, quality and verification thresholds', async () => {
    // Crawled from the origin that serves it: the agent's own word, vouched for by that origin.
    const fromItsOrigin = recordOf(
      {
        ...anyTranslator,
        provenance: {
          ...anyTranslator.provenance!,
          sourceUrl: 'https://any-translator.example.com/agent.json',
        },
      },
      { quality: { ratings: 4, invocations: 0, failures: 0, verified: true, score: 0.9 } },
    );
    const registered = recordOf(frenchTranslator);
    const synthetic = recordOf({
      ...translator,
      provenance: { sourceFormat: 'awp', origin: 'synthetic', confidence: 0.2 },
    });
    const records = [fromItsOrigin, registered, synthetic];
    const all = await resolveOk({ intent: 'translate text' }, records);
    assert.deepEqual(Object.fromEntries(all.candidates.map((candidate) => [candidate.id, candidate.trust])), {
      'any-translator': 0.8,
      'fr-translator': 0.5,
      'zh-en-translator': 0.36,
    });
    const trusted = await resolveOk({ intent: 'translate text', policy: { min_trust: 0.4 } }, records);
    assert.deepEqual(ids(trusted).sort(), ['any-translator', 'fr-translator']);
    assert.equal(trusted.filtered.reasons['trust'], 1);
    const good = await resolveOk({ intent: 'translate text', policy: { min_quality: 0.5 } }, records);
    assert.deepEqual(ids(good), ['any-translator']);
    const onlyVerified = await resolveOk(
      { intent: 'translate text', policy: { require_verified: true } },
      records,
    );
    assert.deepEqual(ids(onlyVerified), ['any-translator']);
    assert.equal(onlyVerified.filtered.reasons['verified'], 2);
  });

  it('keeps to the transports asked for and reports the binding of that transport', async () => {
    const both = recordOf({
      ...anyTranslator,
      bindings: [
        ...anyTranslator.bindings,
        { kind: 'mcp', server: 'https://mcp.translate.example.com/mcp', transport: 'streamable-http' },
      ],
    });
    const records = [both, recordOf(frenchTranslator)];
    const mcp = await resolveOk({ intent: 'translate text', policy: { transports: ['mcp'] } }, records);
    assert.deepEqual(ids(mcp), ['any-translator']);
    assert.deepEqual(mcp.candidates[0]!.binding, {
      kind: 'mcp',
      endpoint: 'https://mcp.translate.example.com/mcp',
      transport: 'streamable-http',
      tool: 'translate',
    });
    assert.equal(mcp.filtered.reasons['transport'], 1);
    const rest = await resolveOk({ intent: 'translate text', policy: { transports: ['rest'] } }, records);
    assert.equal(rest.candidates.find((c) => c.id === 'any-translator')?.binding?.kind, 'http');
  });

  it('asks the search for more than top, so filtering still leaves candidates', async () => {
    const many = Array.from({ length: 30 }, (_, i) =>
      recordOf({ ...anyTranslator, id: `t-${i}` }, { status: i < 20 ? 'retired' : 'active' }),
    );
    const response = await resolveOk({ intent: 'translate text', top: 5 }, many);
    assert.equal(response.candidates.length, 5);
    assert.equal(response.filtered.reasons['status'], 20);
  });
});
