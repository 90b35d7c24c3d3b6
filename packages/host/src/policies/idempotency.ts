/**
 * Idempotency keys (AWP §9 `idempotency: {supported, key_field, window}`, and the conventional `Idempotency-Key`
 * header): a retried request with the same key gets the first request's response instead of running again.
 *
 * Contract:
 * - `keyFor` reads the key where our client sends it: the input field the contract names (`key_field`), else
 *   the contract's header, else `Idempotency-Key` (a quoted sf-string form is unquoted). An operation whose
 *   contract says `supported: false` takes no keys. Operations with no contract honour `Idempotency-Key`.
 * - `begin(scope, key, fingerprint)` looks the key up within `scope`. The host makes the scope name the agent, the
 *   operation and the calling client (`idempotencyScope`: the authenticated client, else the caller's network
 *   address), so one client can never replay another's response.
 *   - unknown or expired key → `new`: run the operation, then `commit` the response (or `abandon` it when the
 *     failure is not the request's fault, e.g. a 5xx or an aborted call, so a retry runs again);
 *   - same key, same fingerprint, committed → `replay` the stored response, with `Idempotent-Replayed: true`;
 *   - same key, different fingerprint (another operation or input) → `conflict` (409, `IdempotencyKeyReused`);
 *   - same key, same fingerprint, still running → `in-progress` (409, `IdempotencyKeyInUse`).
 * - A key is remembered for the operation's `window` (`24h`, `10m`, ISO 8601 `PT24H`; `windowFor`) counted from
 *   the commit, else the store's default (24 h). A running entry that is never committed expires likewise.
 * - Memory is bounded: at most `maxEntries` keys (default 10,000), least recently used forgotten first; keys are
 *   stored as SHA-256 digests, so a long key costs no more than a short one. A forgotten key runs again.
 */
import { createHash } from 'node:crypto';
import {
  IDEMPOTENCY_HEADER,
  type Operation,
  IDEMPOTENT_REPLAYED_HEADER as REPLAYED_HEADER,
} from '@agentry/core';
import type { Problem } from '../errors.js';
import { canonicalJson } from '../signing/canonical-json.js';
import { parseDuration } from './durations.js';
import { policyProblem } from './problems.js';
import { RecentMap } from './recent-map.js';

export { IDEMPOTENCY_HEADER, IDEMPOTENT_REPLAYED_HEADER as REPLAYED_HEADER } from '@agentry/core';

export interface StoredResponse {
  status: number;
  headers: [string, string][];
  body: Uint8Array;
}

export type IdempotencyBegin =
  | { kind: 'new'; commit(response: StoredResponse): void; abandon(): void }
  | { kind: 'replay'; response: StoredResponse }
  | { kind: 'conflict'; problem: Problem }
  | { kind: 'in-progress'; problem: Problem };

export interface IdempotencyStore {
  /** Claims `key` within `scope` for a request with `fingerprint`; `windowMs` defaults to the store's window. */
  begin(scope: string, key: string, fingerprint: string, windowMs?: number): IdempotencyBegin;
  /** The key a request carries per the operation's AWP contract (key_field in the input, its header, or Idempotency-Key). */
  keyFor(operation: Operation, headers: Headers, input: unknown): string | undefined;
  /** Window (ms) for the operation: contract `window` ("24h", "10m", ISO 8601 "PT24H") else the store default. */
  windowFor(operation: Operation): number;
}

export interface IdempotencyStoreOptions {
  /** How long keys are remembered when the operation's contract says nothing (default 24 h). */
  windowMs?: number;
  /** Most keys remembered at once (default 10,000). */
  maxEntries?: number;
  /** Milliseconds since the epoch (default `Date.now`); tests inject a clock. */
  now?: () => number;
}

type Entry =
  | { state: 'running'; fingerprint: string; expiresAt: number; windowMs: number }
  | { state: 'done'; fingerprint: string; expiresAt: number; response: StoredResponse };

const DEFAULT_WINDOW_MS = 24 * 60 * 60 * 1000;
const DEFAULT_MAX_ENTRIES = 10_000;

