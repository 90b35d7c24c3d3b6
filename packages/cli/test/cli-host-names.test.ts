/**
 * `agentry host --allowed-host / --allowed-origin` as a user runs it: requests naming another host, and calls from
 * pages of other sites, are refused with a 403 that names the flag; the names and origins given are served.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { type IncomingMessage, request } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { agentryAsync, agentryServer, type Running, root } from './run-cli.js';

const summarizer = join(root, 'examples/summarizer/agent.ts');

/** A call through node:http, which (unlike fetch) sends the `Host` it is given, as a browser on a rebound name does. */
async function call(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const outgoing = request(`${url}/agents/summarizer/invoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
  });
  outgoing.end(JSON.stringify({ operation: 'default', input: { text: 'Names matter.', max_words: 10 } }));
  const [incoming] = (await once(outgoing, 'response')) as [IncomingMessage];
  let body = '';
  for await (const chunk of incoming) body += chunk;
  return { status: incoming.statusCode ?? 0, body };
}

describe('agentry host --allowed-host --allowed-origin', () => {
  let host: Running;
  let url: string;
  before(async () => {
    host = await agentryServer([
      'host',
      summarizer,
      '--port',
      '0',
      '--json',
      '--allowed-host',
      'agents.example',
      '--allowed-host',
      'alias.example:8443',
      '--allowed-origin',
      'https://app.example',
    ]);
    url = String(host.ready['url']);
  });
  after(async () => {
    assert.equal(await host.stop(), 0);
  });

  test('serves its own address and the names and origins given', async () => {
    const own = await call(url, {});
    assert.equal(own.status, 200, own.body);
    assert.equal((await call(url, { host: 'agents.example', origin: 'https://app.example' })).status, 200);
    assert.equal((await call(url, { host: 'alias.example:8443' })).status, 200);
  });

  test('refuses other names and origins with a 403 that names the flag to pass', async () => {
    const rebound = await call(url, { host: 'rebound.example', origin: 'http://rebound.example' });
    assert.equal(rebound.status, 403);
    assert.match(rebound.body, /"code":"HostNotAllowed"/);
    assert.match(rebound.body, /agentry host --allowed-host/);
    assert.equal((await call(url, { host: 'alias.example' })).status, 403, 'only at the port given');
    const page = await call(url, { origin: 'http://app.example' });
    assert.equal(page.status, 403, 'the other scheme is another origin');
    assert.match(page.body, /agentry host --allowed-origin/);
  });
});

test('an --allowed-host or --allowed-origin that cannot be read is a usage error naming the flag', async () => {
  const host = await agentryAsync([
    'host',
    summarizer,
    '--port',
    '0',
    '--allowed-host',
    'https://agents.example',
  ]);
  assert.equal(host.status, 2);
  assert.match(
    host.stderr,
    /^agentry: --allowed-host "https:\/\/agents.example" cannot be read: write it as/,
  );
  const origin = await agentryAsync(['host', summarizer, '--port', '0', '--allowed-origin', 'app.example']);
  assert.equal(origin.status, 2);
  assert.match(
    origin.stderr,
    /^agentry: --allowed-origin "app.example" cannot be read: write it as https:\/\//,
  );
});
