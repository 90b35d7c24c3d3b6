/**
 * `agent+<transport>://` URIs (agent:// §6.1): the URI is the binding, no documents are read.
 * - `agent+https://host/path?q` → HTTP `https://host/path?q`, POST with a payload, GET without (§6.2);
 * - `agent+wss://host/path?q` → WebSocket `wss://host/path?q` (NDJSON messages, §8);
 * - `agent+unix://` → HTTP over the socket (see `UnixSocketAddress` for the two ways to name it);
 * - `agent+local://name` → the agent registered locally under `name`;
 * - `agent+matrix://` and tokens the draft does not define → an `other` binding and an issue: Agentry cannot call them.
 * Userinfo is not sent anywhere (credentials do not belong in URIs); the fragment is the caller's.
 */
import type { AgentUri, Binding } from '@agentry/core';

export interface TransportBinding {
  binding: Binding;
  methodByPayload: boolean;
  /** Why Agentry cannot call it, for the unsupported ones. */
  unsupported?: string;
}

export function transportBinding(uri: AgentUri, text: string): TransportBinding {
  switch (uri.transport) {
    case 'https':
      return {
        binding: { kind: 'http', url: networkUrl(uri, 'https'), method: 'POST' },
        methodByPayload: true,
      };
    case 'wss':
      return { binding: { kind: 'wss', url: networkUrl(uri, 'wss') }, methodByPayload: false };
    case 'unix': {
      const socket = uri.unixSocket!;
      const query = uri.queryString === undefined || uri.queryString === '' ? '' : `?${uri.queryString}`;
      const binding: Binding = { kind: 'unix', socketPath: socket.socketPath };
      // Without a request path the invoker's default applies.
      if (socket.requestPath !== '/' || query !== '') binding.path = socket.requestPath + query;
      return { binding, methodByPayload: false };
    }
    case 'local':
      return { binding: { kind: 'local', name: uri.authority.host }, methodByPayload: false };
    case 'matrix':
      return {
        binding: { kind: 'other', protocol: 'matrix', config: { uri: text } },
        methodByPayload: false,
        unsupported: `${text} names the Matrix transport (agent:// §6.1), which Agentry does not speak; use an agent:// URI to find another binding, or agent+https:// or agent+wss://.`,
      };
    default:
      return {
        binding: { kind: 'other', protocol: uri.protocol ?? 'unknown', config: { uri: text } },
        methodByPayload: false,
        unsupported: `${text} names the transport "${uri.protocol}", which agent:// §6.1 does not define and Agentry does not speak (it speaks https, wss, unix and local).`,
      };
  }
}

function networkUrl(uri: AgentUri, scheme: 'https' | 'wss'): string {
  const { host, hostKind, port } = uri.authority;
  const hostText = hostKind === 'ipv6' ? `[${host}]` : host;
  const query = uri.queryString === undefined ? '' : `?${uri.queryString}`;
  return new URL(`${scheme}://${hostText}${port === undefined ? '' : `:${port}`}${uri.path || '/'}${query}`)
    .href;
}

/** A name for the agent an explicit URI addresses: the local name, the socket's, or the first path segment. */
export function agentIdOf(uri: AgentUri): string {
  if (uri.transport === 'local') return uri.authority.host;
  if (uri.transport === 'unix') {
    const base = uri.unixSocket!.socketPath.split('/').filter(Boolean).pop() ?? 'agent';
    return base.endsWith('.sock') ? base.slice(0, -'.sock'.length) : base;
  }
  return uri.pathSegments.find((segment) => segment !== '') ?? uri.authority.host;
}
