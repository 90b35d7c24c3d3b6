/**
 * Bounds and failures: the response size is capped while reading (declared or not, the stream cut off), the whole
 * exchange is bounded in time (a server that drips bytes is cut off like one that never answers), and connection
 * and DNS failures surface as NetworkErrors.
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { FetchTimeoutError, NetworkError, ResponseTooLargeError } from '../src/fetch/errors.js';
import { createSecureFetcher } from '../src/fetch/secure-fetch.js';
import type { FetchPolicy, SecureFetcher } from '../src/fetch/types.js';
import { type LoopbackServer, reply, startLoopback, tableLookup } from './fetch-support.js';

const KIB = 1024;

describe('limits and failures', () => {
  let server: LoopbackServer;
  const fetchers: SecureFetcher[] = [];
  const endless = new Set<ServerResponse>();
  const cutOff: string[] = [];
  const timers = new Set<ReturnType<typeof setInterval>>();

  const fetcher = (policy: FetchPolicy = {}): SecureFetcher => {
    const created = createSecureFetcher({
      allowHttp: true,
      allowPrivateNetwork: true,
      cache: false,
      ...policy,
    });
    fetchers.push(created);
    return created;
  };

  /** Writes `chunk` every tick until the client goes away, recording that it did. */
  const drip = (response: ServerResponse, path: string, chunk: string, everyMs: number): void => {
    endless.add(response);
    const timer = setInterval(() => response.write(chunk), everyMs);
    timers.add(timer);
    response.on('close', () => {
      clearInterval(timer);
      timers.delete(timer);
      endless.delete(response);
      cutOff.push(path);
    });
  };

  before(async () => {
    server = await startLoopback((request, response) => {
      const path = request.url ?? '/';
      if (path === '/declared-large') {
        reply(response, 200, { 'content-length': String(64 * KIB) }, 'x'.repeat(64 * KIB));
      } else if (path === '/exactly-16k') {
        reply(response, 200, {}, 'y'.repeat(16 * KIB));
      } else if (path === '/endless') {
        response.writeHead(200, { 'content-type': 'application/octet-stream' });
        drip(response, path, 'z'.repeat(4 * KIB), 1);
      } else if (path === '/drip') {
        response.writeHead(200, { 'content-type': 'text/plain' });
        drip(response, path, '.', 20);
      } else if (path === '/no-answer') {
        endless.add(response);
        response.on('close', () => endless.delete(response));
      } else if (path === '/slow-stream') {
        response.writeHead(200, { 'content-type': 'application/x-ndjson' });
        response.write('{"n":1}\n');
        setTimeout(() => response.end('{"n":2}\n'), 300);
      } else if (path === '/empty') {
        reply(response, 204, {});
      } else {
        reply(response, 200, { 'content-type': 'text/plain' }, 'small');
      }
    });
  });

  after(async () => {
    await Promise.all(fetchers.map((each) => each.close()));
    for (const timer of timers) clearInterval(timer);
    for (const response of endless) response.destroy();
    await server.close();
  });

  it('refuses a declared Content-Length over the limit', async () => {
    await assert.rejects(
      fetcher({ maxResponseBytes: 16 * KIB }).fetch(`${server.origin}/declared-large`),
      (error: unknown) => {
        assert.ok(error instanceof ResponseTooLargeError);
        assert.equal(error.limitBytes, 16 * KIB);
        assert.match(error.message, /maxResponseBytes/);
        return true;
      },
    );
  });

  it('accepts a body of exactly the limit', async () => {
    const result = await fetcher({ maxResponseBytes: 16 * KIB }).fetch(`${server.origin}/exactly-16k`);
    assert.equal((await result.response.text()).length, 16 * KIB);
  });

  it('cuts off an endless body without Content-Length once it passes the limit', async () => {
    await assert.rejects(
      fetcher({ maxResponseBytes: 64 * KIB }).fetch(`${server.origin}/endless`),
      ResponseTooLargeError,
    );
    await waitUntil(() => cutOff.includes('/endless'));
  });

  it('lets a request lower or raise the limit', async () => {
    const generous = fetcher({ maxResponseBytes: 4 * KIB });
    await assert.rejects(generous.fetch(`${server.origin}/exactly-16k`), ResponseTooLargeError);
    const result = await generous.fetch(`${server.origin}/exactly-16k`, { maxResponseBytes: 16 * KIB });
    assert.equal(result.response.status, 200);
    await assert.rejects(
      fetcher().fetch(`${server.origin}/small`, { maxResponseBytes: 2 }),
      ResponseTooLargeError,
    );
  });

  it('gives up on a server that drips bytes, with a FetchTimeoutError', async () => {
    await assert.rejects(fetcher({ timeoutMs: 300 }).fetch(`${server.origin}/drip`), (error: unknown) => {
      assert.ok(error instanceof FetchTimeoutError, String(error));
      assert.match(error.message, /300 ms/);
      return true;
    });
    await waitUntil(() => cutOff.includes('/drip'));
  });

  it('gives up on a server that never answers', async () => {
    await assert.rejects(
      fetcher().fetch(`${server.origin}/no-answer`, { timeoutMs: 200 }),
      FetchTimeoutError,
    );
  });

  it('counts a DNS lookup that never answers against the time limit', async () => {
    const hanging = async () => new Promise<never>(() => undefined);
    await assert.rejects(
      fetcher({ lookup: hanging, timeoutMs: 200 }).fetch('http://slow-dns.test/'),
      FetchTimeoutError,
    );
  });

  it('stops the clock for a stream once its headers arrived: the reader bounds it', async () => {
    const result = await fetcher({ timeoutMs: 150 }).fetch(`${server.origin}/slow-stream`, {
      responseType: 'stream',
    });
    assert.equal(await result.response.text(), '{"n":1}\n{"n":2}\n');
  });

  it('does not bound a stream in size', async () => {
    const controller = new AbortController();
    const result = await fetcher({ maxResponseBytes: 8 * KIB }).fetch(`${server.origin}/endless`, {
      responseType: 'stream',
      signal: controller.signal,
    });
    const reader = result.response.body!.getReader();
    let read = 0;
    while (read <= 32 * KIB) {
      const { value, done } = await reader.read();
      assert.equal(done, false);
      read += value!.byteLength;
    }
    controller.abort();
    await reader.cancel().catch(() => undefined);
  });

  it('passes on the caller abort reason', async () => {
    const controller = new AbortController();
    const fetching = fetcher().fetch(`${server.origin}/no-answer`, { signal: controller.signal });
    controller.abort(new Error('caller gave up'));
    await assert.rejects(fetching, /caller gave up/);
  });

  it('reports a refused connection as a NetworkError', async () => {
    const gone = await startLoopback(() => undefined);
    const port = gone.port;
    await gone.close();
    await assert.rejects(fetcher().fetch(`http://127.0.0.1:${port}/`), (error: unknown) => {
      assert.ok(error instanceof NetworkError, String(error));
      assert.match(error.message, /ECONNREFUSED/);
      return true;
    });
  });

  it('tries the next checked address when one refuses the connection', async () => {
    const gone = await startLoopback(() => undefined, { host: '::1' }).catch(() => undefined);
    if (gone === undefined) return;
    const port = gone.port;
    await gone.close();
    // The name's first address refuses; the second is the server (bound to a port free on ::1 when checked).
    const live = await startLoopback((_request, response) => reply(response, 200, {}, 'second address'), {
      port,
    }).catch(() => undefined);
    if (live === undefined) return;
    try {
      const lookup = tableLookup({ 'two.test': ['::1', '127.0.0.1'] });
      const result = await fetcher({ lookup }).fetch(`http://two.test:${port}/`);
      assert.equal(await result.response.text(), 'second address');
    } finally {
      await live.close();
    }
  });

  it('reports a name that does not resolve as a NetworkError', async () => {
    await assert.rejects(
      fetcher({ lookup: tableLookup({}) }).fetch('https://nowhere.test/'),
      (error: unknown) => {
        assert.ok(error instanceof NetworkError);
        assert.match(error.message, /Cannot resolve nowhere\.test: ENOTFOUND/);
        return true;
      },
    );
  });

  it('answers HEAD and 204 without a body', async () => {
    const head = await fetcher().fetch(`${server.origin}/small`, { method: 'HEAD' });
    assert.equal(head.response.status, 200);
    assert.equal(await head.response.text(), '');
    const empty = await fetcher().fetch(`${server.origin}/empty`);
    assert.equal(empty.response.status, 204);
    assert.equal(empty.response.body, null);
  });

  it('refuses to fetch once closed', async () => {
    const closing = fetcher();
    await closing.close();
    await assert.rejects(closing.fetch(`${server.origin}/small`), /closed/);
  });
});

/** Waits (without a time assertion) until the server has seen the client go away. */
async function waitUntil(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}
