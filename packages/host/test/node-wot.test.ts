/**
 * The WoT ecosystem's own consumer reads our cards: node-wot (@node-wot/core with @node-wot/binding-http) fetches
 * an agent's TD AgentCard from a running host, consumes it, and invokes its actions — with input, without input,
 * and with input the host refuses. The examples' summarizer and flight agents are the agents served.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
// CommonJS packages whose named exports Node's ESM loader cannot see: take them from the default export.
import bindingHttp from '@node-wot/binding-http';
import wotCore from '@node-wot/core';
import { summarizer } from '../../../examples/summarizer/agent.js';
import { defineAgent } from '../src/index.js';
import { type RunningHost, startHost } from './support.js';

const clock = defineAgent({
  id: 'clock',
  name: 'Clock',
  description: 'Tells the time.',
  version: '1.0.0',
  operations: {
    now: {
      description: 'The current time (takes no input).',
      output: { type: 'object', properties: { iso: { type: 'string' } }, required: ['iso'] },
      safe: true,
      handler: () => ({ iso: new Date(0).toISOString() }),
    },
  },
});

const { HttpClientFactory } = bindingHttp;
const { Servient } = wotCore;

let running: RunningHost;
let servient: InstanceType<typeof Servient>;
let wot: Awaited<ReturnType<InstanceType<typeof Servient>['start']>>;

before(async () => {
  running = await startHost({ agents: [summarizer, clock] });
  servient = new Servient();
  servient.addClientFactory(new HttpClientFactory());
  wot = await servient.start();
});

after(async () => {
  await servient.shutdown();
  await running.close();
});

describe('node-wot consuming our TD AgentCards', () => {
  test('fetches the card and sees every operation as an action', async () => {
    const td = await wot.requestThingDescription(`${running.url}/agents/summarizer/card`);
    const thing = await wot.consume(td);
    const description = thing.getThingDescription();
    assert.ok(Array.isArray(description['@type']) && description['@type'].includes('Thing'));
    assert.deepEqual(Object.keys(description['actions'] ?? {}), ['default']);
  });

  test('invokes an action with input and reads its output', async () => {
    const thing = await wot.consume(
      await wot.requestThingDescription(`${running.url}/agents/summarizer/card`),
    );
    const output = await thing.invokeAction('default', {
      text: 'Things describe agents. Agents act.',
      max_words: 10,
    });
    assert.deepEqual(await output?.value(), { summary: 'Things describe agents. Agents act.' });
  });

  test('invokes an action that takes no input', async () => {
    const thing = await wot.consume(await wot.requestThingDescription(`${running.url}/agents/clock/card`));
    const output = await thing.invokeAction('now');
    assert.deepEqual(await output?.value(), { iso: '1970-01-01T00:00:00.000Z' });
  });

  test('input the host refuses is an error for the consumer, not a value', async () => {
    const thing = await wot.consume(
      await wot.requestThingDescription(`${running.url}/agents/summarizer/card`),
    );
    await assert.rejects(async () => {
      const output = await thing.invokeAction('default', { text: 42 });
      await output?.value();
    });
  });
});
