/**
 * `agentry validate` on hostile documents: nesting far past the limit is a validation failure that says where
 * (it exited 70, an internal error, on 10,000-deep invalid JSON), and a TD with a 1 MiB security scheme, quadratic
 * under a backtracking pattern engine, is validated (a hang would outlast the test's timeout).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { agentry } from './run-cli.js';

test('10,000-deep invalid JSON is reported with its line and column, exit 1', () => {
  const run = agentry(['validate', '-'], '['.repeat(10_000));
  assert.equal(run.status, 1, run.stderr);
  assert.match(run.stdout + run.stderr, /nesting deeper than 256 levels at line 1, column 257/);
});

test('valid JSON nested 3,000 deep is reported with the path, exit 1', () => {
  const run = agentry(['validate', '-'], `{"tools": [${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}]}`);
  assert.equal(run.status, 1, run.stderr);
  assert.match(run.stdout + run.stderr, /Nesting deeper than 256 levels at \/tools\/0\/a\/a/);
});

test('a TD whose security scheme is 1 MiB long is validated', { timeout: 60_000 }, () => {
  const td = {
    '@context': 'https://www.w3.org/2022/wot/td/v1.1',
    title: 'Lamp',
    securityDefinitions: { custom: { scheme: 'a'.repeat(1024 * 1024) } },
    security: ['custom'],
    properties: {},
  };
  const run = agentry(['validate', '-'], JSON.stringify(td));
  assert.equal(run.status, 1, run.stderr);
  assert.match(run.stdout, /\/securityDefinitions\/custom\/scheme/);
});
