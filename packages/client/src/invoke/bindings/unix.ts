/**
 * `agent+unix://` (agent:// §6.1): HTTP over a unix domain socket. The envelope `{agent, operation, input}` is
 * POSTed as JSON to the binding's `path` (default `/invoke`); the answer is read like any HTTP answer (output,
 * stream, 202 task, problem details).
 */
import type { UnixBinding } from '@agentry/core';
import { httpExchange } from '../http/exchange.js';
import { socketSend, socketUrl } from '../http/socket.js';
import { envelopeOf } from './envelope.js';
import { assertSocketAllowed } from './local-access.js';
import type { BindingTransport, CallContext, RawResult } from './types.js';

export const DEFAULT_SOCKET_PATH = '/invoke';

export const unixTransport: BindingTransport<UnixBinding> = {
  kind: 'unix',
  call(ctx: CallContext<UnixBinding>): Promise<RawResult> {
    const { socketPath } = ctx.binding;
    assertSocketAllowed(ctx, socketPath);
    const path = ctx.binding.path ?? DEFAULT_SOCKET_PATH;
    const socketCtx = { ...ctx, errors: { ...ctx.errors, endpoint: `unix:${socketPath}${path}` } };
    return httpExchange(
      socketSend(socketPath, socketCtx.errors),
      {
        url: socketUrl(path),
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(envelopeOf(ctx)),
      },
      socketCtx,
    );
  },
};
