/**
 * `agentry serve` shutting down gracefully, as a real process on loopback: on SIGTERM it stops accepting
 * connections at once, lets a request in flight finish with its answer, then closes the database and exits 0;
 * `--shutdown-timeout` is checked as a usage error.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { agentry, collect, root } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'agentry-cli-shutdown-'));
const bin = join(root, 'packages/cli/bin/agentry.js');

after(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Whether a new TCP connection to `port` on loopback is refused. */
function refused(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      done(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => done(error.code === 'ECONNREFUSED'));
  });
}

function bodyOf(response: IncomingMessage): Promise<string> {
  return new Promise((done, failed) => {
    let text = '';
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => {
      text += chunk;
    });
    response.on('end', () => done(text));
    response.on('error', failed);
  });
}

describe('agentry serve: graceful shutdown', () => {
  test('SIGTERM: a request in flight is answered 200, new connections are refused, the exit status is 0', async () => {
    const child = spawn(
      process.execPath,
      [bin, 'serve', '--json', '--port', '0', '--db', join(dir, 'registry.db'), '--embeddings', 'none'],
      { env: { ...process.env, NO_COLOR: '1', AGENTRY_ADMIN_TOKEN: '', AGENTRY_DB: '' } },
    );
    child.stdin.end();
    const exited = collect(child);
    const firstLine = await new Promise<string>((done, failed) => {
      let stdout = '';
      const onData = (chunk: Buffer) => {
        stdout += chunk.toString('utf8');
        const newline = stdout.indexOf('\n');
        if (newline === -1) return;
        child.stdout.off('data', onData);
        done(stdout.slice(0, newline));
      };
      child.stdout.on('data', onData);
      void exited.then((run) =>
        failed(new Error(`serve exited (${run.status}) before starting: ${run.stderr}`)),
      );
    });
    const url = new URL(String((JSON.parse(firstLine) as { url: string }).url));
    const port = Number(url.port);

    const ready = await fetch(new URL('/readyz', url));
    assert.equal(ready.status, 200);
    assert.deepEqual(
      { ...((await ready.json()) as Record<string, unknown>), version: 'v' },
      { status: 'ready', database: 'ok', version: 'v' },
    );

    // A search whose body is still on its way: `Expect: 100-continue` makes the server say (100 Continue) that it
    // has the request and is handling it, so the request is in flight when SIGTERM arrives.
    const body = JSON.stringify({ query: 'translate text into Chinese' });
    const inFlight = httpRequest({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/agents/search',
      headers: {
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        expect: '100-continue',
      },
    });
    const answered = new Promise<IncomingMessage>((done, failed) => {
      inFlight.once('response', done);
      inFlight.once('error', failed);
    });
    await new Promise<void>((done) => inFlight.once('continue', () => done()));

    child.kill('SIGTERM');
    // The listening socket closes at once: poll until a new connection is refused.
    while (!(await refused(port))) await new Promise((resolve) => setTimeout(resolve, 20));

    inFlight.end(body);
    const response = await answered;
    assert.equal(response.statusCode, 200);
    // The registry is empty: the search finds nothing, and says so.
    assert.deepEqual(JSON.parse(await bodyOf(response)), []);

    const run = await exited;
    assert.equal(run.status, 0, run.stderr);
    assert.equal(await refused(port), true);
  });

  test('--shutdown-timeout must be a number of seconds', () => {
    const run = agentry(['serve', '--shutdown-timeout', 'soon', '--db', join(dir, 'unused.db')]);
    assert.equal(run.status, 2, run.stderr);
    assert.match(run.stderr, /--shutdown-timeout must be a number of seconds/);
  });
});
