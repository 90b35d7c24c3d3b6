/** The Host and Origin policy on its own: which names a host answers to and which pages may call it. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { hostEntry, originEntry, requestOriginPolicy } from '../../src/policies/request-origin.js';

const publicHost = requestOriginPolicy({
  baseUrl: 'https://agents.example',
  allowedHosts: ['alias.example:8443'],
  allowedOrigins: ['https://app.example'],
});
const loopbackHost = requestOriginPolicy({ baseUrl: 'http://127.0.0.1:8080' });

test('Host: the base URL host at any port, named aliases, loopback names for a loopback base; nothing else', () => {
  for (const host of [
    'agents.example',
    'AGENTS.example:443',
    'agents.example.',
    'alias.example:8443',
    null,
  ]) {
    assert.equal(publicHost.hostRefusal(host), undefined, String(host));
  }
  for (const host of ['evil.example', 'alias.example', 'localhost', '127.0.0.1', 'agents.example@evil', '']) {
    assert.equal(publicHost.hostRefusal(host)?.code, 'HostNotAllowed', host);
  }
  for (const host of ['127.0.0.1:8080', 'localhost:8080', '[::1]:8080', 'LOCALHOST']) {
    assert.equal(loopbackHost.hostRefusal(host), undefined, host);
  }
  assert.equal(loopbackHost.hostRefusal('evil.example:8080')?.status, 403);
  assert.deepEqual(loopbackHost.hosts, ['127.0.0.1', 'localhost', '[::1]']);
  assert.equal(
    requestOriginPolicy({ baseUrl: 'https://a.example', allowedHosts: ['*'] }).hostRefusal('x.y'),
    undefined,
  );
});

test('Origin: programs, the host’s own pages and allowed sites; scheme, name and port must all match', () => {
  const allowed: [string | null, string][] = [
    [null, 'agents.example'],
    ['https://agents.example', 'agents.example'],
    ['https://app.example', 'agents.example'],
    ['https://alias.example:8443', 'alias.example:8443'],
  ];
  for (const [origin, host] of allowed)
    assert.equal(publicHost.originRefusal(origin, host), undefined, String(origin));
  const refused: [string, string][] = [
    ['http://agents.example', 'agents.example'],
    ['https://agents.example:8443', 'agents.example'],
    ['http://app.example', 'agents.example'],
    ['https://app.example.evil', 'agents.example'],
    ['https://evil.example', 'agents.example'],
    ['null', 'agents.example'],
    ['', 'agents.example'],
  ];
  for (const [origin, host] of refused) {
    assert.equal(publicHost.originRefusal(origin, host)?.code, 'OriginNotAllowed', origin);
  }
  // A loopback host's page reached as localhost is its own; the https page of the same name is not.
  assert.equal(loopbackHost.originRefusal('http://localhost:8080', 'localhost:8080'), undefined);
  assert.equal(loopbackHost.originRefusal('https://localhost:8080', 'localhost:8080')?.status, 403);
  assert.equal(loopbackHost.originRefusal('http://localhost:3000', 'localhost:8080')?.status, 403);
  const anyPage = requestOriginPolicy({ baseUrl: 'http://127.0.0.1:8080', allowedOrigins: ['*'] });
  assert.equal(anyPage.originRefusal('https://evil.example', 'localhost:8080'), undefined);
});

test('refusals name the CLI flag and the library option', () => {
  assert.match(publicHost.hostRefusal('evil.example')?.detail ?? '', /--allowed-host .*allowedHosts/);
  assert.match(
    publicHost.originRefusal('https://evil.example', 'agents.example')?.detail ?? '',
    /--allowed-origin .*allowedOrigins/,
  );
});

test('entries are normalised, and unreadable ones stop the host at start', () => {
  assert.equal(hostEntry(' Agents.Example:08443 '), 'agents.example:8443');
  assert.equal(hostEntry('[::1]'), '[::1]');
  assert.equal(hostEntry('https://agents.example'), undefined);
  assert.equal(hostEntry('agents.example/path'), undefined);
  assert.equal(originEntry('https://App.example:443/'), 'https://app.example');
  assert.equal(originEntry('app.example'), undefined);
  assert.equal(originEntry('https://app.example/path'), undefined);
  assert.throws(
    () => requestOriginPolicy({ baseUrl: 'https://a.example', allowedHosts: ['https://b.example'] }),
    /allowedHosts: "https:\/\/b.example" cannot be read/,
  );
  assert.throws(
    () => requestOriginPolicy({ baseUrl: 'https://a.example', allowedOrigins: ['b.example'] }),
    /allowedOrigins: "b.example" cannot be read/,
  );
});

test('a Host or an Origin naming any other site is refused (property)', () => {
  fc.assert(
    fc.property(
      fc.domain(),
      fc.constantFrom('http', 'https'),
      fc.option(fc.integer({ min: 1, max: 65535 })),
      (domain, scheme, port) => {
        fc.pre(!['agents.example', 'alias.example', 'app.example'].includes(domain.toLowerCase()));
        const host = port === null ? domain : `${domain}:${port}`;
        assert.equal(publicHost.hostRefusal(host)?.status, 403);
        assert.equal(publicHost.originRefusal(`${scheme}://${host}`, 'agents.example')?.status, 403);
        // Even when a rebinding page sends Origin equal to Host, the Host is refused first.
        assert.equal(loopbackHost.hostRefusal(host)?.status, 403);
      },
    ),
    { seed: 20, numRuns: 300 },
  );
});
