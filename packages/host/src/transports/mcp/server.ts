/**
 * The host's MCP server over Streamable HTTP (MCP §Transports), as a web-standard handler: one tool per hosted
 * operation (tools.ts), `tools/call` run through `runtime.call` so validation, auth, rate limits, idempotency,
 * confirmation and tasks behave as they do over HTTP. Stateless: every POST gets a fresh SDK server and transport,
 * no session id, so any replica can answer any request. A call whose client sent a `progressToken` is answered as
 * an SSE stream with a progress notification per streamed chunk; everything else is plain JSON.
 * docs/host-protocols.md describes the mapping.
 */
import { type Agent, parseJsonText } from '@agentry/core';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  type CallToolRequest,
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { problem, problems } from '../../errors.js';
import { headersWithMeta } from '../../runtime/call-meta.js';
import { outcomeEvents, type TaskWaiter } from '../../runtime/outcome-events.js';
import { pollingTaskWaiter, type TaskPollingOptions } from '../../runtime/tasks/polling.js';
import type { CallOutcome, HostRuntime } from '../../runtime/types.js';
import { readBoundedBody } from './bounded-body.js';
import { everyOperationNeedsAuth } from './endpoint-auth.js';
import { toolError, toolResult } from './results.js';
import { findTool, type HostedTool, hostedTools } from './tools.js';

export interface McpHandlerOptions {
  /** Serve one agent's operations only (an agent's own endpoint, `/agents/{id}/mcp`); default: every agent. */
  agentId?: string;
  /** `serverInfo` in the initialize result; default: the agent's id and version, or the host's name. */
  serverInfo?: { name: string; version: string; title?: string };
  /** Largest request body read (default 4 MiB, the SDK's own bound); larger ones get 413. */
  maxBodyBytes?: number;
  /**
   * How deferred operations are waited for: `GET /tasks/{id}` is polled through the host's own web handler
   * (default: `runtime.fetch`), bounded by `timeoutMs` (default 50 s). See runtime/tasks/polling.ts.
   */
  tasks?: TaskPollingOptions;
  /**
   * Whether the endpoint as a whole requires credentials, making a 401 from a call an HTTP 401 (with the runtime's
   * `WWW-Authenticate`) rather than a tool error. Default: true when every operation served demands credentials.
   */
  endpointAuth?: boolean;
}

const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;
const JSON_RPC_ERROR_HEADERS = { 'content-type': 'application/json' };

/** What the server adapter knows of the connection that the `Request` does not carry. */
export interface McpRequestContext {
  /** The caller's network address: anonymous callers are rate limited by it. */
  clientAddress?: string;
}

export type McpHandler = (request: Request, context?: McpRequestContext) => Promise<Response>;

export function createMcpHandler(runtime: HostRuntime, options: McpHandlerOptions = {}): McpHandler {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const waitForTask = pollingTaskWaiter(runtime, options.tasks);

  return async (request, requestContext = {}) => {
    if (request.method !== 'POST') {
      // Stateless: no standalone SSE stream (GET) and no session to end (DELETE); clients read 405 as "none".
      return new Response(null, { status: 405, headers: { allow: 'POST' } });
    }
    const body = await readBoundedBody(request, maxBodyBytes);
    if (body.kind === 'too-large') {
      return jsonRpcError(413, ErrorCode.InvalidRequest, `Request body exceeds ${maxBodyBytes} bytes.`);
    }
    // core's reader: a syntax error says where, and nesting past its limit is refused before anything recurses.
    const parsed = parseJsonText(body.text);
    if (!parsed.ok) return jsonRpcError(400, ErrorCode.ParseError, `Parse error: ${parsed.issue.message}`);
    const parsedBody: unknown = parsed.value;
    const agents = agentsServed(runtime, options.agentId);
    if (agents === undefined) {
      return jsonRpcError(404, ErrorCode.InvalidRequest, `No agent "${options.agentId}" is hosted here.`);
    }
    const endpointAuth = options.endpointAuth ?? everyOperationNeedsAuth(agents);
    const refusals: Refusal[] = [];
    const server = buildServer({
      runtime,
      agents,
      request,
      clientAddress: requestContext.clientAddress,
      serverInfo: options.serverInfo ?? defaultServerInfo(runtime, agents, options.agentId),
      waitForTask,
      onOutcome: (outcome) => {
        if (endpointAuth && outcome.kind === 'problem' && outcome.problem.status === 401)
          refusals.push(outcome);
      },
    });
    const streaming = wantsProgress(parsedBody);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: !streaming,
    });
    await server.connect(transport);
    // A caller that goes away aborts the calls still running for it (closing the server aborts their `signal`).
    request.signal.addEventListener('abort', () => void server.close(), { once: true });
    const response = await transport.handleRequest(request, { parsedBody });
    const refused = endpointAuth ? refusals : undefined;
    if (streaming) return settleStream(response, server, refused, runtime.baseUrl);
    await server.close();
    return refused?.[0] === undefined ? response : unauthorized(refused[0], runtime.baseUrl);
  };
}

type Refusal = Extract<CallOutcome, { kind: 'problem' }>;

interface ServerContext {
  runtime: HostRuntime;
  agents: readonly Agent[];
  request: Request;
  clientAddress: string | undefined;
  serverInfo: { name: string; version: string; title?: string };
  waitForTask: TaskWaiter;
  onOutcome: (outcome: CallOutcome) => void;
}

