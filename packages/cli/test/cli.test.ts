/**
 * The `agentry` binary, run as a user runs it: a real process, real files, real pipes.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { agentry, agentryAsync, root } from './run-cli.js';

const examples = join(root, 'examples/documents');
const scratch = mkdtempSync(join(tmpdir(), 'agentry-cli-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

function scratchFile(name: string, content: string): string {
  const path = join(scratch, name);
  writeFileSync(path, content);
  return path;
}

describe('agentry validate', () => {
  test('a valid document: exit 0, names the format and the agents', () => {
    const run = agentry(['validate', join(examples, 'summarizer.woa.json')]);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /Web of Agents \(WoA\) document \(woa\), valid; 2 agents: summarizer, keywords/);
  });

  test('an invalid document: exit 1, each problem with its JSON pointer and spec section', () => {
    const run = agentry(['validate', join(examples, 'broken.woa.json')]);
    assert.equal(run.status, 1);
    assert.match(run.stdout, /invalid/);
    assert.match(run.stdout, /\/agents\/0\/id .*\[WoA §4\.1\]/);
    assert.match(run.stdout, /\/transports\/rest\/base/);
    assert.match(run.stdout, /\/transports\/rest\/invoke_path/);
    assert.match(run.stdout, /grpc/);
    assert.match(run.stdout, /\/agents\/0\/inputs\/properties\/text\/type/);
  });

  test('--json prints {format, valid, agents, issues}', () => {
    const run = agentry(['validate', join(examples, 'flights.agent.json'), '--json']);
    assert.equal(run.status, 0, run.stdout);
    const out = JSON.parse(run.stdout) as Record<string, unknown>;
    assert.deepEqual(Object.keys(out), ['format', 'valid', 'agents', 'issues']);
    assert.equal(out['format'], 'awp');
    assert.equal(out['valid'], true);
    const agents = out['agents'] as Array<{ id: string; operations: Array<{ name: string }> }>;
    assert.equal(agents[0]?.id, 'flights.example.com');
    assert.deepEqual(
      agents[0]?.operations.map((op) => op.name),
      ['search_flights', 'book_flight'],
    );
  });

  test('reads standard input with -', () => {
    const text = JSON.stringify({
      name: 'Echo',
      description: 'Repeats its input.',
      operations: [
        { name: 'echo', description: 'Echo.', inputs: { type: 'object' }, outputs: { type: 'object' } },
      ],
    });
    const run = agentry(['validate', '-', '--json'], text);
    assert.equal(run.status, 0, run.stdout);
    assert.equal((JSON.parse(run.stdout) as { format: string }).format, 'aidip');
  });

  test('--format reads the document as the given format', () => {
    const run = agentry(['validate', join(examples, 'flights.agent.json'), '--format', 'woa', '--json']);
    assert.equal(run.status, 1);
    const out = JSON.parse(run.stdout) as { format: string; issues: Array<{ code: string }> };
    assert.equal(out.format, 'woa');
    assert.ok(out.issues.length > 0);
  });

  test('malformed JSON: exit 1 with the line and column', () => {
    const path = scratchFile('malformed.json', '{\n  "woa_version": "1",\n  "agents": [}\n');
    const run = agentry(['validate', path]);
    assert.equal(run.status, 1);
    assert.match(run.stdout, /Not valid JSON at line 3, column \d+/);
  });

  test('an unrecognised document: exit 1, naming every format it was checked against', () => {
    const run = agentry(['validate', '-'], '{"hello": "world"}');
    assert.equal(run.status, 1);
    for (const format of ['woa', 'awp', 'a2a', 'agent-json', 'agents-json', 'td', 'aidip', 'mcp']) {
      assert.match(run.stdout, new RegExp(`\\b${format} \\(`));
    }
  });

  test('usage and I/O errors exit 2 with a message that says what to do', () => {
    const missing = agentry(['validate', join(scratch, 'nope.json')]);
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /No such file/);
    const badFormat = agentry(['validate', join(examples, 'summarizer.woa.json'), '--format', 'yaml']);
    assert.equal(badFormat.status, 2);
    assert.match(
      badFormat.stderr,
      /Unknown format "yaml"\. Formats: woa, awp, a2a, agent-json, agents-json, td, aidip, mcp/,
    );
    const noArgs = agentry(['validate']);
    assert.equal(noArgs.status, 2);
  });
});

describe('agentry validate <url>', () => {
  let server: Server;
  let origin = '';
  const requests: string[] = [];
  before(async () => {
    const woa = readFileSync(join(examples, 'summarizer.woa.json'));
    server = createServer((request, response) => {
      requests.push(request.url ?? '');
      if (request.url === '/.well-known/woa.json') {
        response.writeHead(200, { 'content-type': 'application/woa+json' }).end(woa);
      } else response.writeHead(404).end();
    });
    await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((done) => server.close(() => done())));

  test('plain http is refused unless allowed, and the message names the flag', async () => {
    const run = await agentryAsync(['validate', `${origin}/.well-known/woa.json`]);
    assert.equal(run.status, 2);
    assert.match(run.stderr, /--allow-http/);
  });

  test('a loopback address is refused unless allowed, and the message names the flag', async () => {
    const run = await agentryAsync(['validate', `${origin}/.well-known/woa.json`, '--allow-http']);
    assert.equal(run.status, 2);
    assert.match(run.stderr, /--allow-private-network/);
  });

  test('refused requests never reach the server', () => {
    assert.deepEqual(requests, []);
  });

  test('with the development flags it fetches and validates the document', async () => {
    const run = await agentryAsync([
      'validate',
      `${origin}/.well-known/woa.json`,
      '--allow-http',
      '--allow-private-network',
      '--json',
    ]);
    assert.equal(run.status, 0, run.stderr);
    const out = JSON.parse(run.stdout) as {
      format: string;
      agents: Array<{ provenance: { sourceUrl: string } }>;
    };
    assert.equal(out.format, 'woa');
    assert.equal(out.agents[0]?.provenance.sourceUrl, `${origin}/.well-known/woa.json`);
  });

  test('the environment variables allow the same', async () => {
    const run = await agentryAsync(['validate', `${origin}/.well-known/woa.json`], {
      AGENTRY_ALLOW_HTTP: '1',
      AGENTRY_ALLOW_PRIVATE_NETWORK: '1',
    });
    assert.equal(run.status, 0, run.stderr);
  });

  test('an HTTP error status is reported', async () => {
    const run = await agentryAsync([
      'validate',
      `${origin}/missing.json`,
      '--allow-http',
      '--allow-private-network',
    ]);
    assert.equal(run.status, 2);
    assert.match(run.stderr, /404/);
  });
});

describe('agentry convert', () => {
  test('WoA → TD: the document on stdout validates; the loss report is on stderr', () => {
    const run = agentry([
      'convert',
      join(examples, 'summarizer.woa.json'),
      '--to',
      'td',
      '--agent',
      'summarizer',
      '--base-url',
      'https://agents.example.com',
    ]);
    assert.equal(run.status, 0, run.stderr);
    const td = JSON.parse(run.stdout) as { '@type': string[]; actions: Record<string, unknown> };
    assert.ok(td['@type'].includes('Thing'));
    assert.ok('default' in td.actions);
    assert.match(run.stderr, /Loss report|No losses/);
    const check = agentry(['validate', '-', '--json'], run.stdout);
    assert.equal(check.status, 0, check.stdout);
    assert.equal((JSON.parse(check.stdout) as { format: string }).format, 'td');
  });

  test('a loss report names the fields the target cannot carry', () => {
    const run = agentry([
      'convert',
      join(examples, 'flights.agent.json'),
      '--to',
      'a2a',
      '--base-url',
      'https://flights.example.com',
    ]);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stderr, /Loss report: .* cannot carry \d+ field/);
    assert.match(run.stderr, /flights\.example\.com: operations\[search_flights\]\.input/);
    assert.match(run.stderr, /surface\.entities/);
  });

  test('several agents into a single-agent format give an array; --agent picks one', () => {
    const all = agentry(['convert', join(examples, 'summarizer.woa.json'), '--to', 'aidip']);
    assert.equal(all.status, 0, all.stderr);
    const documents = JSON.parse(all.stdout) as Array<{ name: string }>;
    assert.deepEqual(
      documents.map((d) => d.name),
      ['Summarizer', 'Keyword Extractor'],
    );
    const one = agentry([
      'convert',
      join(examples, 'summarizer.woa.json'),
      '--to',
      'aidip',
      '--agent',
      'keywords',
    ]);
    assert.equal((JSON.parse(one.stdout) as { name: string }).name, 'Keyword Extractor');
    const unknown = agentry([
      'convert',
      join(examples, 'summarizer.woa.json'),
      '--to',
      'aidip',
      '--agent',
      'nobody',
    ]);
    assert.equal(unknown.status, 1);
    assert.match(unknown.stderr, /No agent with id "nobody".*summarizer, keywords/);
  });

  test('an invalid input is not converted', () => {
    const run = agentry(['convert', join(examples, 'broken.woa.json'), '--to', 'td']);
    assert.equal(run.status, 1);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /cannot convert, the input is not valid/);
  });

  test('a target that needs absolute URLs asks for --base-url', () => {
    const run = agentry(['convert', join(examples, 'flights.agent.json'), '--to', 'agents-json']);
    assert.equal(run.status, 1);
    assert.match(run.stderr, /base URL|--base-url/i);
  });

  test('--json prints {format, to, document, losses, issues}', () => {
    const run = agentry(['convert', join(examples, 'flights.agent.json'), '--to', 'mcp', '--json']);
    assert.equal(run.status, 0, run.stdout);
    const out = JSON.parse(run.stdout) as { format: string; to: string; document: { tools: unknown[] } };
    assert.equal(out.format, 'awp');
    assert.equal(out.to, 'mcp');
    assert.equal(out.document.tools.length, 2);
  });

  test('--to is required and must be a known format', () => {
    assert.equal(agentry(['convert', join(examples, 'flights.agent.json')]).status, 2);
    assert.equal(agentry(['convert', join(examples, 'flights.agent.json'), '--to', 'openapi']).status, 2);
  });
});

describe('agentry --help', () => {
  test('lists the commands and exits 0', () => {
    const run = agentry(['--help']);
    assert.equal(run.status, 0);
    assert.match(run.stdout, /validate/);
    assert.match(run.stdout, /convert/);
    const convertHelp = agentry(['convert', '--help']);
    const unwrapped = convertHelp.stdout.replace(/\s+/g, ' ');
    assert.match(unwrapped, /woa, awp, a2a, agent-json, agents-json, td, aidip, mcp/);
  });
});
