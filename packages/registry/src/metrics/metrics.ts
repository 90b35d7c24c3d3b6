/**
 * What the registry measures for `GET /metrics`: HTTP requests per route, gateway invocations per agent, gauges the
 * registry sets (agents stored, index size, …) and the process's own figures. prom-client keeps the series and
 * writes the exposition, in a `Registry` of each `createMetrics` call's own (never prom-client's global one), so two
 * registries in one process count apart. What prom-client leaves to us: a bound on the series of a family (it keeps
 * every label combination it is given), the process figures under the names they have always had here (its
 * `collectDefaultMetrics` names the heap `nodejs_heap_size_used_bytes` and starts event-loop and GC observers per
 * registry), and the text itself (see exposition.ts for why its writer is not used).
 */
import {
  Counter,
  Gauge,
  Histogram,
  type MetricObjectWithValues,
  type MetricValue,
  Registry,
} from 'prom-client';
import { assertMetricName, familyHeader, formatLabels, formatValue, type Labels } from './exposition.js';

/** Request latencies, seconds: a loopback GET is well under a millisecond, a semantic search tens of them. */
export const REQUEST_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];
/** Invocation latencies, seconds: agents answer in milliseconds to tens of seconds. */
export const INVOCATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export interface MetricsOptions {
  /**
   * Most agents with their own invocation series (default 1,000); invocations of agents beyond that are counted
   * under `agent="_other"`, so a registry of 100k agents does not scrape 100k series.
   */
  maxAgentSeries?: number;
  /** Include `process_*` figures (resident memory, CPU time, start time, heap); default true. */
  processMetrics?: boolean;
}

export interface Metrics {
  /** One HTTP request: `route` is the route's pattern (`/agents/:id`), never the raw path. */
  observeRequest(route: string, method: string, status: number, ms: number): void;
  /** One gateway invocation of an agent, and whether it succeeded. */
  observeInvocation(agentId: string, ok: boolean, ms: number): void;
  /** Sets a gauge (created on first use), e.g. `agentry_registry_agents`. */
  setGauge(name: string, value: number, help?: string): void;
  /** Every metric in the Prometheus text exposition format 0.0.4 (`EXPOSITION_CONTENT_TYPE`). */
  render(): Promise<string>;
}

/** The label value under which series beyond a family's limit are counted together. */
export const OVERFLOW_LABEL_VALUE = '_other';

const MAX_ROUTE_SERIES = 500;

/**
 * The label values to count under: the given ones while the family holds fewer than `maxSeries` label combinations,
 * else `_other` in every label, so unbounded label values (agent ids) grow neither memory nor the scrape.
 */
function seriesBound<Name extends string>(
  maxSeries: number,
): (labels: Record<Name, string>) => Record<Name, string> {
  const seen = new Set<string>();
  return (labels) => {
    const key = Object.values(labels).join('\u0000');
    if (seen.has(key)) return labels;
    if (seen.size < maxSeries) {
      seen.add(key);
      return labels;
    }
    const overflow = Object.fromEntries(
      Object.keys(labels).map((name) => [name, OVERFLOW_LABEL_VALUE]),
    ) as Record<Name, string>;
    seen.add(Object.values(overflow).join('\u0000'));
    return overflow;
  };
}

