/** The crawler's options with their defaults filled in and their bounds checked. */
import { localInstanceId } from './instance-id.js';
import { clamp, type PlanSettings } from './plan.js';
import type { CrawlerOptions } from './scheduler.js';

export interface CrawlSettings extends PlanSettings {
  concurrency: number;
  perOrigin: number;
  leaseMs: number;
  instanceId: string;
  idlePollMs: number;
  liveness: false | { intervalMs: number; timeoutMs: number };
}

/** Throws a TypeError naming an option that must be positive and is not. */
export function crawlSettings(options: CrawlerOptions): CrawlSettings {
  const minIntervalMs = Math.max(1, options.minIntervalMs ?? 60_000);
  const maxIntervalMs = Math.max(minIntervalMs, options.maxIntervalMs ?? 86_400_000);
  const liveness = options.liveness ?? {};
  return {
    concurrency: positive(options.concurrency ?? 16, 'concurrency'),
    perOrigin: positive(options.perOrigin ?? 2, 'perOrigin'),
    minIntervalMs,
    maxIntervalMs,
    defaultIntervalMs: clamp(options.defaultIntervalMs ?? 3_600_000, minIntervalMs, maxIntervalMs),
    failureThreshold: positive(options.failureThreshold ?? 3, 'failureThreshold'),
    followDiscovered: options.followDiscovered === true,
    leaseMs: positive(options.leaseMs ?? 300_000, 'leaseMs'),
    instanceId: options.instanceId ?? localInstanceId(),
    idlePollMs: positive(options.idlePollMs ?? 30_000, 'idlePollMs'),
    liveness:
      liveness === false
        ? false
        : { intervalMs: liveness.intervalMs ?? 6 * 3_600_000, timeoutMs: liveness.timeoutMs ?? 5000 },
  };
}

function positive(value: number, name: string): number {
  if (!Number.isFinite(value) || value <= 0)
    throw new TypeError(`CrawlerOptions.${name} must be positive (got ${value}).`);
  return value;
}
