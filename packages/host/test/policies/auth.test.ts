/**
 * Authentication and authorisation: API keys, bearer JWTs (HMAC secret, inline JWKS, and a JWKS served by a
 * real loopback server), which operations need credentials, scopes, and the 400/401/403/503 answers with their
 * `WWW-Authenticate` challenges.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Agent, Operation } from '@agentry/core';
import { type CryptoKey, exportJWK, generateKeyPair, type JWK, SignJWT, UnsecuredJWT } from 'jose';
import {
  type AuthConfig,
  type AuthDecision,
  createAuthenticator,
  type Principal,
} from '../../src/policies/auth.js';

const SECRET = 'a-test-secret-that-is-long-enough-for-hs256';
const ISSUER = 'https://issuer.example';
const AUDIENCE = 'https://agents.example';

const publicOp: Operation = { name: 'search' };
const privateOp: Operation = { name: 'book', authRequired: true };

interface TokenOptions {
  claims?: Record<string, unknown>;
  issuer?: string;
  audience?: string;
  expiresIn?: string | number;
  subject?: string | null;
}

async function hmacToken(options: TokenOptions = {}, secret = SECRET): Promise<string> {
  return sign(options, { alg: 'HS256' }, new TextEncoder().encode(secret));
}

async function sign(
  options: TokenOptions,
  header: { alg: string; kid?: string },
  key: CryptoKey | Uint8Array,
) {
  const jwt = new SignJWT(options.claims ?? {})
    .setProtectedHeader(header)
    .setIssuer(options.issuer ?? ISSUER)
    .setAudience(options.audience ?? AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(options.expiresIn ?? '5m');
  if (options.subject !== null) jwt.setSubject(options.subject ?? 'client-jwt');
  return jwt.sign(key);
}

const bearer = (token: string) => new Headers({ Authorization: `Bearer ${token}` });

function expectOk(decision: AuthDecision): Principal | undefined {
  if (!decision.ok) assert.fail(`expected ok, got ${decision.problem.status}: ${decision.problem.detail}`);
  return decision.principal;
}

function expectRefused(decision: AuthDecision, status: number, code: string) {
  if (decision.ok) assert.fail(`expected ${status}, got ok`);
  assert.equal(decision.problem.status, status);
  assert.equal(decision.problem.code, code);
  return decision;
}

describe('API keys', () => {
  const auth = createAuthenticator({
    apiKeys: { 'key-alpha': { clientId: 'alpha', scopes: ['read'] }, 'key-beta': { clientId: 'beta' } },
    realm: 'flights',
  });

  it('identifies the client a valid key names', async () => {
    const principal = expectOk(await auth.authorize(new Headers({ 'X-API-Key': 'key-alpha' }), privateOp));
    assert.deepEqual(principal, { clientId: 'alpha', scopes: ['read'], via: 'api-key' });
    assert.equal(
      expectOk(await auth.authorize(new Headers({ 'x-api-key': 'key-beta' }), privateOp))?.clientId,
      'beta',
    );
  });

  it('refuses a wrong key with 401 and an ApiKey challenge, even on a public operation', async () => {
    for (const op of [privateOp, publicOp]) {
      const refused = expectRefused(
        await auth.authorize(new Headers({ 'X-API-Key': 'key-alph' }), op),
        401,
        'InvalidApiKey',
      );
      assert.equal(refused.headers.get('WWW-Authenticate'), 'ApiKey realm="flights", header="X-API-Key"');
    }
  });

  it('asks for a key when none is sent to a protected operation, and lets public ones run anonymously', async () => {
    const refused = expectRefused(await auth.authorize(new Headers(), privateOp), 401, 'AuthRequired');
    assert.equal(refused.headers.get('WWW-Authenticate'), 'ApiKey realm="flights", header="X-API-Key"');
    assert.match(refused.problem.detail ?? '', /"X-API-Key" header/);
    assert.equal(expectOk(await auth.authorize(new Headers(), publicOp)), undefined);
  });

  it('reads the configured header', async () => {
    const custom = createAuthenticator({ apiKeys: { k: { clientId: 'c' } }, apiKeyHeader: 'X-Key' });
    assert.equal(expectOk(await custom.authorize(new Headers({ 'X-Key': 'k' }), privateOp))?.clientId, 'c');
    expectRefused(await custom.authorize(new Headers({ 'X-API-Key': 'k' }), privateOp), 401, 'AuthRequired');
    assert.deepEqual(custom.schemes(), [
      {
        id: 'apiKey',
        type: 'apiKey',
        in: 'header',
        name: 'X-Key',
        description: 'An API key issued by the host, in the X-Key header.',
      },
    ]);
  });

  it('ignores a bearer token when it accepts only API keys', async () => {
    expectRefused(await auth.authorize(bearer('whatever'), privateOp), 401, 'AuthRequired');
    assert.equal(expectOk(await auth.authorize(bearer('whatever'), publicOp)), undefined);
  });
});

describe('bearer JWTs with a secret', () => {
  const auth = createAuthenticator({
    jwt: { secret: SECRET, issuer: ISSUER, audience: AUDIENCE },
    realm: 'flights',
  });

  it('identifies the subject and reads scope and scp', async () => {
    const token = await hmacToken({ claims: { scope: 'read write', scp: ['admin', 'read'] } });
    const principal = expectOk(await auth.authorize(bearer(token), privateOp));
    assert.equal(principal?.clientId, 'client-jwt');
    assert.equal(principal?.via, 'bearer');
    assert.deepEqual(principal?.scopes, ['read', 'write', 'admin']);
    assert.equal(principal?.claims?.['iss'], ISSUER);
  });

  it('falls back to client_id when there is no sub, and refuses a token naming neither', async () => {
    const withClientId = await hmacToken({ subject: null, claims: { client_id: 'svc-1' } });
    assert.equal(expectOk(await auth.authorize(bearer(withClientId), privateOp))?.clientId, 'svc-1');
    const anonymous = await hmacToken({ subject: null });
    expectRefused(await auth.authorize(bearer(anonymous), privateOp), 401, 'InvalidToken');
  });

  it('accepts the scheme name in any case', async () => {
    const token = await hmacToken();
    expectOk(await auth.authorize(new Headers({ Authorization: `bearer ${token}` }), privateOp));
  });

  const refusals: [string, () => Promise<string>, string, RegExp][] = [
    [
      'an expired token',
      () => hmacToken({ expiresIn: Math.floor(Date.now() / 1000) - 60 }),
      'TokenExpired',
      /expired/,
    ],
    ['the wrong issuer', () => hmacToken({ issuer: 'https://evil.example' }), 'InvalidToken', /iss claim/],
    [
      'the wrong audience',
      () => hmacToken({ audience: 'https://other.example' }),
      'InvalidToken',
      /aud claim/,
    ],
    [
      'a bad signature',
      () => hmacToken({}, 'another-secret-that-is-long-enough-too'),
      'InvalidToken',
      /signature/,
    ],
    ['garbage', async () => 'not-a-jwt', 'InvalidToken', /JWS/],
    ['an empty token', async () => '', 'InvalidToken', /JWS/],
    [
      'an unsecured (alg none) token',
      async () => new UnsecuredJWT({ sub: 'x' }).setIssuer(ISSUER).setAudience(AUDIENCE).encode(),
      'InvalidToken',
      /algorithm not accepted/,
    ],
  ];
  for (const [what, make, code, description] of refusals) {
    it(`refuses ${what} with 401 and an RFC 6750 invalid_token challenge, even on a public operation`, async () => {
      const token = await make();
      for (const op of [privateOp, publicOp]) {
        const refused = expectRefused(await auth.authorize(bearer(token), op), 401, code);
        const challenge = refused.headers.get('WWW-Authenticate') ?? '';
        assert.match(challenge, /^Bearer realm="flights", error="invalid_token", error_description="[^"]+"$/);
        assert.match(challenge, description);
      }
    });
  }

  it('refuses a token signed with an asymmetric key it has no key set for', async () => {
    const { privateKey } = await generateKeyPair('ES256');
    const token = await sign({}, { alg: 'ES256' }, privateKey);
    expectRefused(await auth.authorize(bearer(token), privateOp), 401, 'InvalidToken');
  });

  it('ignores credentials in a scheme it does not accept', async () => {
    const basic = new Headers({ Authorization: 'Basic dXNlcjpwYXNz' });
    expectRefused(await auth.authorize(basic, privateOp), 401, 'AuthRequired');
    assert.equal(expectOk(await auth.authorize(basic, publicOp)), undefined);
  });

  it('challenges with a bare Bearer realm when no token is sent', async () => {
    const refused = expectRefused(await auth.authorize(new Headers(), privateOp), 401, 'AuthRequired');
    assert.equal(refused.headers.get('WWW-Authenticate'), 'Bearer realm="flights"');
  });

  it('advertises an HTTP bearer JWT scheme', () => {
    assert.deepEqual(auth.schemes(), [
      {
        id: 'bearer',
        type: 'bearer',
        bearerFormat: 'JWT',
        description: 'A JWT bearer token in the Authorization header.',
      },
    ]);
  });
});

describe('scopes', () => {
  const config: AuthConfig = {
    jwt: { secret: SECRET },
    apiKeys: { 'key-reader': { clientId: 'reader', scopes: ['flights:read'] } },
    scopes: { book: ['flights:book'], audit: [] },
  };
  const auth = createAuthenticator(config);

  it('runs an operation when the principal holds the configured scopes', async () => {
    const token = await hmacToken({ claims: { scope: 'flights:book flights:read' } });
    expectOk(await auth.authorize(bearer(token), { name: 'book' }));
  });

  it('refuses missing scopes with 403, listing them, and an insufficient_scope challenge for bearers', async () => {
    const token = await hmacToken({ claims: { scope: 'flights:read' } });
    const refused = expectRefused(
      await auth.authorize(bearer(token), { name: 'book' }),
      403,
      'InsufficientScope',
    );
    assert.deepEqual(refused.problem['missingScopes'], ['flights:book']);
    assert.match(refused.problem.detail ?? '', /flights:book/);
    assert.equal(
      refused.headers.get('WWW-Authenticate'),
      'Bearer realm="agentry", error="insufficient_scope", scope="flights:book"',
    );
    const keyed = expectRefused(
      await auth.authorize(new Headers({ 'X-API-Key': 'key-reader' }), { name: 'book' }),
      403,
      'InsufficientScope',
    );
    assert.equal(keyed.headers.get('WWW-Authenticate'), null);
  });

  it('makes an operation the config names need credentials even with no scopes listed', async () => {
    assert.equal(auth.needsAuth({ name: 'audit' }), true);
    expectRefused(
      await auth.authorize(new Headers(), { name: 'audit', authRequired: false }),
      401,
      'AuthRequired',
    );
    expectOk(await auth.authorize(new Headers({ 'X-API-Key': 'key-reader' }), { name: 'audit' }));
  });

  it('satisfies one of the security requirement alternatives, reporting the nearest one', async () => {
    const op: Operation = {
      name: 'manage',
      security: [{ oauth2: ['trips:admin', 'trips:write'] }, { oauth2: ['trips:owner'] }],
    };
    const owner = await hmacToken({ claims: { scope: 'trips:owner' } });
    expectOk(await auth.authorize(bearer(owner), op));
    const writer = await hmacToken({ claims: { scope: 'trips:write' } });
    const refused = expectRefused(await auth.authorize(bearer(writer), op), 403, 'InsufficientScope');
    assert.deepEqual(refused.problem['missingScopes'], ['trips:admin']);
  });

  it('adds the configured scopes to the operation’s requirement', async () => {
    const op: Operation = { name: 'book', security: [{ oauth2: ['trips:write'] }] };
    const token = await hmacToken({ claims: { scope: 'trips:write' } });
    const refused = expectRefused(await auth.authorize(bearer(token), op), 403, 'InsufficientScope');
    assert.deepEqual(refused.problem['missingScopes'], ['flights:book']);
    assert.deepEqual(refused.problem['requiredScopes'], ['flights:book', 'trips:write']);
  });

  it('holds requirements naming only our own schemes to that kind of credential', async () => {
    const op: Operation = { name: 'export', security: [{ bearer: [] }] };
    const refused = expectRefused(
      await auth.authorize(new Headers({ 'X-API-Key': 'key-reader' }), op),
      401,
      'AuthRequired',
    );
    assert.match(refused.problem.detail ?? '', /does not accept API keys: send a bearer token/);
    expectOk(await auth.authorize(bearer(await hmacToken()), op));
  });

  it('refuses a request carrying both an API key and a bearer token with 400', async () => {
    const headers = bearer(await hmacToken());
    headers.set('X-API-Key', 'key-reader');
    const refused = expectRefused(await auth.authorize(headers, publicOp), 400, 'InvalidRequest');
    assert.match(refused.headers.get('WWW-Authenticate') ?? '', /error="invalid_request"/);
  });

  it('sends both challenges when both kinds of credential are accepted', async () => {
    const refused = expectRefused(await auth.authorize(new Headers(), { name: 'book' }), 401, 'AuthRequired');
    assert.equal(
      refused.headers.get('WWW-Authenticate'),
      'Bearer realm="agentry", scope="flights:book", ApiKey realm="agentry", header="X-API-Key"',
    );
    assert.deepEqual(
      auth.schemes().map((scheme) => scheme.id),
      ['apiKey', 'bearer'],
    );
  });
});

describe('which operations need credentials', () => {
  const auth = createAuthenticator({ apiKeys: { k: { clientId: 'c' } } });
  const agent = (contract: Agent['auth']): Agent => {
    const described: Agent = { id: 'a', name: 'A', description: 'An agent.', operations: [], bindings: [] };
    if (contract !== undefined) described.auth = contract;
    return described;
  };

  it('follows authRequired, then the agent contract, then security requirements', () => {
    assert.equal(auth.needsAuth({ name: 'x' }), false);
    assert.equal(auth.needsAuth({ name: 'x', authRequired: true }), true);
    assert.equal(auth.needsAuth({ name: 'x', authRequired: false, security: [{ apiKey: [] }] }), false);
    assert.equal(auth.needsAuth({ name: 'x', security: [{ apiKey: [] }] }), true);
    assert.equal(auth.needsAuth({ name: 'x', security: [] }), false);
    assert.equal(
      auth.needsAuth({ name: 'x', security: [{ apiKey: [] }, {}] }),
      false,
      '{} is the anonymous alternative',
    );
    assert.equal(auth.needsAuth({ name: 'x' }, agent({ requiredFor: ['x'] })), true);
    assert.equal(
      auth.needsAuth({ name: 'x' }, agent({ optionalFor: ['x'], security: [{ apiKey: [] }] })),
      false,
    );
    assert.equal(auth.needsAuth({ name: 'x' }, agent({ security: [{ apiKey: [] }] })), true);
    assert.equal(auth.needsAuth({ name: 'x', security: [{}] }, agent({ security: [{ apiKey: [] }] })), false);
  });

  it('authorizes accordingly', async () => {
    expectRefused(
      await auth.authorize(new Headers(), { name: 'x', security: [{ apiKey: [] }] }),
      401,
      'AuthRequired',
    );
    expectRefused(
      await auth.authorize(new Headers(), { name: 'x' }, agent({ requiredFor: ['x'] })),
      401,
      'AuthRequired',
    );
    expectOk(await auth.authorize(new Headers(), { name: 'x', security: [{ apiKey: [] }, {}] }));
  });

  it('refuses protected operations when the host accepts no credentials at all', async () => {
    const none = createAuthenticator({});
    assert.deepEqual(none.schemes(), []);
    const refused = expectRefused(await none.authorize(new Headers(), privateOp), 401, 'AuthRequired');
    assert.equal(refused.headers.get('WWW-Authenticate'), 'Bearer realm="agentry"');
    expectOk(await none.authorize(new Headers({ 'X-API-Key': 'k' }), publicOp));
  });

  it('rejects a jwt configuration with nothing to verify tokens with', () => {
    assert.throws(() => createAuthenticator({ jwt: { issuer: ISSUER } }), /"secret", "jwks" or "jwksUrl"/);
  });
});

describe('bearer JWTs with a key set', () => {
  let server: Server;
  let jwksUrl: string;
  let failingUrl: string;
  let privateKey: CryptoKey;
  let publicJwk: JWK;
  let requests = 0;

  before(async () => {
    const pair = await generateKeyPair('ES256');
    privateKey = pair.privateKey;
    publicJwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
    server = createServer((request, response) => {
      requests++;
      if (request.url === '/jwks.json') {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ keys: [publicJwk] }));
      } else {
        response.writeHead(500);
        response.end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    jwksUrl = `http://127.0.0.1:${port}/jwks.json`;
    failingUrl = `http://127.0.0.1:${port}/broken.json`;
  });

  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('verifies tokens against a JWKS fetched from its URL', async () => {
    const auth = createAuthenticator({ jwt: { jwksUrl, issuer: ISSUER, audience: AUDIENCE } });
    const token = await sign({ claims: { scope: 'a' } }, { alg: 'ES256', kid: 'k1' }, privateKey);
    const before = requests;
    assert.equal(expectOk(await auth.authorize(bearer(token), privateOp))?.clientId, 'client-jwt');
    assert.ok(requests > before, 'the key set was fetched');
    const other = await generateKeyPair('ES256');
    const forged = await sign({}, { alg: 'ES256', kid: 'k1' }, other.privateKey);
    expectRefused(await auth.authorize(bearer(forged), privateOp), 401, 'InvalidToken');
  });

  it('answers 503, not 401, when the key set cannot be fetched', async () => {
    const auth = createAuthenticator({ jwt: { jwksUrl: failingUrl } });
    const token = await sign({}, { alg: 'ES256', kid: 'k1' }, privateKey);
    const refused = expectRefused(await auth.authorize(bearer(token), privateOp), 503, 'AuthUnavailable');
    assert.equal(refused.headers.get('Retry-After'), '30');
  });

  it('verifies tokens against an inline JWKS, and never treats an HMAC token as signed by it', async () => {
    const auth = createAuthenticator({ jwt: { jwks: { keys: [publicJwk] } } });
    const token = await sign({}, { alg: 'ES256', kid: 'k1' }, privateKey);
    expectOk(await auth.authorize(bearer(token), privateOp));
    expectRefused(await auth.authorize(bearer(await hmacToken()), privateOp), 401, 'InvalidToken');
  });

  it('only accepts the configured algorithms', async () => {
    const auth = createAuthenticator({ jwt: { jwks: { keys: [publicJwk] }, algorithms: ['RS256'] } });
    const token = await sign({}, { alg: 'ES256', kid: 'k1' }, privateKey);
    expectRefused(await auth.authorize(bearer(token), privateOp), 401, 'InvalidToken');
  });
});
