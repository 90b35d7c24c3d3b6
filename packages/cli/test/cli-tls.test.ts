/**
 * HTTPS from the commands that serve: `agentry host` and `agentry serve` with `--tls-cert`/`--tls-key` (or
 * AGENTRY_TLS_CERT/AGENTRY_TLS_KEY) as a user runs them, a certificate made for the test and trusted by the client;
 * and the one-line usage errors for a certificate without its key, or files that cannot be read.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createSecureFetcher, invoke, type SecureFetcher } from '@agentry/client';
import { generate } from 'selfsigned';
import { agentryAsync, agentryServer, root } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'agentry-cli-tls-'));
const certFile = join(dir, 'cert.pem');
const keyFile = join(dir, 'key.pem');
const otherKeyFile = join(dir, 'other-key.pem');
const summarizer = join(root, 'examples/summarizer/agent.ts');
let fetcher: SecureFetcher;

before(async () => {
  const made = async () =>
    generate([{ name: 'commonName', value: '127.0.0.1' }], {
      keyType: 'ec',
      algorithm: 'sha256',
      extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
    });
  const pems = await made();
  writeFileSync(certFile, pems.cert);
  writeFileSync(keyFile, pems.private);
  writeFileSync(otherKeyFile, (await made()).private);
  // The client trusts this certificate only: the connection is verified, not waved through.
  fetcher = createSecureFetcher({ ca: pems.cert, allowPrivateNetwork: true, cache: false });
});

after(async () => {
  await fetcher.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Starts a command and returns the first `count` lines it prints, then interrupts it (its exit status too). */
function firstLines(args: string[], count: number): Promise<{ lines: string[]; status: number | null }> {
  return new Promise((done, failed) => {
    const child = spawn(process.execPath, [join(root, 'packages/cli/bin/agentry.js'), ...args], {
      env: { ...process.env, NO_COLOR: '1', AGENTRY_ADMIN_TOKEN: '' },
    });
    let stdout = '';
    let stderr = '';
    let lines: string[] | undefined;
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      const complete = stdout.split('\n').slice(0, -1);
      if (lines === undefined && complete.length >= count) {
        lines = complete.slice(0, count);
        child.kill('SIGINT');
      }
    });
    child.on('close', (status) => {
      if (lines === undefined)
        failed(new Error(`exited ${status} before printing ${count} lines: ${stderr}`));
      else done({ lines, status });
    });
  });
}

describe('agentry host --tls-cert --tls-key', () => {
  test('serves HTTPS: the printed URLs say https, and a client that trusts the certificate calls the agent', async () => {
    const host = await agentryServer([
      'host',
      summarizer,
      '--port',
      '0',
      '--json',
      '--tls-cert',
      certFile,
      '--tls-key',
      keyFile,
    ]);
    try {
      assert.match(String(host.ready['url']), /^https:\/\/127\.0\.0\.1:\d+$/);
      assert.equal(host.ready['baseUrl'], host.ready['url']);
      const result = await invoke(
        `${host.ready['baseUrl']}/.well-known/woa.json`,
        { text: 'Over TLS. Verified.', max_words: 10 },
        { fetcher },
      );
      assert.deepEqual(result.output, { summary: 'Over TLS. Verified.' });
    } finally {
      assert.equal(await host.stop(), 0);
    }
  });

  test('the human-readable lines name https URLs', async () => {
    const { lines, status } = await firstLines(
      ['host', summarizer, '--port', '0', '--tls-cert', certFile, '--tls-key', keyFile],
      3,
    );
    assert.match(lines[0]!, /^agentry: hosting summarizer at https:\/\/127\.0\.0\.1:\d+$/);
    assert.match(lines[1]!, /documents {2}https:\/\/127\.0\.0\.1:\d+\/\.well-known\/woa\.json/);
    assert.equal(status, 0);
  });
});

describe('agentry serve with AGENTRY_TLS_CERT and AGENTRY_TLS_KEY', () => {
  test('serves the registry over HTTPS and says so', async () => {
    const env = { AGENTRY_TLS_CERT: certFile, AGENTRY_TLS_KEY: keyFile, AGENTRY_ADMIN_TOKEN: '' };
    const args = ['serve', '--port', '0', '--db', join(dir, 'registry.db'), '--embeddings', 'none'];
    const registry = await agentryServer([...args, '--json'], env);
    try {
      assert.match(String(registry.ready['url']), /^https:\/\/127\.0\.0\.1:\d+$/);
      const { response } = await fetcher.fetch(`${registry.ready['url']}/openapi.json`);
      assert.equal(response.status, 200);
      assert.equal(typeof ((await response.json()) as { openapi?: unknown }).openapi, 'string');
    } finally {
      assert.equal(await registry.stop(), 0);
    }
    const { lines } = await firstLines([...args, '--tls-cert', certFile, '--tls-key', keyFile], 1);
    assert.match(lines[0]!, /^agentry: registry at https:\/\/127\.0\.0\.1:\d+ /);
  });
});

describe('TLS usage errors: one line naming the flag, exit 2', () => {
  const cases: { name: string; args: string[]; env?: Record<string, string>; message: RegExp }[] = [
    {
      name: 'a certificate without a key',
      args: ['--tls-cert', certFile],
      message: /^agentry: --tls-cert needs a private key: pass --tls-key <pem>/,
    },
    {
      name: 'a key without a certificate (from the environment)',
      args: [],
      env: { AGENTRY_TLS_KEY: keyFile },
      message: /^agentry: AGENTRY_TLS_KEY needs a certificate: pass --tls-cert <pem>/,
    },
    {
      name: 'an unreadable certificate file',
      args: ['--tls-cert', join(dir, 'missing.pem'), '--tls-key', keyFile],
      message: /^agentry: --tls-cert: cannot read .*missing\.pem \(ENOENT\)/,
    },
    {
      name: 'a key that is not the certificate’s',
      args: ['--tls-cert', certFile, '--tls-key', otherKeyFile],
      message: /^agentry: --tls-cert .* and --tls-key .* are not a PEM certificate and its private key/,
    },
  ];
  for (const command of [
    ['host', summarizer, '--port', '0'],
    ['serve', '--port', '0', '--db', join(dir, 'unused.db'), '--embeddings', 'none'],
  ]) {
    for (const { name, args, env, message } of cases) {
      test(`agentry ${command[0]}: ${name}`, async () => {
        const run = await agentryAsync([...command, ...args], env);
        assert.equal(run.status, 2, run.stderr);
        assert.match(run.stderr, message);
        assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
      });
    }
  }
});
