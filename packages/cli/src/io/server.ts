/** Long-running commands (`host`, `serve`): ports, listening, and running until interrupted. */
import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { UsageError } from './errors.js';
import type { TlsFiles } from './tls.js';

export function parsePort(text: string, option = '--port'): number {
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`${option} must be 0–65535, not "${text}"`);
  return port;
}

/**
 * A Node server already listening, and its `http://address:port` (`https://` with `tls`): hosts build their
 * documents for a base URL, which with port 0 is only known once the server listens.
 */
export async function listeningServer(
  port: number,
  hostname: string,
  tls?: TlsFiles,
): Promise<{ server: Server; url: string }> {
  // Node's https.Server serves requests as an http.Server does; the host and the registry take either.
  const server = tls === undefined ? createServer() : (createHttpsServer(tls) as unknown as Server);
  const scheme = tls === undefined ? 'http' : 'https';
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(listenError(error, port, hostname)));
    server.listen(port, hostname, () => resolve());
  });
  const address = server.address();
  const url =
    typeof address === 'object' && address !== null
      ? `${scheme}://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`
      : `${scheme}://${hostname}:${port}`;
  return { server, url };
}

/** Why a server could not listen, as a usage error naming the flag to change when it is one; else `error` itself. */
function listenError(error: NodeJS.ErrnoException, port: number, hostname: string): Error {
  switch (error.code) {
    case 'EADDRINUSE':
      return new UsageError(`port ${port} is in use on ${hostname}: pick another with --port`);
    case 'EACCES':
      return new UsageError(
        `port ${port} on ${hostname} needs privileges this user lacks: pick another with --port`,
      );
    case 'EADDRNOTAVAIL':
      return new UsageError(
        `--hostname ${hostname} is not an address of this machine: pass one of its own (127.0.0.1, 0.0.0.0 for all)`,
      );
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new UsageError(
        `--hostname ${hostname} does not resolve to an address: pass an address of this machine (127.0.0.1, 0.0.0.0 for all)`,
      );
    default:
      return error;
  }
}

/** Resolves on the first SIGINT or SIGTERM, so the command can close its servers and database cleanly. */
export function untilInterrupted(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
