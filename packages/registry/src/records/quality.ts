/**
 * Quality signals from evidence: feedback ratings and outcomes, and what the gateway saw when it called the agent.
 *
 * The score is the mean of a Beta(1, 1) prior updated with every observation: each rating counts as a success
 * of weight (rating − 1) / 4, each reported or observed outcome as a success or a failure. With no evidence
 * there is no score; with little, it stays near 0.5; a handful of bad calls cannot be outvoted by one good one.
 */
import type { QualitySignals } from './types.js';

/** Latencies kept per agent for the median. */
export const LATENCY_SAMPLES = 51;

export interface FeedbackTotals {
  ratings: number;
  /** Σ (rating − 1) / 4 over all ratings. */
  ratingScore: number;
  reportedSuccesses: number;
  reportedFailures: number;
}

export function initialQuality(verified: boolean): QualitySignals {
  return { ratings: 0, invocations: 0, failures: 0, verified };
}

export function withFeedback(quality: QualitySignals, totals: FeedbackTotals): QualitySignals {
  return rescored({ ...quality, ratings: totals.ratings }, totals);
}

export interface Invocation {
  latencyMs: number;
  ok: boolean;
  at: string;
}

export function withInvocation(
  quality: QualitySignals,
  samples: readonly number[],
  invocation: Invocation,
  totals: FeedbackTotals,
): { quality: QualitySignals; samples: number[] } {
  const nextSamples = [...samples, Math.max(0, invocation.latencyMs)].slice(-LATENCY_SAMPLES);
  const next: QualitySignals = {
    ...quality,
    invocations: quality.invocations + 1,
    failures: quality.failures + (invocation.ok ? 0 : 1),
    latencyP50Ms: median(nextSamples),
  };
  if (invocation.ok) next.lastSeenAt = invocation.at;
  return { quality: rescored(next, totals), samples: nextSamples };
}

function rescored(quality: QualitySignals, totals: FeedbackTotals): QualitySignals {
  const observations =
    totals.ratings + totals.reportedSuccesses + totals.reportedFailures + quality.invocations;
  const { score: _previous, ...rest } = quality;
  if (observations === 0) return rest;
  const successes = totals.ratingScore + totals.reportedSuccesses + (quality.invocations - quality.failures);
  return { ...rest, score: roundScore((successes + 1) / (observations + 2)) };
}

function roundScore(value: number): number {
  return Math.round(value * 1000) / 1000;
}

export function median(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
