/**
 * Schema checks around a call: the input against the operation's input schema before anything is sent, the output
 * against its output schema after. `strict` throws (with a JSON pointer per failure), `warn` reports warnings,
 * `off` skips. A schema that cannot be compiled is reported and skipped rather than blocking the call.
 */
import { compileSchema, type JsonSchema, type JsonValue, type Operation } from '@agentry/core';
import { contextDetails, type ErrorContext } from './error-mapping.js';
import { InvalidInputError, InvalidOutputError, type SchemaFailure } from './errors.js';
import type { InvokeWarning, ValidationMode } from './types.js';

type Warn = (warning: InvokeWarning) => void;

export function checkInput(
  spec: Operation | undefined,
  input: JsonValue,
  mode: ValidationMode,
  ctx: ErrorContext,
  warn: Warn,
): void {
  const failures = failuresOf(spec?.input, input, 'input', mode, warn);
  if (failures.length === 0) return;
  const message = `The input to ${describe(ctx)} does not match its input schema: ${list(failures)}.`;
  if (mode === 'strict') {
    throw new InvalidInputError(message, {
      ...contextDetails(ctx),
      pointer: failures[0]!.pointer,
      failures,
      detail: message,
    });
  }
  for (const failure of failures) {
    warn({
      code: 'input.invalid',
      message: `Input ${at(failure)}: ${failure.message}.`,
      pointer: failure.pointer,
    });
  }
}

export function checkOutput(
  spec: Operation | undefined,
  output: JsonValue,
  mode: ValidationMode,
  ctx: ErrorContext,
  warn: Warn,
): void {
  const failures = failuresOf(spec?.output, output, 'output', mode, warn);
  if (failures.length === 0) return;
  const message = `The output of ${describe(ctx)} does not match its output schema: ${list(failures)}. The output is in the error's "output" member.`;
  if (mode === 'strict') {
    throw new InvalidOutputError(
      message,
      { ...contextDetails(ctx), pointer: failures[0]!.pointer, failures, detail: message },
      output,
    );
  }
  for (const failure of failures) {
    warn({
      code: 'output.invalid',
      message: `Output ${at(failure)}: ${failure.message}.`,
      pointer: failure.pointer,
    });
  }
}

function failuresOf(
  schema: JsonSchema | undefined,
  instance: JsonValue,
  what: 'input' | 'output',
  mode: ValidationMode,
  warn: Warn,
): SchemaFailure[] {
  if (mode === 'off' || schema === undefined) return [];
  let validate: ReturnType<typeof compileSchema>;
  try {
    validate = compileSchema(schema);
  } catch (error) {
    warn({
      code: `${what}.schema-unusable`,
      message: `The operation's ${what} schema cannot be compiled, so the ${what} was not checked: ${error instanceof Error ? error.message : String(error)}.`,
    });
    return [];
  }
  // Ours print the pointer separately from the reason.
  return validate(instance).map(({ pointer, reason, keyword }) => ({ pointer, message: reason, keyword }));
}

function describe(ctx: ErrorContext): string {
  const operation = ctx.operation === undefined ? 'the call' : `operation "${ctx.operation}"`;
  return ctx.agent === undefined ? operation : `${operation} of agent "${ctx.agent.id}"`;
}

function at(failure: SchemaFailure): string {
  return failure.pointer === '' ? '(root)' : failure.pointer;
}

function list(failures: SchemaFailure[]): string {
  const shown = failures.slice(0, 5).map((failure) => `${at(failure)}: ${failure.message}`);
  if (failures.length > 5) shown.push(`and ${failures.length - 5} more`);
  return shown.join('; ');
}