export function createMetrics(options: MetricsOptions = {}): Metrics {
  const maxAgents = options.maxAgentSeries ?? 1000;
  const registry = new Registry();
  const registers = [registry];
  const requests = new Counter({
    name: 'agentry_http_requests_total',
    help: 'HTTP requests answered, by route pattern, method and status.',
    labelNames: ['route', 'method', 'status'] as const,
    registers,
  });
  const requestSeconds = new Histogram({
    name: 'agentry_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by route pattern and method.',
    labelNames: ['route', 'method'] as const,
    buckets: REQUEST_BUCKETS,
    registers,
  });
  const invocations = new Counter({
    name: 'agentry_gateway_invocations_total',
    help: 'Agent invocations through the gateway, by agent and outcome (ok or error).',
    labelNames: ['agent', 'outcome'] as const,
    registers,
  });
  const invocationSeconds = new Histogram({
    name: 'agentry_gateway_invocation_duration_seconds',
    help: 'Time for an agent to answer through the gateway, by agent.',
    labelNames: ['agent'] as const,
    buckets: INVOCATION_BUCKETS,
    registers,
  });
  const requestSeries = seriesBound<'route' | 'method' | 'status'>(MAX_ROUTE_SERIES);
  const requestSecondsSeries = seriesBound<'route' | 'method'>(MAX_ROUTE_SERIES);
  const invocationSeries = seriesBound<'agent' | 'outcome'>(maxAgents * 2);
  const invocationSecondsSeries = seriesBound<'agent'>(maxAgents);
  /** Families in the order a scrape shows them: the fixed ones, gauges as first set, the process's figures. */
  const order = [
    'agentry_http_requests_total',
    'agentry_http_request_duration_seconds',
    'agentry_gateway_invocations_total',
    'agentry_gateway_invocation_duration_seconds',
  ];
  const gauges = new Map<string, Gauge>();
  const processNames = options.processMetrics === false ? [] : processFamilies(registers);

  return {
    observeRequest(route, method, status, ms) {
      const upper = method.toUpperCase();
      requests.inc(requestSeries({ route, method: upper, status: String(status) }));
      requestSeconds.observe(requestSecondsSeries({ route, method: upper }), ms / 1000);
    },
    observeInvocation(agentId, ok, ms) {
      invocations.inc(invocationSeries({ agent: agentId, outcome: ok ? 'ok' : 'error' }));
      invocationSeconds.observe(invocationSecondsSeries({ agent: agentId }), ms / 1000);
    },
    setGauge(name, value, help) {
      let gauge = gauges.get(name);
      if (gauge === undefined) {
        assertMetricName(name);
        if (registry.getSingleMetric(name) !== undefined) {
          throw new TypeError(
            `${JSON.stringify(name)} is a metric the registry keeps itself; name the gauge otherwise.`,
          );
        }
        gauge = new Gauge({ name, help: help ?? name.replace(/_/g, ' '), registers });
        gauges.set(name, gauge);
        order.push(name);
      }
      gauge.set(value);
    },
    async render() {
      const families = await Promise.all(
        [...order, ...processNames].map((name) => registry.getSingleMetric(name)!.get()),
      );
      return families.map(renderFamily).join('');
    },
  };
}

/** A family in the text format: its HELP and TYPE, then each sample, a histogram's `le` after the series' labels. */
function renderFamily(family: MetricObjectWithValues<MetricValue<string>>): string {
  let out = familyHeader(family.name, String(family.type) as 'counter' | 'gauge' | 'histogram', family.help);
  for (const sample of family.values) {
    const { le, ...labels } = sample.labels as Record<string, string | number>;
    const pairs: Array<readonly [string, string]> = Object.entries(labels).map(([name, value]) => [
      name,
      String(value),
    ]);
    if (le !== undefined) pairs.push(['le', typeof le === 'number' ? formatValue(le) : le]);
    const name = (sample as { metricName?: string }).metricName ?? family.name;
    out += `${name}${formatLabels(pairs as Labels)} ${formatValue(sample.value)}\n`;
  }
  return out;
}

const startSeconds = Math.round((Date.now() - performance.now()) / 1000);

/** The process's own figures, read at each scrape; returns their names. */
function processFamilies(registers: Registry[]): string[] {
  const families: Array<[string, 'gauge' | 'counter', string, () => number]> = [
    [
      'process_cpu_seconds_total',
      'counter',
      'User and system CPU time spent, seconds.',
      () => {
        const usage = process.cpuUsage();
        return (usage.user + usage.system) / 1e6;
      },
    ],
    [
      'process_resident_memory_bytes',
      'gauge',
      'Resident memory size, bytes.',
      () => process.memoryUsage.rss(),
    ],
    [
      'process_start_time_seconds',
      'gauge',
      'Start time of the process since the Unix epoch, seconds.',
      () => startSeconds,
    ],
    ['nodejs_heap_used_bytes', 'gauge', 'V8 heap in use, bytes.', () => process.memoryUsage().heapUsed],
    [
      'nodejs_external_memory_bytes',
      'gauge',
      'Memory of C++ objects bound to JavaScript objects, bytes.',
      () => process.memoryUsage().external,
    ],
  ];
  for (const [name, type, help, read] of families) {
    if (type === 'counter') {
      new Counter({
        name,
        help,
        registers,
        collect() {
          this.reset();
          this.inc(read());
        },
      });
    } else {
      new Gauge({
        name,
        help,
        registers,
        collect() {
          this.set(read());
        },
      });
    }
  }
  return families.map(([name]) => name);
}
