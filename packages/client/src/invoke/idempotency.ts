/**
 * AWP idempotency contracts (§9 `idempotency: {supported, key_field, window}`, plus a header where one is
 * declared): the key goes in the input field the contract names and/or its header; with no contract the
 * conventional `Idempotency-Key` header carries it. An operation that supports keys gets a fresh one when the
 * caller gave none, so that its retries are safe.
 */
import { randomUUID } from 'node:crypto';
import { IDEMPOTENCY_HEADER, type JsonValue, type Operation } from '@agentry/core';
import { isObject } from './json.js';

export { IDEMPOTENCY_HEADER } from '@agentry/core';

export interface AppliedKey {
  key?: string;
  input: JsonValue;
  headers: Record<string, string>;
}

export function applyIdempotencyKey(
  spec: Operation | undefined,
  input: JsonValue,
  given: string | undefined,
): AppliedKey {
  const contract = spec?.idempotency;
  const key = given ?? (contract?.supported === true ? randomUUID() : undefined);
  if (key === undefined) return { input, headers: {} };
  const headers: Record<string, string> = {};
  let out = input;
  const keyField = contract?.keyField;
  if (keyField !== undefined && isObject(input)) {
    // A key the caller already put in the input wins: it is the one the caller will retry with.
    const existing = input[keyField];
    if (typeof existing === 'string' && existing !== '')
      return { key: existing, input, headers: headerFor(contract?.header, existing, true) };
    out = { ...input, [keyField]: key };
  }
  Object.assign(headers, headerFor(contract?.header, key, keyField !== undefined && isObject(input)));
  return { key, input: out, headers };
}

/** The contract's header; the conventional header unless the key already travels in the input. */
function headerFor(header: string | undefined, key: string, inInput: boolean): Record<string, string> {
  if (header !== undefined) return { [header]: key };
  return inInput ? {} : { [IDEMPOTENCY_HEADER]: key };
}
