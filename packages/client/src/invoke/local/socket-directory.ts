/**
 * The local socket directory: agents running in other processes on this machine listen on
 * `<dir>/<name>.sock` (HTTP over a unix socket), where `<dir>` is `$AGENTRY_LOCAL_DIR` or `<tmpdir>/agentry`.
 */
import { stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function localSocketDirectory(): string {
  const configured = process.env['AGENTRY_LOCAL_DIR'];
  return configured !== undefined && configured !== '' ? configured : join(tmpdir(), 'agentry');
}

/** The socket path of local agent `name` (which the caller has checked is a valid local name). */
export function localSocketPath(name: string): string {
  return join(localSocketDirectory(), `${name}.sock`);
}

export async function isSocket(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isSocket();
  } catch {
    return false;
  }
}
