/** docs/resolution.md stays true to the code: the order of steps, the DID service types and WebFinger relations. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  DID_A2A_SERVICE_TYPES,
  DID_DESCRIPTION_SERVICE_TYPES,
  DID_ENDPOINT_SERVICE_TYPES,
  DID_MCP_SERVICE_TYPES,
  siteSteps,
  WEBFINGER_REL_DESCRIPTION,
  WEBFINGER_REL_ENDPOINT,
} from '../src/resolve/index.js';

const doc = readFileSync(join(import.meta.dirname, '../../../docs/resolution.md'), 'utf8');
const order = doc.slice(doc.indexOf('## The order for agent:// URIs'), doc.indexOf('## The agent found'));

test('docs/resolution.md lists the well-known documents in the order resolution asks for them', () => {
  const paths = siteSteps({ origin: 'https://example.com', names: [], agentPath: '/<first segment>' }).map(
    (step) => step.path,
  );
  let at = 0;
  for (const path of paths) {
    const found = order.indexOf(`**\`${path}\``, at);
    assert.ok(found > at, `${path} is listed after the one before it`);
    at = found;
  }
});

test('docs/resolution.md names every DID service type and WebFinger relation the code recognises', () => {
  for (const type of [
    ...DID_DESCRIPTION_SERVICE_TYPES,
    ...DID_ENDPOINT_SERVICE_TYPES,
    ...DID_MCP_SERVICE_TYPES,
    ...DID_A2A_SERVICE_TYPES,
  ]) {
    assert.ok(order.includes(`\`${type}\``), type);
  }
  for (const rel of [WEBFINGER_REL_DESCRIPTION, WEBFINGER_REL_ENDPOINT]) assert.ok(order.includes(rel), rel);
});
