/**
 * Hosts on unix sockets, as `agent+unix://` and `agent+local://` clients call them: serveNode on a socket path, and
 * our client posting the envelope to `/invoke` over it.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { invoke, OperationNotFoundError } from '@agentry/client';
import { summarizer } from '../../../examples/summarizer/agent.js';
import { createHost } from '../src/index.js';
import { type NodeServer, serveNode } from '../src/node.js';

const dir = mkdtempSync(join(tmpdir(), 'agentry-sock-'));
const previousLocalDir = process.env['AGENTRY_LOCAL_DIR'];
let unixServer: NodeServer;
let localServer: NodeServer;

before(async () => {
  const host = createHost({ agents: [summarizer], baseUrl: 'http://localhost' });
  // The client names the agent in the envelope after the socket file.
  mkdirSync(join(dir, 'unix'));
  unixServer = await serveNode(host, { path: join(dir, 'unix', 'summarizer.sock') });
  // agent+local://summarizer is <AGENTRY_LOCAL_DIR>/summarizer.sock.
  process.env['AGENTRY_LOCAL_DIR'] = dir;
  localServer = await serveNode(createHost({ agents: [summarizer], baseUrl: 'http://localhost' }), {
    path: join(dir, 'summarizer.sock'),
  });
});

after(async () => {
  await unixServer.close();
  await localServer.close();
  if (previousLocalDir === undefined) delete process.env['AGENTRY_LOCAL_DIR'];
  else process.env['AGENTRY_LOCAL_DIR'] = previousLocalDir;
  rmSync(dir, { recursive: true, force: true });
});

describe('a host on a unix socket', () => {
  test('answers agent+unix:// calls with the envelope at /invoke', async () => {
    const socket = encodeURIComponent(join(dir, 'unix', 'summarizer.sock'));
    const result = await invoke(
      `agent+unix://${socket}/invoke`,
      { text: 'Sockets work. Too.', max_words: 10 },
      {
        operation: 'default',
        resolve: { staticMap: {} },
      },
    );
    assert.deepEqual(result.output, { summary: 'Sockets work. Too.' });
  });

  test('answers agent+local:// calls by name', async () => {
    const result = await invoke('agent+local://summarizer/default', {
      text: 'Local agents answer.',
      max_words: 10,
    });
    assert.deepEqual(result.output, { summary: 'Local agents answer.' });
  });

  test('an unknown operation over the socket is an OperationNotFoundError', async () => {
    await assert.rejects(
      invoke('agent+local://summarizer/translate', { text: 'x' }),
      (error: unknown) => error instanceof OperationNotFoundError,
    );
  });
});
