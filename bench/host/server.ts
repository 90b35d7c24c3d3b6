/**
 * One side of bench/host, in its own process so the load generator does not share its event loop:
 *   `host`  — an @agentry/host echo agent (schema-validated input and output), served by serveNode;
 *   `bare`  — a bare Node `http` server that reads the same envelope and answers the same JSON.
 * Prints the URL to call on its first stdout line; answers `cpu` messages (IPC) with its CPU usage.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHost, defineAgent } from '@agentry/host';
import { serveNode } from '@agentry/host/node';

const mode = process.argv[2];
// Exit cleanly on SIGTERM, so --cpu-prof runs write their profile.
process.on('SIGTERM', () => process.exit(0));
// run.ts asks for this process's CPU time around each round, to report CPU per request.
process.on('message', (message) => {
  if (message === 'cpu') process.send?.(process.cpuUsage());
});
// The IPC channel goes when run.ts does: so does this server.
process.on('disconnect', () => process.exit(0));

if (mode === 'bare') {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const envelope = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { input: unknown };
      const body = JSON.stringify(envelope.input);
      response.writeHead(200, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      });
      response.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`http://127.0.0.1:${port}/agents/echo/invoke\n`);
} else if (mode === 'host') {
  const echo = defineAgent({
    id: 'echo',
    name: 'Echo',
    description: 'Answers with its input.',
    version: '1.0.0',
    operations: {
      echo: {
        description: 'Echo the message.',
        input: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
        output: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
        handler: (input) => input,
      },
    },
  });
  // Rate limits and idempotency stay at their defaults: the bench measures the host as users get it.
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  await serveNode(createHost({ agents: [echo], baseUrl }), { server });
  process.stdout.write(`${baseUrl}/agents/echo/invoke\n`);
} else {
  process.stderr.write('usage: server.ts host|bare\n');
  process.exit(2);
}
