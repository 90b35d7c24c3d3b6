/**
 * Retrying 429 (Too Many Requests) and 503 (Service Unavailable) with exponential backoff and full jitter, or
 * exactly as long as the agent's `Retry-After` asks. Only calls that are safe to repeat are retried: operations
 * declared idempotent or safe, HTTP methods idempotent by definition (RFC 9110 §9.2.2: GET, HEAD, PUT, DELETE,
 * OPTIONS), and calls carrying an idempotency key. Anything else could run twice.
 */
import type { Binding, Operation } from '@agentry/core';
import { AgentError } from './errors.js';
import { sleep } from './sleep.js';
import type { RetryNotice, RetryOptions } from './types.js';

export const DEFAULT_RETRY: Required<RetryOptions> = { attempts: 3, baseDelayMs: 250, maxDelayMs: 30_000 };

const RETRYABLE_STATUS: ReadonlySet<number> = new Set([429, 503]);
const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

export function retryPolicy(options: RetryOptions | undefined): Required<RetryOptions> {
  const attempts = Math.max(1, Math.floor(options?.attempts ?? DEFAULT_RETRY.attempts));
  const baseDelayMs = Math.max(0, options?.baseDelayMs ?? DEFAULT_RETRY.baseDelayMs);
  const maxDelayMs = Math.max(baseDelayMs, options?.maxDelayMs ?? DEFAULT_RETRY.maxDelayMs);
  return { attempts, baseDelayMs, maxDelayMs };
}

/** Whether repeating the call is safe. */
export function isRepeatable(
  spec: Operation | undefined,
  binding: Binding,
  idempotencyKey: string | undefined,
): boolean {
  if (idempotencyKey !== undefined) return true;
  if (spec?.idempotent === true || spec?.safe === true) return true;
  return binding.kind === 'http' && IDEMPOTENT_METHODS.has(binding.method);
}

export function isRetryableError(error: unknown): error is AgentError {
  return error instanceof AgentError && error.status !== undefined && RETRYABLE_STATUS.has(error.status);
}

/** Full jitter: a random wait in [0, min(max, base · 2^(attempt-1))]. */
export function backoffDelay(
  attempt: number,
  policy: Required<RetryOptions>,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(random() * ceiling);
}

export interface RetryRun {
  policy: Required<RetryOptions>;
  /** Whether the call may be repeated at all. */
  repeatable: boolean;
  signal?: AbortSignal;
  onRetry?: (notice: RetryNotice) => void;
}

/** Runs `call` until it succeeds, fails for good, or the tries run out; returns the value and the tries made. */
export async function withRetries<T>(
  call: (attempt: number) => Promise<T>,
  run: RetryRun,
): Promise<{ value: T; attempts: number }> {
  for (let attempt = 1; ; attempt++) {
    try {
      return { value: await call(attempt), attempts: attempt };
    } catch (error) {
      if (!run.repeatable || attempt >= run.policy.attempts || !isRetryableError(error)) throw error;
      const asked = error.retryAfterMs;
      // A wait longer than allowed is the caller's decision: the error carries retryAfterMs.
      if (asked !== undefined && asked > run.policy.maxDelayMs) throw error;
      const delayMs = asked ?? backoffDelay(attempt, run.policy);
      run.onRetry?.({ attempt, delayMs, fromRetryAfter: asked !== undefined, error });
      await sleep(delayMs, run.signal);
    }
  }
}
