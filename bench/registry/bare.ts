/**
 * The baseline for `GET /agents/{id}`: a bare node:http server answering the same JSON bodies the registry gave,
 * from memory, in its own process. Reads `{id: body}` from the file named by argv[2]; prints `READY {url}`.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const bodies = new Map(
  Object.entries(JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as Record<string, string>),
);
const server = createServer((request, response) => {
  const id = decodeURIComponent((request.url ?? '').replace(/^\/agents\//, '').replace(/\?.*$/, ''));
  const body = bodies.get(id);
  if (body === undefined) {
    response.writeHead(404).end();
    return;
  }
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  response.end(body);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`READY ${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`);
});
process.stdin.resume();
process.stdin.on('end', () => server.close(() => process.exit(0)));
