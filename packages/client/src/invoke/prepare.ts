/**
 * Everything before the wire, shared by `invoke` and `invokeStream`: the target resolved, the operation and binding
 * chosen, governance checked, the idempotency key applied, the input validated, and the call's metadata built.
 */
import type { Binding, JsonValue } from '@agentry/core';
import { createSecureFetcher } from '../fetch/secure-fetch.js';
import type { SecureFetcher } from '../fetch/types.js';
import { transportFor, unsupportedTransport } from './bindings/registry.js';
import type { BindingTransport, CallContext } from './bindings/types.js';
import type { ErrorContext } from './error-mapping.js';
import { assertConfirmed, stateWarnings } from './governance.js';
import { callMetadata } from './headers.js';
import { applyIdempotencyKey } from './idempotency.js';
import { resolveTarget } from './resolver.js';
import { isRepeatable, type RetryRun, retryPolicy } from './retry.js';
import { selectBinding, selectOperation } from './select.js';
import { type Target, targetOf } from './target.js';
import type { InvokeOptions, InvokeTarget, InvokeWarning } from './types.js';
import { checkInput } from './validation.js';

/** agent:// §6.2: an endpoint whose method follows the payload is called with POST when there is input, GET when there is none. */
function methodForPayload(binding: Binding, resolved: Target, input: JsonValue | undefined): Binding {
  if (!resolved.methodByPayload || binding !== resolved.binding || binding.kind !== 'http') return binding;
  return input === null || input === undefined
    ? { ...binding, method: 'GET' }
    : { ...binding, method: 'POST' };
}

export interface PreparedCall {
  transport: BindingTransport;
  ctx: CallContext;
  retry: RetryRun;
  errors: ErrorContext;
  warnings: InvokeWarning[];
  warn: (warning: InvokeWarning) => void;
  /** Whether the call opened something `dispose` must close (a fetcher it created). */
  owns: boolean;
  /** Closes what this call opened (a fetcher it created). */
  dispose: () => Promise<void>;
}

export async function prepareCall(
  target: InvokeTarget,
  input: JsonValue,
  options: InvokeOptions,
  stream: boolean,
  warnings: InvokeWarning[] = [],
): Promise<PreparedCall> {
  const ownFetcher = options.fetcher === undefined;
  const fetcher: SecureFetcher = options.fetcher ?? createSecureFetcher();
  const dispose = async (): Promise<void> => {
    if (ownFetcher) await fetcher.close();
  };
  const warn = (warning: InvokeWarning): void => {
    warnings.push(warning);
    options.onWarning?.(warning);
  };
  try {
    const found = targetOf(target, options, fetcher, resolveTarget);
    const resolved = found instanceof Promise ? await found : found;
    const { agent } = resolved;
    const operation = selectOperation(agent, options.operation ?? resolved.operation);
    const errors: ErrorContext = { agent, operation: operation.name };
    assertConfirmed(operation.spec, options.confirm, errors);
    for (const warning of stateWarnings(agent, operation.name)) warn(warning);
    const binding = methodForPayload(selectBinding(agent, operation.name, resolved.binding), resolved, input);
    // Callers without input may pass undefined (the CLI does); on the wire that is JSON null.
    const given: JsonValue = input === undefined ? null : input;
    const transport = transportFor(binding);
    if (transport === undefined) throw unsupportedTransport([binding], errors);

    const idempotency = applyIdempotencyKey(operation.spec, given, options.idempotencyKey);
    checkInput(operation.spec, idempotency.input, options.validate ?? 'strict', errors, warn);
    const version = options.version ?? resolved.version;
    const pending = callMetadata({
      agent,
      binding,
      spec: operation.spec,
      options,
      ...(version === undefined ? {} : { version }),
      idempotency,
      subject: resolved.subject,
    });
    const metadata = pending instanceof Promise ? await pending : pending;

    const ctx: CallContext = {
      agent,
      binding,
      operation: operation.name,
      input: idempotency.input,
      headers: metadata.headers,
      query: metadata.query,
      meta: metadata.meta,
      credentials: metadata.credentials,
      fetcher,
      stream,
      allowStdio: options.allowStdio === true,
      errors,
    };
    if (operation.spec !== undefined) ctx.spec = operation.spec;
    if (options.auth !== undefined) ctx.auth = options.auth;
    if (options.timeoutMs !== undefined) ctx.timeoutMs = options.timeoutMs;
    if (options.signal !== undefined) ctx.signal = options.signal;

    const retry: RetryRun = {
      policy: retryPolicy(options.retry),
      repeatable: isRepeatable(operation.spec, binding, idempotency.key),
    };
    if (options.signal !== undefined) retry.signal = options.signal;
    if (options.onRetry !== undefined) retry.onRetry = options.onRetry;
    return { transport, ctx, retry, errors, warnings, warn, owns: ownFetcher, dispose };
  } catch (error) {
    await dispose();
    throw error;
  }
}
