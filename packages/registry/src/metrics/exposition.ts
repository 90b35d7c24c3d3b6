/**
 * The Prometheus text exposition format, version 0.0.4: the few rules a renderer needs (names, label and help
 * escaping, sample values), kept apart from what the registry measures. prom-client keeps the series; its own
 * writer is not used, as it spells NaN `Nan` (the format says `NaN`), writes a histogram's `le` before the series'
 * labels and leaves a blank line between families, so a scrape would differ from the one the tests and dashboards
 * read. Rendering its values here is a dozen lines.
 */

export const EXPOSITION_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

export function isMetricName(name: string): boolean {
  return METRIC_NAME.test(name);
}

export function assertMetricName(name: string): void {
  if (!isMetricName(name)) {
    throw new TypeError(
      `${JSON.stringify(name)} is not a Prometheus metric name ([a-zA-Z_:][a-zA-Z0-9_:]*).`,
    );
  }
}

/** Label values: backslash, double quote and line feed escaped. */
export function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/** HELP text: backslash and line feed escaped (quotes are literal there). */
export function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

/** A sample value as Go's ParseFloat reads it: `+Inf`, `-Inf`, `NaN`, or the shortest decimal. */
export function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Number.POSITIVE_INFINITY) return '+Inf';
  if (value === Number.NEGATIVE_INFINITY) return '-Inf';
  return String(value);
}

export type Labels = ReadonlyArray<readonly [name: string, value: string]>;

/** `{a="1",b="2"}`, or nothing for no labels. */
export function formatLabels(labels: Labels): string {
  if (labels.length === 0) return '';
  const parts = labels.map(([name, value]) => {
    if (!LABEL_NAME.test(name) || name.startsWith('__'))
      throw new TypeError(`bad label name ${JSON.stringify(name)}`);
    return `${name}="${escapeLabelValue(value)}"`;
  });
  return `{${parts.join(',')}}`;
}

export type MetricType = 'counter' | 'gauge' | 'histogram';

/** The `# HELP` and `# TYPE` lines of a family. */
export function familyHeader(name: string, type: MetricType, help: string): string {
  return `# HELP ${name} ${escapeHelp(help)}\n# TYPE ${name} ${type}\n`;
}
