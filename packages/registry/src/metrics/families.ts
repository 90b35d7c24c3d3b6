/**
 * Counter, gauge and histogram families with labels: each holds its series and renders itself in the exposition
 * format. Series are kept in insertion order, so a scrape's output is stable between scrapes.
 */
import { familyHeader, formatLabels, formatValue, type Labels } from './exposition.js';

/** A family's series, keyed by their label values (joined with a separator no value can hold unescaped). */
abstract class Family<Series> {
  protected readonly series = new Map<string, { labels: Labels; value: Series }>();

  constructor(
    readonly name: string,
    readonly help: string,
    protected readonly labelNames: readonly string[],
    /** Beyond this many series, new label combinations are counted under `overflowValue` in every label. */
    private readonly maxSeries: number,
  ) {}

  protected seriesFor(values: readonly string[]): Series {
    let key = values.join('\u0000');
    let entry = this.series.get(key);
    if (entry === undefined) {
      if (this.series.size >= this.maxSeries) {
        // Unbounded label values (agent ids) must not grow memory or the scrape without limit.
        values = values.map(() => OVERFLOW_LABEL_VALUE);
        key = values.join('\u0000');
        entry = this.series.get(key);
      }
      if (entry === undefined) {
        entry = {
          labels: this.labelNames.map((name, i) => [name, values[i] ?? ''] as const),
          value: this.create(),
        };
        this.series.set(key, entry);
      }
    }
    return entry.value;
  }

  protected abstract create(): Series;
  abstract render(): string;
}

/** The label value under which series beyond a family's limit are counted together. */
export const OVERFLOW_LABEL_VALUE = '_other';

export class CounterFamily extends Family<{ value: number }> {
  inc(values: readonly string[], by = 1): void {
    this.seriesFor(values).value += by;
  }

  protected create(): { value: number } {
    return { value: 0 };
  }

  render(): string {
    let out = familyHeader(this.name, 'counter', this.help);
    for (const { labels, value } of this.series.values()) {
      out += `${this.name}${formatLabels(labels)} ${formatValue(value.value)}\n`;
    }
    return out;
  }
}

export class GaugeFamily extends Family<{ value: number }> {
  set(values: readonly string[], value: number): void {
    this.seriesFor(values).value = value;
  }

  protected create(): { value: number } {
    return { value: 0 };
  }

  render(): string {
    let out = familyHeader(this.name, 'gauge', this.help);
    for (const { labels, value } of this.series.values()) {
      out += `${this.name}${formatLabels(labels)} ${formatValue(value.value)}\n`;
    }
    return out;
  }
}

interface HistogramSeries {
  /** Observations per bucket (not cumulative; summed when rendered). */
  counts: number[];
  sum: number;
  count: number;
}

export class HistogramFamily extends Family<HistogramSeries> {
  private readonly bounds: readonly number[];

  constructor(
    name: string,
    help: string,
    labelNames: readonly string[],
    maxSeries: number,
    bounds: readonly number[],
  ) {
    super(name, help, labelNames, maxSeries);
    this.bounds = [...bounds].sort((a, b) => a - b);
  }

  observe(values: readonly string[], value: number): void {
    const series = this.seriesFor(values);
    let i = 0;
    while (i < this.bounds.length && value > this.bounds[i]!) i++;
    // The last slot is the +Inf bucket's own share.
    series.counts[i]!++;
    series.sum += value;
    series.count++;
  }

  protected create(): HistogramSeries {
    return { counts: new Array<number>(this.bounds.length + 1).fill(0), sum: 0, count: 0 };
  }

  render(): string {
    let out = familyHeader(this.name, 'histogram', this.help);
    for (const { labels, value } of this.series.values()) {
      let cumulative = 0;
      for (let i = 0; i <= this.bounds.length; i++) {
        cumulative += value.counts[i]!;
        const le = i < this.bounds.length ? formatValue(this.bounds[i]!) : '+Inf';
        out += `${this.name}_bucket${formatLabels([...labels, ['le', le]])} ${formatValue(cumulative)}\n`;
      }
      out += `${this.name}_sum${formatLabels(labels)} ${formatValue(value.sum)}\n`;
      out += `${this.name}_count${formatLabels(labels)} ${formatValue(value.count)}\n`;
    }
    return out;
  }
}
