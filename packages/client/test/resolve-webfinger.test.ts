/** WebFinger (RFC 7033) as a resolution step, when enabled. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  resolve,
  WEBFINGER_REL_DESCRIPTION,
  WEBFINGER_REL_ENDPOINT,
  webfingerUrl,
} from '../src/resolve/index.js';
import { exampleJson, loopbackOptions, type Site, startSite } from './resolve-support.js';

describe('WebFinger', () => {
  let site: Site;
  let uri: string;
  before(async () => {
    site = await startSite();
    uri = `agent://${site.host}/summarizer`;
  });
  after(() => site.close());

  test('the query is the agent URI, percent-encoded', () => {
    assert.equal(
      webfingerUrl('https://example.com', 'agent://example.com/planner'),
      'https://example.com/.well-known/webfinger?resource=agent%3A%2F%2Fexample.com%2Fplanner',
    );
  });

  test('is not asked unless enabled', async () => {
    site.routes.clear();
    site.requests.length = 0;
    await resolve(uri, { ...loopbackOptions(), fallback: false });
    assert.ok(!site.requests.some((path) => path.startsWith('/.well-known/webfinger')));
  });

  test('a description link, after the well-known documents', async () => {
    site.routes.clear();
    site.requests.length = 0;
    site.routes.set('/.well-known/webfinger', (url) =>
      url.searchParams.get('resource') === uri
        ? {
            json: {
              subject: uri,
              links: [
                { rel: 'http://webfinger.net/rel/profile-page', href: `${site.origin}/about` },
                {
                  rel: WEBFINGER_REL_DESCRIPTION,
                  type: 'application/woa+json',
                  href: `${site.origin}/docs/woa.json`,
                },
              ],
            },
            headers: { 'content-type': 'application/jrd+json' },
          }
        : { status: 404 },
    );
    site.routes.set('/docs/woa.json', { json: exampleJson('summarizer.woa.json') });
    const resolution = await resolve(uri, { ...loopbackOptions(), webfinger: true });
    assert.equal(resolution.agent?.id, 'summarizer');
    assert.equal(resolution.source, 'webfinger');
    assert.deepEqual(
      resolution.documents.map((doc) => doc.step),
      [
        'agents-json',
        'agent-json',
        'agent-card',
        'well-known-agent',
        'woa',
        'root-agent-json',
        'webfinger',
        'descriptor',
      ],
    );
    assert.equal(site.requests[6], `/.well-known/webfinger?resource=${encodeURIComponent(uri)}`);
  });

  test('an endpoint link makes the binding when no description is linked', async () => {
    site.routes.clear();
    site.routes.set('/.well-known/webfinger', {
      json: {
        subject: uri,
        links: [{ rel: WEBFINGER_REL_ENDPOINT, href: 'https://api.example.com/summarize' }],
      },
    });
    const resolution = await resolve(uri, { ...loopbackOptions(), webfinger: true });
    assert.equal(resolution.source, 'webfinger');
    assert.equal(resolution.agent?.id, 'summarizer');
    assert.deepEqual(resolution.binding, {
      kind: 'http',
      url: 'https://api.example.com/summarize',
      method: 'POST',
    });
    assert.equal(resolution.methodByPayload, true);
  });

  test('an unknown resource (404) is not an error; the fallback follows', async () => {
    site.routes.clear();
    const resolution = await resolve(uri, { ...loopbackOptions(), webfinger: true });
    assert.equal(resolution.documents.find((doc) => doc.step === 'webfinger')?.status, 404);
    assert.ok(!resolution.issues.some((issue) => issue.severity === 'error'));
    assert.equal(resolution.source, 'fallback');
  });

  test('a JRD without links is a warning', async () => {
    site.routes.clear();
    site.routes.set('/.well-known/webfinger', { json: { subject: uri } });
    const resolution = await resolve(uri, { ...loopbackOptions(), webfinger: true, fallback: false });
    assert.equal(
      resolution.issues.find((issue) => issue.code === 'resolve.webfinger.invalid')?.severity,
      'warning',
    );
  });
});
