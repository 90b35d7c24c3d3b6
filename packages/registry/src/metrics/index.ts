/** Prometheus metrics for `GET /metrics`. */
export {
  EXPOSITION_CONTENT_TYPE,
  escapeHelp,
  escapeLabelValue,
  formatValue,
  isMetricName,
} from './exposition.js';
export { OVERFLOW_LABEL_VALUE } from './families.js';
export {
  createMetrics,
  INVOCATION_BUCKETS,
  type Metrics,
  type MetricsOptions,
  REQUEST_BUCKETS,
} from './metrics.js';
