/**
 * `agent+local://<name>` (agent:// §6.1): an agent registered in this process with `registerLocalAgent`, or else
 * one listening in the local socket directory (`<dir>/<name>.sock`), called like a unix binding: the envelope
 * `{agent, operation, input}` POSTed as JSON to `/invoke`.
 */
import type { JsonValue, LocalBinding } from '@agentry/core';
import { contextDetails } from '../error-mapping.js';
import { AgentError, AgentNotFoundError, OperationNotFoundError, RemoteError } from '../errors.js';
import { httpExchange } from '../http/exchange.js';
import { socketSend, socketUrl } from '../http/socket.js';
import {
  getLocalAgent,
  isValidLocalName,
  type LocalAgentRegistration,
  type LocalCallContext,
} from '../local/registry.js';
import { isSocket, localSocketPath } from '../local/socket-directory.js';
import type { InvokeEvent } from '../types.js';
import { envelopeOf } from './envelope.js';
import type { BindingTransport, CallContext, RawResult } from './types.js';
import { DEFAULT_SOCKET_PATH } from './unix.js';

export const localTransport: BindingTransport<LocalBinding> = {
  kind: 'local',
  async call(ctx: CallContext<LocalBinding>): Promise<RawResult> {
    const { name } = ctx.binding;
    if (!isValidLocalName(name)) {
      throw new AgentNotFoundError(
        `${JSON.stringify(name)} is not a valid local agent name (letters, digits, ".", "_", "-").`,
        contextDetails(ctx.errors),
      );
    }
    const registered = getLocalAgent(name);
    if (registered !== undefined) return callRegistered(registered, ctx);
    const socketPath = localSocketPath(name);
    if (await isSocket(socketPath)) {
      const errors = { ...ctx.errors, endpoint: `unix:${socketPath}${DEFAULT_SOCKET_PATH}` };
      return httpExchange(
        socketSend(socketPath, errors),
        {
          url: socketUrl(DEFAULT_SOCKET_PATH),
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(envelopeOf(ctx, name)),
        },
        { ...ctx, errors },
      );
    }
    throw new AgentNotFoundError(
      `No local agent named "${name}": none is registered in this process (registerLocalAgent) and nothing listens on ${socketPath} (set AGENTRY_LOCAL_DIR to look elsewhere).`,
      contextDetails(ctx.errors),
    );
  },
};

async function callRegistered(
  registration: LocalAgentRegistration,
  ctx: CallContext<LocalBinding>,
): Promise<RawResult> {
  const handler = Object.hasOwn(registration.handlers, ctx.operation)
    ? registration.handlers[ctx.operation]
    : undefined;
  if (handler === undefined) {
    const available = Object.keys(registration.handlers);
    throw new OperationNotFoundError(
      `Local agent "${registration.name}" has no operation "${ctx.operation}" (it has: ${available.join(', ') || 'none'}).`,
      contextDetails(ctx.errors),
      available,
    );
  }
  const context: LocalCallContext = { agent: registration.name, operation: ctx.operation };
  for (const [key, value] of Object.entries(ctx.meta)) {
    if (value !== undefined) (context as unknown as Record<string, string>)[key] = value;
  }
  if (ctx.signal !== undefined) context.signal = ctx.signal;
  let answer: Awaited<ReturnType<typeof handler>>;
  try {
    // A copy, as if the input had crossed a wire: the handler cannot change the caller's object.
    answer = await handler(structuredClone(ctx.input), context);
  } catch (error) {
    throw handlerError(error, registration.name, ctx);
  }
  if (isAsyncIterable(answer)) {
    return { status: 200, headers: {}, events: chunks(answer, registration.name, ctx) };
  }
  return { status: 200, headers: {}, output: copyOutput(answer) };
}

async function* chunks(
  source: AsyncIterable<JsonValue>,
  name: string,
  ctx: CallContext<LocalBinding>,
): AsyncGenerator<InvokeEvent> {
  try {
    for await (const data of source) yield { event: 'chunk', data: copyOutput(data) };
  } catch (error) {
    throw handlerError(error, name, ctx);
  }
}

function handlerError(error: unknown, name: string, ctx: CallContext<LocalBinding>): unknown {
  if (ctx.signal?.aborted) return ctx.signal.reason;
  if (error instanceof AgentError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new RemoteError(`Local agent "${name}" (operation "${ctx.operation}") failed: ${message}`, {
    ...contextDetails(ctx.errors),
    detail: message,
    cause: error,
  });
}

function isAsyncIterable(value: unknown): value is AsyncIterable<JsonValue> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}

/** Outputs are copied too (and `undefined` becomes null), so they behave like values read off a wire. */
function copyOutput(value: JsonValue | undefined): JsonValue {
  return value === undefined ? null : structuredClone(value);
}
