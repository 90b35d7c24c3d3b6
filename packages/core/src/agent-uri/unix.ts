/**
 * Where an `agent+unix://` URI puts its socket. Two spellings are accepted:
 *
 * 1. The socket path in the URI's path, empty authority: `agent+unix:///run/agents/planner.sock/gen-iti`. The socket
 *    path runs up to and including the first segment ending in `.sock`; what follows is the request path
 *    (`/gen-iti`). Without a `.sock` segment the whole path is the socket and the request path is `/`.
 * 2. The socket path percent-encoded as the authority (the `http+unix` convention):
 *    `agent+unix://%2Frun%2Fagents%2Fplanner.sock/gen-iti`. The whole path is the request path.
 *
 * Either way the socket path must be absolute. Case is kept: file names are case-sensitive.
 */
import { percentDecode } from './chars.js';
import { AgentUriError } from './errors.js';
import type { UnixSocketAddress } from './types.js';

const SOCKET_SUFFIX = '.sock';

export function unixSocketAddress(
  host: string,
  hostOffset: number,
  path: string,
  pathOffset: number,
  input: string,
): UnixSocketAddress {
  if (host !== '') {
    if (!host.startsWith('/')) {
      throw new AgentUriError(
        `The socket path '${host}' in the authority at offset ${hostOffset} must be absolute: percent-encode it whole, e.g. agent+unix://%2Frun%2Fagents%2Fx.sock/path.`,
        'authority',
        hostOffset,
        input,
      );
    }
    return { socketPath: host, requestPath: path === '' ? '/' : path };
  }
  if (path === '' || path === '/') {
    throw new AgentUriError(
      `agent+unix:// needs a socket path at offset ${pathOffset}: agent+unix:///run/agents/x.sock or agent+unix://%2Frun%2Fagents%2Fx.sock/path.`,
      'path',
      pathOffset,
      input,
    );
  }
  const { socket, request } = splitUnixPath(path, pathOffset, input);
  return {
    socketPath: percentDecode(socket, pathOffset, input, 'path'),
    requestPath: request === '' ? '/' : request,
  };
}

/** Splits an agent+unix path (socket in the path) into the socket's part and the request path, both as written. */
export function splitUnixPath(
  path: string,
  pathOffset = 0,
  input = path,
): { socket: string; request: string } {
  const segments = path.split('/').slice(1);
  const socketEnd = segments.findIndex((segment) =>
    percentDecode(segment, pathOffset, input, 'path').endsWith(SOCKET_SUFFIX),
  );
  if (socketEnd < 0) return { socket: path, request: '' };
  const socket = `/${segments.slice(0, socketEnd + 1).join('/')}`;
  return { socket, request: path.slice(socket.length) };
}
