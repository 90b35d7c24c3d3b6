import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { createMetrics, escapeLabelValue, formatValue } from '../../src/metrics/index.js';

/** The sample lines of a rendering, as `name{labels}` → value. */
function samples(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    out.set(line.slice(0, at), line.slice(at + 1));
  }
  return out;
}

/**
 * A strict reader of the text format 0.0.4 for the lines we write: every family announced once with HELP then
 * TYPE before its samples, sample names belonging to the family, label sets well formed, values numbers.
 */
function checkExposition(text: string): void {
  assert.ok(text.endsWith('\n'), 'the exposition ends with a line feed');
  const types = new Map<string, string>();
  let current: string | undefined;
  const labelSet = /^\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*"(?:,(?=[a-zA-Z_]))?)*\}$/;
  for (const line of text.slice(0, -1).split('\n')) {
    const help = /^# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(line);
    if (help !== null) {
      assert.ok(!types.has(help[1]!), `family ${help[1]} announced twice`);
      current = help[1];
      continue;
    }
    const type = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram)$/.exec(line);
    if (type !== null) {
      assert.equal(type[1], current, 'TYPE follows the HELP of the same family');
      types.set(type[1]!, type[2]!);
      continue;
    }
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})? (\S+)$/s.exec(line);
    assert.ok(sample !== null, `not a sample line: ${line}`);
    const [, name, labels, value] = sample;
    assert.ok(current !== undefined && types.has(current));
    const suffix = types.get(current) === 'histogram' ? /^(?:_bucket|_sum|_count)$/ : /^$/;
    assert.ok(
      name!.startsWith(current) && suffix.test(name!.slice(current.length)),
      `${name} outside ${current}`,
    );
    if (labels !== undefined) assert.match(labels, labelSet);
    assert.ok(/^(?:[+-]?Inf|NaN|-?\d+(?:\.\d+)?(?:e[+-]?\d+)?)$/.test(value!), `bad value ${value}`);
  }
}

describe('metrics', () => {
  it('counts requests and renders histograms with cumulative buckets, sum and count', async () => {
    const metrics = createMetrics({ processMetrics: false });
    metrics.observeRequest('/agents/:id', 'get', 200, 0.4);
    metrics.observeRequest('/agents/:id', 'GET', 200, 3);
    metrics.observeRequest('/agents/:id', 'GET', 404, 30);
    const text = await metrics.render();
    checkExposition(text);
    const s = samples(text);
    assert.equal(s.get('agentry_http_requests_total{route="/agents/:id",method="GET",status="200"}'), '2');
    assert.equal(s.get('agentry_http_requests_total{route="/agents/:id",method="GET",status="404"}'), '1');
    const bucket = (le: string) =>
      s.get(`agentry_http_request_duration_seconds_bucket{route="/agents/:id",method="GET",le="${le}"}`);
    assert.equal(bucket('0.0005'), '1');
    assert.equal(bucket('0.0025'), '1');
    assert.equal(bucket('0.005'), '2');
    assert.equal(bucket('0.025'), '2');
    assert.equal(bucket('0.05'), '3');
    assert.equal(bucket('+Inf'), '3');
    assert.equal(s.get('agentry_http_request_duration_seconds_count{route="/agents/:id",method="GET"}'), '3');
    assert.equal(
      Number(s.get('agentry_http_request_duration_seconds_sum{route="/agents/:id",method="GET"}')),
      0.0334,
    );
  });

  it('counts invocations per agent and outcome, and folds agents beyond the limit into _other', async () => {
    const metrics = createMetrics({ processMetrics: false, maxAgentSeries: 2 });
    metrics.observeInvocation('a', true, 10);
    metrics.observeInvocation('a', false, 20);
    metrics.observeInvocation('b', true, 10);
    metrics.observeInvocation('c', true, 10);
    metrics.observeInvocation('d', false, 10);
    const text = await metrics.render();
    checkExposition(text);
    const s = samples(text);
    assert.equal(s.get('agentry_gateway_invocations_total{agent="a",outcome="ok"}'), '1');
    assert.equal(s.get('agentry_gateway_invocations_total{agent="a",outcome="error"}'), '1');
    assert.equal(s.get('agentry_gateway_invocation_duration_seconds_count{agent="b"}'), '1');
    assert.equal(s.get('agentry_gateway_invocation_duration_seconds_count{agent="_other"}'), '2');
    assert.equal(s.get('agentry_gateway_invocation_duration_seconds_count{agent="c"}'), undefined);
  });

  it('sets gauges, refuses names Prometheus cannot read, and adds process figures', async () => {
    const metrics = createMetrics();
    metrics.setGauge('agentry_registry_agents', 12, 'Agents stored.');
    metrics.setGauge('agentry_registry_agents', 13);
    assert.throws(() => metrics.setGauge('agents-stored', 1), TypeError);
    const text = await metrics.render();
    checkExposition(text);
    assert.match(
      text,
      /# HELP agentry_registry_agents Agents stored\.\n# TYPE agentry_registry_agents gauge\nagentry_registry_agents 13\n/,
    );
    assert.ok(Number(samples(text).get('process_resident_memory_bytes')) > 1e6);
  });

  it('escapes label values so any route text stays one well-formed line', async () => {
    assert.equal(escapeLabelValue('a"b\\c\nd'), 'a\\"b\\\\c\\nd');
    assert.equal(formatValue(Number.POSITIVE_INFINITY), '+Inf');
    assert.equal(formatValue(Number.NaN), 'NaN');
    const escaped = createMetrics({ processMetrics: false });
    escaped.observeRequest('a"b\\c\nd', 'GET', 200, 1);
    escaped.setGauge('agentry_infinite', Number.POSITIVE_INFINITY);
    escaped.setGauge('agentry_not_a_number', Number.NaN);
    const text = await escaped.render();
    checkExposition(text);
    assert.match(
      text,
      /^agentry_http_requests_total\{route="a\\"b\\\\c\\nd",method="GET",status="200"\} 1$/m,
    );
    assert.match(text, /^agentry_infinite \+Inf$/m);
    assert.match(text, /^agentry_not_a_number NaN$/m);
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: 'binary' }),
        fc.string(),
        fc.integer({ min: 100, max: 599 }),
        async (route, method, status) => {
          const metrics = createMetrics({ processMetrics: false });
          metrics.observeRequest(route, method, status, 1);
          checkExposition(await metrics.render());
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps the series of each registry apart', async () => {
    const first = createMetrics({ processMetrics: false });
    const second = createMetrics({ processMetrics: false });
    first.observeInvocation('a', true, 10);
    first.setGauge('agentry_registry_agents', 1);
    second.setGauge('agentry_registry_agents', 2);
    const s = samples(await second.render());
    assert.equal(s.get('agentry_gateway_invocations_total{agent="a",outcome="ok"}'), undefined);
    assert.equal(s.get('agentry_registry_agents'), '2');
    assert.equal(samples(await first.render()).get('agentry_registry_agents'), '1');
  });
});
