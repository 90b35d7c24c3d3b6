/**
 * Crawler instance ids, which name the claims a crawler holds: the default one names this machine and process, so
 * that the claims of a crawler process that died on this machine can be taken back at once.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';

/** The default instance id: this machine, this process, and a random part for crawlers sharing a process. */
export function localInstanceId(): string {
  return `crawler:${hostname()}:${process.pid}:${randomUUID()}`;
}

/**
 * True for the default id of a crawler on this machine whose process is gone. A process id taken again by another
 * process reads as alive: its claims then wait for their lease, as any other crawler's.
 */
export function isDeadLocalCrawler(instanceId: string): boolean {
  const parts = instanceId.split(':');
  if (parts.length < 4 || parts[0] !== 'crawler') return false;
  const pid = Number(parts.at(-2));
  if (parts.slice(1, -2).join(':') !== hostname() || !Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    // EPERM: the process exists, under another user.
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
