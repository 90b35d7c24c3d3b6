/**
 * AWP governance, read from a real AWP document: dependency plans (order, cycles, unknown names), refusal of
 * destructive, irreversible and confirmation-requiring actions without `confirm: true` (nothing is sent), and
 * warnings for degraded actions and agents that are not operational.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Agent, JsonObject } from '@agentry/core';
import {
  ConfirmationRequiredError,
  type InvokeWarning,
  invoke,
  OperationNotFoundError,
  planInvocation,
} from '../src/index.js';
import {
  documentRoute,
  loadAgent,
  loopbackFetcher,
  rejection,
  sendJson,
  startServer,
  type TestServer,
} from './invoke-support.js';

const fetcher = loopbackFetcher();
let server: TestServer;
let agent: Agent;

function action(id: string, extra: JsonObject = {}): JsonObject {
  return {
    id,
    description: `${id}.`,
    auth_required: false,
    inputs: {},
    outputs: { ok: 'boolean' },
    endpoint: `${server.origin}/api/${id}`,
    method: 'POST',
    ...extra,
  };
}

before(async () => {
  server = await startServer({ '*': (_request, response) => sendJson(response, 200, { ok: true }) });
  server.routes.set(
    'GET /agent.json',
    documentRoute({
      awp_version: '0.1',
      domain: new URL(server.origin).host,
      intent: 'Fly.',
      actions: [
        action('search_flights'),
        action('book_flight', { sensitivity: 'destructive', requires_human_confirmation: true }),
        action('check_in'),
        action('select_seat'),
        action('cancel_booking', { sensitivity: 'irreversible', reversible: false }),
        action('change_seat', { requires_human_confirmation: true }),
      ],
      dependencies: {
        book_flight: ['search_flights'],
        check_in: ['book_flight'],
        select_seat: ['book_flight', 'check_in'],
      },
      agent_status: {
        operational: true,
        degraded_actions: ['search_flights'],
        status_endpoint: '/api/status',
      },
    }),
  );
  agent = await loadAgent(`${server.origin}/agent.json`);
});

after(async () => {
  await server.close();
  await fetcher.close();
});

describe('planInvocation', () => {
  test('prerequisites come in an order that runs each before the ones needing it', () => {
    const plan = planInvocation(agent, 'select_seat');
    assert.deepEqual(plan.prerequisites, ['search_flights', 'book_flight', 'check_in']);
    assert.equal(plan.requiresConfirmation, false);
    assert.deepEqual(plan.cycles, []);
  });

  test('an operation without dependencies has an empty plan', () => {
    assert.deepEqual(planInvocation(agent, 'search_flights').prerequisites, []);
  });

  test('the plan says when the operation needs confirmation, and why', () => {
    const plan = planInvocation(agent, 'book_flight');
    assert.equal(plan.requiresConfirmation, true);
    assert.deepEqual(plan.confirmationReasons, ['sensitivity: destructive', 'requiresConfirmation']);
  });

  test('cycles are found, reported and broken', () => {
    // AWP files cannot have cycles (the codec reports them), but TD `dependsOn` and agents built in code can.
    const looped: Agent = {
      ...agent,
      operations: [
        ...agent.operations,
        { name: 'loop_a', dependsOn: ['loop_b'] },
        { name: 'loop_b', dependsOn: ['loop_a'] },
      ],
    };
    const plan = planInvocation(looped, 'loop_a');
    assert.deepEqual(plan.prerequisites, ['loop_b']);
    assert.deepEqual(plan.cycles, [['loop_a', 'loop_b', 'loop_a']]);
    assert.ok(plan.warnings.some((warning) => warning.code === 'plan.cycle'));
  });

  test('dependencies on operations the agent does not describe are reported', () => {
    // AWP files cannot say this (the codec reports it), but agents built in code or from other formats can.
    const orphaned: Agent = {
      ...agent,
      operations: [...agent.operations, { name: 'orphan', dependsOn: ['vanished_action'] }],
    };
    const plan = planInvocation(orphaned, 'orphan');
    assert.deepEqual(plan.unknown, ['vanished_action']);
    assert.ok(plan.warnings.some((warning) => warning.code === 'plan.unknown-dependency'));
  });

  test('the plan carries the degraded warning of the operation itself', () => {
    const plan = planInvocation(agent, 'search_flights');
    assert.deepEqual(
      plan.warnings.map((warning) => warning.code),
      ['operation.degraded'],
    );
  });

  test('an unknown operation is an OperationNotFoundError listing the real ones', () => {
    assert.throws(
      () => planInvocation(agent, 'fly_to_mars'),
      (error: unknown) => error instanceof OperationNotFoundError && error.available.includes('book_flight'),
    );
  });
});

describe('confirmation', () => {
  for (const [operation, reason] of [
    ['book_flight', 'sensitivity: destructive'],
    ['cancel_booking', 'sensitivity: irreversible'],
    ['change_seat', 'requiresConfirmation'],
  ] as const) {
    test(`${operation} refuses to run without confirm: true, and sends nothing`, async () => {
      const error = await rejection(invoke({ agent }, {}, { operation, fetcher }));
      assert.ok(error instanceof ConfirmationRequiredError, String(error));
      assert.ok(error.reasons.includes(reason), error.reasons.join());
      assert.match(error.message, /confirm: true/);
      assert.match(error.message, /agentry invoke: --yes/, 'the CLI flag as the CLI spells it');
      assert.equal(server.hits('POST', `/api/${operation}`).length, 0);
    });
  }

  test('an irreversible operation says it cannot be undone', async () => {
    const error = await rejection(invoke({ agent }, {}, { operation: 'cancel_booking', fetcher }));
    assert.match((error as Error).message, /cannot be undone/);
  });

  test('with confirm: true it runs', async () => {
    const result = await invoke({ agent }, {}, { operation: 'book_flight', fetcher, confirm: true });
    assert.deepEqual(result.output, { ok: true });
    const [sent] = server.hits('POST', '/api/book_flight');
    assert.equal(sent?.headers['x-agent-confirmation'], 'true');
  });

  test('an agent that still asks for confirmation (428) is a ConfirmationRequiredError with its reasons', async () => {
    // The client knew of no reason to confirm (the description did not say), but the agent's host did.
    const strict: Agent = {
      ...agent,
      operations: [...agent.operations, { name: 'rebook' }],
      bindings: [
        { kind: 'http', url: `${server.origin}/api/rebook`, method: 'POST', operations: ['rebook'] },
      ],
    };
    server.routes.set('POST /api/rebook', (_request, response) =>
      sendJson(response, 428, {
        type: 'https://w3id.org/agentry/problems/confirmation-required',
        title: 'Confirmation required',
        status: 428,
        detail: 'Send X-Agent-Confirmation: true to run rebook.',
        reasons: ['sensitivity: destructive'],
      }),
    );
    const error = await rejection(invoke({ agent: strict }, {}, { operation: 'rebook', fetcher }));
    assert.ok(error instanceof ConfirmationRequiredError, String(error));
    assert.deepEqual(error.reasons, ['sensitivity: destructive']);
    assert.equal(error.status, 428);
  });
});

describe('status warnings', () => {
  test('a degraded operation runs with a warning, in the result and through onWarning', async () => {
    const heard: InvokeWarning[] = [];
    const result = await invoke(
      { agent },
      {},
      { operation: 'search_flights', fetcher, onWarning: (warning) => heard.push(warning) },
    );
    assert.deepEqual(
      result.warnings.map((warning) => warning.code),
      ['operation.degraded'],
    );
    assert.deepEqual(heard, result.warnings);
    assert.match(result.warnings[0]!.message, /degraded/);
  });

  test('an agent that reports it is not operational warns on every call', async () => {
    const down: Agent = { ...agent, status: { operational: false } };
    const result = await invoke({ agent: down }, {}, { operation: 'check_in', fetcher });
    assert.deepEqual(
      result.warnings.map((warning) => warning.code),
      ['agent.not-operational'],
    );
  });
});
