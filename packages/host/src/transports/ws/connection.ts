/**
 * One WebSocket connection of Agentry's NDJSON binding. Each request line starts a call through `runtime.call`
 * with the handshake's headers (so auth, rate limits and confirmation run as over HTTP), plus the metadata the
 * message carries where no header says it; its chunks (when the caller asked to stream), then one `result` or
 * `error` message answer it, each carrying the request's `id`. Calls may share a connection; the caller closes it
 * when it has its answers (our client opens one per call). A malformed message is answered with a 400 problem and
 * the connection is closed, since what follows it cannot be trusted to be in step.
 */
import type WebSocket from 'ws';
import type { Problem } from '../../errors.js';
import { problems } from '../../errors.js';
import { headersWithMeta } from '../../runtime/call-meta.js';
import { outcomeEvents, type TaskWaiter } from '../../runtime/outcome-events.js';
import type { HostRuntime } from '../../runtime/types.js';
import {
  badRequest,
  type CallMessage,
  chunkMessage,
  errorMessage,
  type MessageId,
  parseCallMessage,
  resultMessage,
  splitLines,
} from './messages.js';

export interface ConnectionContext {
  runtime: HostRuntime;
  /** The handshake's headers. */
  headers: Headers;
  /** The agent the upgrade path named, if it named one. */
  agentId?: string;
  clientAddress?: string;
  waitForTask: TaskWaiter;
  /** Closes a connection that has no call running and has been silent this long. */
  idleTimeoutMs: number;
}

/** Close codes (RFC 6455 §7.4.1). */
const CLOSE_NORMAL = 1000;
const CLOSE_UNSUPPORTED = 1003;
const CLOSE_POLICY = 1008;

export function serveConnection(socket: WebSocket, context: ConnectionContext): void {
  const running = new Map<MessageId, AbortController>();
  let idleTimer: NodeJS.Timeout | undefined;
  const armIdleTimer = (): void => {
    if (idleTimer !== undefined) clearTimeout(idleTimer);
    idleTimer = undefined;
    if (running.size > 0 || socket.readyState !== socket.OPEN) return;
    idleTimer = setTimeout(() => socket.close(CLOSE_NORMAL, 'idle'), context.idleTimeoutMs);
    idleTimer.unref();
  };
  armIdleTimer();

  socket.on('message', (data, isBinary) => {
    if (isBinary) {
      refuse(socket, null, 'Send NDJSON in text frames; binary frames are not read.', CLOSE_UNSUPPORTED);
      return;
    }
    for (const line of splitLines(rawText(data))) {
      const parsed = parseCallMessage(line);
      if (!parsed.ok) {
        refuse(socket, parsed.id, parsed.problem, CLOSE_POLICY);
        return;
      }
      const { message } = parsed;
      if (running.has(message.id)) {
        refuse(
          socket,
          message.id,
          `A call with id ${JSON.stringify(message.id)} is already running.`,
          CLOSE_POLICY,
        );
        return;
      }
      const controller = new AbortController();
      running.set(message.id, controller);
      armIdleTimer();
      void runCall(socket, context, message, controller.signal).finally(() => {
        running.delete(message.id);
        armIdleTimer();
      });
    }
  });
  socket.on('close', () => {
    if (idleTimer !== undefined) clearTimeout(idleTimer);
    for (const controller of running.values())
      controller.abort(new Error('The WebSocket connection closed.'));
    running.clear();
  });
  // A broken connection also emits 'close'; the error itself has no one to be reported to.
  socket.on('error', () => {});
}

async function runCall(
  socket: WebSocket,
  context: ConnectionContext,
  message: CallMessage,
  signal: AbortSignal,
): Promise<void> {
  const agentId = context.agentId ?? message.agent;
  if (agentId === undefined) {
    await send(
      socket,
      errorMessage(message.id, badRequest('"agent" is required on this endpoint.', '/agent')),
    );
    return;
  }
  if (context.agentId !== undefined && message.agent !== undefined && message.agent !== context.agentId) {
    const detail = `The message names agent "${message.agent}", but this connection is for agent "${context.agentId}".`;
    await send(socket, errorMessage(message.id, badRequest(detail, '/agent')));
    return;
  }
  const headers = headersWithMeta(context.headers, message.meta);
  try {
    const outcome = await context.runtime.call({
      agentId,
      operation: message.operation ?? defaultOperation(context.runtime, agentId),
      input: message.input,
      headers,
      transport: 'wss',
      stream: message.stream,
      signal,
      ...(context.clientAddress === undefined ? {} : { clientAddress: context.clientAddress }),
    });
    for await (const event of outcomeEvents(outcome, context.waitForTask, { headers, signal })) {
      if (event.type === 'chunk') {
        if (message.stream) await send(socket, chunkMessage(message.id, event.data));
      } else if (event.type === 'result') await send(socket, resultMessage(message.id, event.output));
      else await send(socket, errorMessage(message.id, event.problem));
    }
  } catch {
    if (signal.aborted) return;
    // The runtime answers failures as problems; what is thrown past it is a fault of the host's, not told.
    await send(socket, errorMessage(message.id, problems.internal()));
  }
}

/** WoA §5: an envelope without an operation means the agent's only one, else `default`. */
function defaultOperation(runtime: HostRuntime, agentId: string): string {
  const agent = runtime.agents().find((hosted) => hosted.agent.id === agentId)?.agent;
  return agent?.operations.length === 1 ? agent.operations[0]!.name : 'default';
}

/** Answers a malformed message, then closes the connection once the answer is on its way. */
function refuse(socket: WebSocket, id: MessageId | null, problem: Problem | string, code: number): void {
  const body = typeof problem === 'string' ? badRequest(problem) : problem;
  if (socket.readyState !== socket.OPEN) return;
  socket.send(errorMessage(id, body), () => socket.close(code, body.title));
}

/** Sends a message, resolving when it is handed to the socket, so a fast stream waits for a slow reader. */
function send(socket: WebSocket, text: string): Promise<void> {
  if (socket.readyState !== socket.OPEN) return Promise.resolve();
  return new Promise((resolve) => socket.send(text, () => resolve()));
}

function rawText(data: WebSocket.RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return data.toString('utf8');
}
