/**
 * The bench's fleet: one loopback HTTP server standing in for any number of origins (`o<N>.bench.test`, told apart
 * by the Host header), each serving a WoA document, an A2A card and an MCP projection with validators and
 * `max-age=300`, answering 304 to a matching If-None-Match, and 404 for every other path. Run as a child process
 * so that it has a core of its own; prints its port on stdout, then answers each `cpu` line on stdin with its CPU
 * time in milliseconds, so that the bench can tell when the fleet, not the crawler, was the limit.
 *
 * Each origin's bodies and validators are made once and kept: real origins have cores of their own, and a fleet
 * that rebuilt and hashed a body for every request (304s included) would share one core's worth of that work among
 * ten thousand of them.
 */
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { convertDocument, type JsonObject } from '@agentry/core';

const HOST = 'origin-placeholder.bench.test';

function templates(): Map<string, string> {
  const woa: JsonObject = {
    woa_version: '1',
    agents: [
      {
        id: 'summarizer',
        name: 'Summarizer',
        description: 'Turns a long text into a short summary.',
        capabilities: ['summarization'],
        inputs: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
        outputs: { type: 'object', properties: { summary: { type: 'string' } } },
        transports: ['rest'],
      },
    ],
    transports: { rest: { base: `https://${HOST}`, invoke_path: '/agents/{agent_id}/invoke' } },
  };
  const emit = (format: 'a2a' | 'mcp'): string => {
    const document = convertDocument(woa, format, { baseUrl: `https://${HOST}` }).output?.document;
    return JSON.stringify(Array.isArray(document) ? document[0] : document);
  };
  return new Map([
    ['/.well-known/woa.json', JSON.stringify(woa)],
    ['/.well-known/agent-card.json', emit('a2a')],
    ['/capabilities', emit('mcp')],
  ]);
}

const documents = templates();
const NOT_FOUND = JSON.stringify({ title: 'Not Found', status: 404 });

interface Served {
  body: string;
  etag: string;
}
const served = new Map<string, Served>();

function servedFor(host: string, path: string, template: string): Served {
  const key = `${host}${path}`;
  let entry = served.get(key);
  if (entry === undefined) {
    const body = template.replaceAll(HOST, host);
    entry = { body, etag: `"${createHash('sha1').update(body).digest('base64url')}"` };
    served.set(key, entry);
  }
  return entry;
}

const server = createServer((request, response) => {
  const host = (request.headers.host ?? '').replace(/:\d+$/, '');
  const path = request.url ?? '/';
  const template = documents.get(path);
  if (template === undefined) {
    response.writeHead(404, { 'content-type': 'application/problem+json', 'cache-control': 'max-age=3600' });
    response.end(NOT_FOUND);
    return;
  }
  const { body, etag } = servedFor(host, path, template);
  if (request.headers['if-none-match'] === etag) {
    response.writeHead(304, { etag, 'cache-control': 'max-age=300' });
    response.end();
    return;
  }
  response.writeHead(200, { 'content-type': 'application/json', etag, 'cache-control': 'max-age=300' });
  response.end(body);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${(server.address() as AddressInfo).port}\n`);
});
process.on('disconnect', () => server.close());
process.stdin.on('end', () => process.exit(0));
createInterface({ input: process.stdin }).on('line', (line) => {
  if (line.trim() !== 'cpu') return;
  const usage = process.cpuUsage();
  process.stdout.write(`${Math.round((usage.user + usage.system) / 1000)}\n`);
});
