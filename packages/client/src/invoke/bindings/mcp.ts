/**
 * MCP (WoA `mcp` transport, AWP `via: mcp`, MCP server descriptions): `tools/call` through the MCP SDK's `Client`,
 * over Streamable HTTP for servers with a URL (through the secure fetcher, so the SSRF and HTTPS rules hold) and
 * over stdio for servers started as local processes (only with `allowStdio`). The tool is the operation (or the
 * agent id, when WoA's `tool_field` says `agent`); `structuredContent` is the output when present, otherwise the
 * text content (read as JSON when it is JSON). A result with `isError` and a JSON-RPC error are `AgentError`s.
 */

import type { JsonObject, JsonValue, McpBinding } from '@agentry/core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { SecureFetcher } from '../../fetch/types.js';
import { type ErrorBody, readErrorBody, readErrorValue } from '../error-body.js';
import {
  agentErrorFrom,
  contextDetails,
  type ErrorContext,
  protocolError,
  transportErrorFrom,
} from '../error-mapping.js';
import { AgentError, TransportError } from '../errors.js';
import { errorFromResponse } from '../http/response.js';
import { isObject, tryParseJson } from '../json.js';
import { stdioCommandFor } from './mcp-stdio.js';
import type { BindingTransport, CallContext, RawResult } from './types.js';

const CLIENT_INFO = { name: 'agentry', version: '0.1.0' };

export const mcpTransport: BindingTransport<McpBinding> = {
  kind: 'mcp',
  async call(ctx: CallContext<McpBinding>): Promise<RawResult> {
    const { binding } = ctx;
    const url = remoteUrl(binding);
    const failures: HttpFailure = {};
    const errors: ErrorContext = { ...ctx.errors, endpoint: url ?? `stdio:${binding.server}` };
    const transport = url === undefined ? stdioTransport(ctx, errors) : httpTransport(url, ctx, failures);
    const client = new Client(CLIENT_INFO);
    const options = {
      ...(ctx.signal === undefined ? {} : { signal: ctx.signal }),
      ...(ctx.timeoutMs === undefined ? {} : { timeout: ctx.timeoutMs }),
    };
    try {
      await client.connect(transport, options);
      const meta = Object.fromEntries(Object.entries(ctx.meta).filter(([, value]) => value !== undefined));
      const result = await client.callTool(
        {
          name: toolName(ctx),
          arguments: isObject(ctx.input) ? ctx.input : {},
          ...(Object.keys(meta).length > 0 ? { _meta: meta } : {}),
        },
        undefined,
        options,
      );
      return { status: 200, headers: {}, output: outputOf(result as JsonObject, errors) };
    } catch (error) {
      throw await mcpError(error, errors, failures, ctx.signal);
    } finally {
      await client.close().catch(() => {});
    }
  },
};

/** The tool called: the operation, or the agent's id when the WoA binding's `tool_field` is `agent`. */
export function toolName(ctx: CallContext<McpBinding>): string {
  return ctx.binding.toolField === 'agent' ? ctx.agent.id : ctx.operation;
}

function remoteUrl(binding: McpBinding): string | undefined {
  if (binding.transport === 'stdio' || binding.package !== undefined) return undefined;
  return /^https?:\/\//i.test(binding.server) ? binding.server : undefined;
}

/** The last HTTP error answer, kept so that its status and body (not the SDK's summary) make the error. */
interface HttpFailure {
  response?: Response;
}

/** Streamable HTTP (the deprecated HTTP+SSE transport is not spoken; servers of both usually serve this too). */
function httpTransport(url: string, ctx: CallContext<McpBinding>, failures: HttpFailure): Transport {
  return new StreamableHTTPClientTransport(new URL(url), {
    fetch: secureFetchLike(ctx.fetcher, ctx, failures),
    requestInit: { headers: ctx.headers },
  });
}

