/** Prometheus metrics for `GET /metrics`. */
export {
  EXPOSITION_CONTENT_TYPE,
  escapeHelp,
  escapeLabelValue,
  formatValue,
  isMetricName,
} from './exposition.js';
export {
  createMetrics,
  INVOCATION_BUCKETS,
  type Metrics,
  type MetricsOptions,
  OVERFLOW_LABEL_VALUE,
  REQUEST_BUCKETS,
} from './metrics.js';
