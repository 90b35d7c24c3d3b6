/**
 * The transports Agentry speaks, by binding kind. A binding of any other kind (`other`: agent+matrix, a WoA private
 * transport, a TD form in CoAP or MQTT), or one its kind's transport does not speak (A2A over gRPC), is
 * reported with the transport's name.
 *
 * MCP's transport is loaded on its first call: it brings the MCP SDK (about half a second of loading), which a
 * process that never calls an MCP server (every `agentry` command but invoke, a registry that never gateways to
 * one) should not pay for.
 */
import type { Binding, McpBinding } from '@agentry/core';
import { contextDetails, type ErrorContext } from '../error-mapping.js';
import { UnsupportedTransportError } from '../errors.js';
import { a2aTransport } from './a2a.js';
import { httpTransport } from './http.js';
import { localTransport } from './local.js';
import type { BindingTransport } from './types.js';
import { unixTransport } from './unix.js';
import { woaRestTransport } from './woa-rest.js';
import { wssTransport } from './wss.js';

const mcpTransport: BindingTransport<McpBinding> = {
  kind: 'mcp',
  async call(ctx) {
    const { mcpTransport: loaded } = await import('./mcp.js');
    return loaded.call(ctx);
  },
};

const transports = new Map<Binding['kind'], BindingTransport>(
  [
    woaRestTransport,
    httpTransport,
    mcpTransport,
    a2aTransport,
    wssTransport,
    unixTransport,
    localTransport,
  ].map((transport) => [transport.kind, transport as BindingTransport]),
);

export function transportFor(binding: Binding): BindingTransport | undefined {
  const transport = transports.get(binding.kind);
  return transport === undefined || transport.supports?.(binding) === false ? undefined : transport;
}

export function isSupported(binding: Binding): boolean {
  return transportFor(binding) !== undefined;
}

/** The transport's name as the description gave it: `matrix`, `com.example.x`, `a2a (GRPC)`, `coap`. */
export function transportName(binding: Binding): string {
  if (binding.kind === 'other') return binding.protocol;
  if (binding.kind === 'a2a') return `a2a (${binding.protocolBinding})`;
  return binding.kind;
}

export function unsupportedTransport(
  bindings: readonly Binding[],
  ctx: ErrorContext,
): UnsupportedTransportError {
  const names = [...new Set(bindings.map(transportName))];
  const who = ctx.agent === undefined ? 'The agent' : `Agent "${ctx.agent.id}"`;
  const what = ctx.operation === undefined ? '' : ` for operation "${ctx.operation}"`;
  return new UnsupportedTransportError(
    `${who} can only be called${what} over ${names.join(', ')}, which Agentry does not speak (it speaks WoA REST, HTTP endpoints, MCP, A2A JSON-RPC and HTTP+JSON, wss, unix and local).`,
    contextDetails(ctx),
    names[0] ?? 'none',
  );
}