export function createIdempotencyStore(options: IdempotencyStoreOptions = {}): IdempotencyStore {
  const now = options.now ?? Date.now;
  const defaultWindowMs = options.windowMs ?? DEFAULT_WINDOW_MS;
  const entries = new RecentMap<string, Entry>(options.maxEntries ?? DEFAULT_MAX_ENTRIES);

  return {
    begin(scope, key, fingerprint, windowMs = defaultWindowMs) {
      const id = digest(JSON.stringify([scope, key]));
      const at = now();
      const found = entries.get(id);
      if (found !== undefined && found.expiresAt > at) {
        if (found.fingerprint !== fingerprint) return { kind: 'conflict', problem: reusedProblem() };
        if (found.state === 'running') return { kind: 'in-progress', problem: inUseProblem() };
        return { kind: 'replay', response: replayOf(found.response) };
      }
      const claim: Entry = { state: 'running', fingerprint, expiresAt: at + windowMs, windowMs };
      entries.set(id, claim);
      // Only the claim this call made may be settled: after expiry or eviction the key may belong to another.
      const stillOurs = (): boolean => entries.peek(id) === claim;
      return {
        kind: 'new',
        commit(response) {
          if (!stillOurs()) return;
          entries.set(id, {
            state: 'done',
            fingerprint,
            expiresAt: now() + claim.windowMs,
            response: copyOf(response),
          });
        },
        abandon() {
          if (stillOurs()) entries.delete(id);
        },
      };
    },

    keyFor(operation, headers, input) {
      const contract = operation.idempotency;
      if (contract?.supported === false) return undefined;
      const field = contract?.keyField;
      if (field !== undefined && isRecord(input)) {
        const value = input[field];
        if (typeof value === 'string' && value.trim() !== '') return value;
      }
      return headerKey(headers, contract?.header) ?? headerKey(headers, IDEMPOTENCY_HEADER);
    },

    windowFor(operation) {
      const window = operation.idempotency?.window;
      return (window === undefined ? undefined : parseDuration(window)) ?? defaultWindowMs;
    },
  };
}

/** SHA-256 (hex) of the RFC 8785 canonical JSON of `{operation, input}`: equal requests, equal fingerprints. */
export function requestFingerprint(operation: string, input: unknown): string {
  return digest(canonicalJson({ operation, input: input === undefined ? null : input }));
}

/** The scope a key lives in: one agent's operation, for one caller (its key, caller-key.ts). */
export function idempotencyScope(agentId: string, operation: string, caller: string): string {
  return JSON.stringify([agentId, operation, caller]);
}

function replayOf(response: StoredResponse): StoredResponse {
  const headers = response.headers.filter(([name]) => name.toLowerCase() !== REPLAYED_HEADER.toLowerCase());
  headers.push([REPLAYED_HEADER, 'true']);
  return { status: response.status, headers, body: response.body.slice() };
}

function copyOf(response: StoredResponse): StoredResponse {
  return {
    status: response.status,
    headers: response.headers.map(([name, value]): [string, string] => [name, value]),
    body: response.body.slice(),
  };
}

function reusedProblem(): Problem {
  return policyProblem({
    status: 409,
    title: 'Idempotency key reused',
    code: 'IdempotencyKeyReused',
    detail:
      'This idempotency key was already used for a different request (another operation or input). Send a new key with a new request; repeat a request only with its own key.',
  });
}

function inUseProblem(): Problem {
  return policyProblem({
    status: 409,
    title: 'Request with this idempotency key in progress',
    code: 'IdempotencyKeyInUse',
    detail:
      'A request with this idempotency key is still running. Retry the same request later to receive its response.',
  });
}

function headerKey(headers: Headers, header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const value = headers.get(header);
  if (value === null) return undefined;
  const key = unquote(value.trim());
  return key === '' ? undefined : key;
}

/** The IETF Idempotency-Key draft sends the key as a structured-field string: `"abc"`. */
function unquote(value: string): string {
  return /^"[^"\\]*"$/.test(value) ? value.slice(1, -1) : value;
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
