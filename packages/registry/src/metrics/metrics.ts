/**
 * What the registry measures for `GET /metrics`: HTTP requests per route, gateway invocations per agent, gauges the
 * registry sets (agents stored, index size, …) and the process's own figures.
 */
import { assertMetricName } from './exposition.js';
import { CounterFamily, GaugeFamily, HistogramFamily } from './families.js';

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
  render(): string;
}

const MAX_ROUTE_SERIES = 500;

export function createMetrics(options: MetricsOptions = {}): Metrics {
  const maxAgents = options.maxAgentSeries ?? 1000;
  const requests = new CounterFamily(
    'agentry_http_requests_total',
    'HTTP requests answered, by route pattern, method and status.',
    ['route', 'method', 'status'],
    MAX_ROUTE_SERIES,
  );
  const requestSeconds = new HistogramFamily(
    'agentry_http_request_duration_seconds',
    'Time to answer an HTTP request, by route pattern and method.',
    ['route', 'method'],
    MAX_ROUTE_SERIES,
    REQUEST_BUCKETS,
  );
  const invocations = new CounterFamily(
    'agentry_gateway_invocations_total',
    'Agent invocations through the gateway, by agent and outcome (ok or error).',
    ['agent', 'outcome'],
    maxAgents * 2,
  );
  const invocationSeconds = new HistogramFamily(
    'agentry_gateway_invocation_duration_seconds',
    'Time for an agent to answer through the gateway, by agent.',
    ['agent'],
    maxAgents,
    INVOCATION_BUCKETS,
  );
  const gauges = new Map<string, GaugeFamily>();

  return {
    observeRequest(route, method, status, ms) {
      requests.inc([route, method.toUpperCase(), String(status)]);
      requestSeconds.observe([route, method.toUpperCase()], ms / 1000);
    },
    observeInvocation(agentId, ok, ms) {
      invocations.inc([agentId, ok ? 'ok' : 'error']);
      invocationSeconds.observe([agentId], ms / 1000);
    },
    setGauge(name, value, help) {
      let family = gauges.get(name);
      if (family === undefined) {
        assertMetricName(name);
        family = new GaugeFamily(name, help ?? name.replace(/_/g, ' '), [], 1);
        gauges.set(name, family);
      }
      family.set([], value);
    },
    render() {
      const parts = [
        requests.render(),
        requestSeconds.render(),
        invocations.render(),
        invocationSeconds.render(),
      ];
      for (const family of gauges.values()) parts.push(family.render());
      if (options.processMetrics !== false) parts.push(processFamilies());
      return parts.join('');
    },
  };
}

const startSeconds = Math.round((Date.now() - performance.now()) / 1000);

function processFamilies(): string {
  const usage = process.cpuUsage();
  const memory = process.memoryUsage();
  const families: Array<[string, 'gauge' | 'counter', string, number]> = [
    [
      'process_cpu_seconds_total',
      'counter',
      'User and system CPU time spent, seconds.',
      (usage.user + usage.system) / 1e6,
    ],
    ['process_resident_memory_bytes', 'gauge', 'Resident memory size, bytes.', memory.rss],
    [
      'process_start_time_seconds',
      'gauge',
      'Start time of the process since the Unix epoch, seconds.',
      startSeconds,
    ],
    ['nodejs_heap_used_bytes', 'gauge', 'V8 heap in use, bytes.', memory.heapUsed],
    [
      'nodejs_external_memory_bytes',
      'gauge',
      'Memory of C++ objects bound to JavaScript objects, bytes.',
      memory.external,
    ],
  ];
  return families
    .map(([name, type, help, value]) => {
      const family =
        type === 'counter' ? new CounterFamily(name, help, [], 1) : new GaugeFamily(name, help, [], 1);
      if (family instanceof CounterFamily) family.inc([], value);
      else family.set([], value);
      return family.render();
    })
    .join('');
}
