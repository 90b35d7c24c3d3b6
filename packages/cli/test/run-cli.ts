/** Runs the built `agentry` binary as a user would: a real process with real pipes. */
import assert from 'node:assert/strict';
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const bin = join(root, 'packages/cli/bin/agentry.js');

export interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Development flags and variables are cleared unless a test sets them, so the strict defaults apply. */
const cleanEnv = { NO_COLOR: '1', AGENTRY_ALLOW_HTTP: '', AGENTRY_ALLOW_PRIVATE_NETWORK: '' };

export function agentry(args: string[], stdin?: string): Run {
  assert.ok(existsSync(bin), `build first: ${bin} is missing (npm run build)`);
  const result = spawnSync(process.execPath, [bin, ...args], {
    input: stdin ?? '',
    encoding: 'utf8',
    env: { ...process.env, ...cleanEnv },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/**
 * Like `agentry`, without blocking the event loop (needed when the test process itself serves the requests);
 * `cwd` runs it in another directory (a command's default files, such as ./agentry.db, land there).
 */
export function agentryAsync(
  args: string[],
  env: Record<string, string> = {},
  options: { cwd?: string } = {},
): Promise<Run> {
  assert.ok(existsSync(bin), `build first: ${bin} is missing (npm run build)`);
  const child = spawn(process.execPath, [bin, ...args], {
    env: { ...process.env, ...cleanEnv, ...env },
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
  });
  child.stdin.end();
  return collect(child);
}

/** A child's whole output and exit status, once it has closed (its stdin is the caller's to end). */
export function collect(child: ChildProcessWithoutNullStreams): Promise<Run> {
  return new Promise((done) => {
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('close', (status) => done({ status, stdout, stderr }));
  });
}

export interface Running {
  /** The first line the command printed, parsed as JSON (the commands' `--json` startup line). */
  ready: Record<string, unknown>;
  stderr(): string;
  /** Interrupts it (SIGINT, as Ctrl-C) and waits for the exit status. */
  stop(): Promise<number | null>;
}

/** Starts a long-running command (`host`, `serve`) with `--json` and waits for its startup line. */
export function agentryServer(args: string[], env: Record<string, string> = {}): Promise<Running> {
  assert.ok(existsSync(bin), `build first: ${bin} is missing (npm run build)`);
  return new Promise((started, failed) => {
    const child = spawn(process.execPath, [bin, ...args], { env: { ...process.env, ...cleanEnv, ...env } });
    let stdout = '';
    let stderr = '';
    const exited = new Promise<number | null>((done) => child.on('close', (status) => done(status)));
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      const newline = stdout.indexOf('\n');
      if (newline === -1) return;
      try {
        started({
          ready: JSON.parse(stdout.slice(0, newline)) as Record<string, unknown>,
          stderr: () => stderr,
          stop: () => {
            child.kill('SIGINT');
            return exited;
          },
        });
      } catch (error) {
        child.kill();
        failed(error);
      }
    });
    void exited.then((status) =>
      failed(new Error(`agentry ${args.join(' ')} exited (${status}) before starting: ${stderr}`)),
    );
  });
}