function buildServer(context: ServerContext): Server {
  const { agents } = context;
  const tools = hostedTools(agents);
  const server = new Server(context.serverInfo, { capabilities: { tools: { listChanged: false } } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    // Core's codec writes each definition in MCP's Tool shape (object-typed schemas, known annotation hints).
    tools: tools.map((tool) => tool.definition as Tool),
  }));
  server.setRequestHandler(CallToolRequestSchema, (call, extra) => {
    const tool = findTool(tools, agents, call.params.name);
    if (tool === undefined) throw unknownTool(call.params.name, tools);
    return callTool(context, tool, call, extra);
  });
  return server;
}

interface CallExtra {
  signal: AbortSignal;
  sendNotification: (notification: {
    method: 'notifications/progress';
    params: { progressToken: string | number; progress: number; message?: string };
  }) => Promise<void>;
}

async function callTool(
  context: ServerContext,
  tool: HostedTool,
  call: CallToolRequest,
  extra: CallExtra,
): Promise<CallToolResult> {
  const meta = call.params._meta ?? {};
  const progressToken = meta.progressToken;
  const headers = headersWithMeta(context.request.headers, meta);
  const outcome = await context.runtime.call({
    agentId: tool.agentId,
    operation: tool.operation,
    input: call.params.arguments ?? {},
    headers,
    transport: 'mcp',
    // Partial results can only reach a caller that asked for progress notifications.
    stream: progressToken !== undefined,
    signal: extra.signal,
    ...(context.clientAddress === undefined ? {} : { clientAddress: context.clientAddress }),
  });
  context.onOutcome(outcome);
  const errorOptions = { structured: tool.definition['outputSchema'] === undefined };
  let progress = 0;
  for await (const event of outcomeEvents(outcome, context.waitForTask, { headers, signal: extra.signal })) {
    if (event.type === 'result') return toolResult(event.output);
    if (event.type === 'error') return toolError(event.problem, errorOptions);
    if (progressToken === undefined) continue;
    progress += 1;
    await extra.sendNotification({
      method: 'notifications/progress',
      params: { progressToken, progress, message: JSON.stringify(event.data ?? null) },
    });
  }
  // outcomeEvents always ends with a final event.
  return toolError(problems.internal(), errorOptions);
}

/**
 * An SSE answer, released (its server closed) once it has been read or abandoned; or, when the endpoint needs auth
 * and a call was refused for want of credentials, an HTTP 401 instead. For that the answer is held until its first
 * event, by which time the call's outcome is known.
 */
async function settleStream(
  response: Response,
  server: Server,
  refusals: Refusal[] | undefined,
  baseUrl: string,
): Promise<Response> {
  if (response.body === null) {
    await server.close();
    return response;
  }
  const reader = response.body.getReader();
  let first: Awaited<ReturnType<typeof reader.read>> | undefined;
  if (refusals !== undefined) {
    first = await reader.read();
    if (refusals[0] !== undefined) {
      await reader.cancel();
      await server.close();
      return unauthorized(refusals[0], baseUrl);
    }
  }
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = first ?? (await reader.read());
      first = undefined;
      if (next.done) {
        controller.close();
        await server.close();
      } else controller.enqueue(next.value);
    },
    async cancel(reason) {
      await reader.cancel(reason);
      await server.close();
    },
  });
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

function unauthorized(refusal: Refusal, baseUrl: string): Response {
  const headers = new Headers({ 'content-type': 'application/problem+json' });
  headers.set('www-authenticate', refusal.headers.get('www-authenticate') ?? `Bearer realm="${baseUrl}"`);
  return new Response(JSON.stringify(refusal.problem), { status: 401, headers });
}

function agentsServed(runtime: HostRuntime, agentId: string | undefined): readonly Agent[] | undefined {
  const agents = runtime.agents().map((hosted) => hosted.agent);
  if (agentId === undefined) return agents;
  const agent = agents.find((candidate) => candidate.id === agentId);
  return agent === undefined ? undefined : [agent];
}

function defaultServerInfo(
  runtime: HostRuntime,
  agents: readonly Agent[],
  agentId: string | undefined,
): { name: string; version: string; title?: string } {
  const only = agentId !== undefined || agents.length === 1 ? agents[0] : undefined;
  if (only !== undefined) return { name: only.id, version: only.version ?? '0.0.0', title: only.name };
  return { name: new URL(runtime.baseUrl).host, version: '0.0.0' };
}

/** True when a message (or batch) calls a tool asking for progress, which needs an SSE answer. */
function wantsProgress(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((message) => {
    if (!isRecord(message) || message['method'] !== 'tools/call' || !isRecord(message['params']))
      return false;
    const meta = message['params']['_meta'];
    return isRecord(meta) && meta['progressToken'] !== undefined;
  });
}

/** MCP §Tools: an unknown tool is a protocol error (-32602); `data` is a problem naming the tools there are. */
function unknownTool(name: string, tools: readonly HostedTool[]): McpError {
  const available = tools.map((tool) => tool.name);
  const details = problem({
    status: 404,
    code: 'OperationNotFound',
    title: 'Unknown tool',
    detail: `No tool "${name}" here (tools: ${available.join(', ') || 'none'}).`,
    available,
  });
  return new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`, details);
}

function jsonRpcError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }), {
    status,
    headers: JSON_RPC_ERROR_HEADERS,
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