/** The secure fetcher in `fetch`'s clothes, for the SDK. Streams are handed back unread. */
function secureFetchLike(
  fetcher: SecureFetcher,
  ctx: CallContext<McpBinding>,
  failures: HttpFailure,
): (url: string | URL, init?: RequestInit) => Promise<Response> {
  return async (url, init = {}) => {
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => {
      headers[name] = value;
    });
    const body = init.body;
    const request = {
      method: init.method ?? 'GET',
      headers,
      responseType: 'stream' as const,
      cacheMode: 'no-store' as const,
      credentials: ctx.credentials,
      ...(typeof body === 'string' ? { body } : {}),
      ...(init.signal ? { signal: init.signal } : {}),
      ...(ctx.timeoutMs === undefined ? {} : { timeoutMs: ctx.timeoutMs }),
    };
    const { response } = await fetcher.fetch(String(url), request);
    if (response.status < 400) return response;
    // Error answers are read here in full: the SDK cancels bodies it does not want, and keeping the answer lets
    // its status and body (not the SDK's summary) make the error.
    const errorBody = await readUpTo(response, fetcher.policy.maxResponseBytes ?? DEFAULT_MAX_ERROR_BYTES);
    const copy = new Response(errorBody, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
    if (request.method === 'POST') failures.response = copy.clone();
    return copy;
  };
}

const DEFAULT_MAX_ERROR_BYTES = 5 * 1024 * 1024;

/** The body's first `limit` bytes (an error body has no business being larger). */
async function readUpTo(response: Response, limit: number): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (response.body === null) return new Uint8Array();
  for await (const chunk of response.body) {
    chunks.push(chunk);
    size += chunk.byteLength;
    if (size >= limit) break;
  }
  return Buffer.concat(chunks).subarray(0, limit);
}

function stdioTransport(ctx: CallContext<McpBinding>, errors: ErrorContext): Transport {
  const command = stdioCommandFor(ctx.binding);
  if (command === undefined) {
    throw new TransportError(
      `MCP server "${ctx.binding.server}" of agent "${ctx.agent.id}" is neither a URL nor a command or package Agentry can start.`,
      contextDetails(errors),
      'protocol',
    );
  }
  if (!ctx.allowStdio) {
    throw new TransportError(
      `Refused to start MCP server process "${[command.command, ...command.args].join(' ')}" for agent "${ctx.agent.id}": stdio servers run a local program named by the agent description. Pass allowStdio: true (--allow-stdio) to allow it.`,
      contextDetails(errors),
      'refused',
    );
  }
  return new StdioClientTransport({
    command: command.command,
    args: command.args,
    env: { ...getDefaultEnvironment(), ...command.env },
    // The server's diagnostics are its own business; they must not interleave with the caller's output.
    stderr: 'ignore',
  });
}

/** The output of a `tools/call` result; an `isError` result is thrown. */
function outputOf(result: JsonObject, errors: ErrorContext): JsonValue {
  const content = Array.isArray(result['content']) ? result['content'] : [];
  const structured = result['structuredContent'];
  if (result['isError'] === true) {
    const body: ErrorBody = isObject(structured)
      ? readErrorValue(structured)
      : // Servers that cannot attach structured content (the tool declares an output schema) send the problem as text.
        readErrorBody(textOf(content), null);
    throw agentErrorFrom(body, errors);
  }
  if (structured !== undefined) return structured;
  if ('toolResult' in result) return result['toolResult'] ?? null;
  if (content.length === 1 && isObject(content[0]) && content[0]['type'] === 'text') {
    const text = String(content[0]['text'] ?? '');
    return tryParseJson(text) ?? text;
  }
  return content;
}

function textOf(content: JsonValue[]): string {
  return content
    .filter((item): item is JsonObject => isObject(item) && item['type'] === 'text')
    .map((item) => String(item['text'] ?? ''))
    .join('\n');
}

async function mcpError(
  error: unknown,
  errors: ErrorContext,
  failures: HttpFailure,
  signal: AbortSignal | undefined,
): Promise<unknown> {
  if (signal?.aborted) return signal.reason;
  if (error instanceof AgentError) return error;
  if (error instanceof StreamableHTTPError && failures.response !== undefined) {
    return errorFromResponse(failures.response, errors);
  }
  if (error instanceof McpError) {
    // The SDK prefixes "MCP error <code>: " (once when a server built the error with it, once more here).
    const message = error.message.replace(/^(?:MCP error -?\d+: )+/, '');
    const data = error.data === undefined ? undefined : (error.data as JsonValue);
    const body = readErrorValue({
      jsonrpc: '2.0',
      error: { code: error.code, message, ...(data === undefined ? {} : { data }) },
    });
    if (error.code === -32001 && /timed out/i.test(message)) {
      return new TransportError(
        `${errors.endpoint} did not answer in time: ${message}.`,
        contextDetails(errors),
        'timeout',
      );
    }
    return agentErrorFrom(body, errors);
  }
  if (error instanceof StreamableHTTPError) {
    return protocolError(`${errors.endpoint}: ${error.message}.`, errors, error);
  }
  return transportErrorFrom(error, errors, signal);
}
