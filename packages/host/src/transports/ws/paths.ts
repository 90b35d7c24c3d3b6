/**
 * Which upgrade requests the WebSocket endpoint answers, and the agent a path names. By default `/ws` (the agent is
 * named in each message) and `/agents/{id}/ws` (the path names it), under the base URL's path.
 */

/** `{ agentId }` when the path names an agent, `{}` when messages do, undefined when the path is not ours. */
export type PathMatch = { agentId?: string } | undefined;

const DEFAULT_PATH = /^\/(?:ws|agents\/(?<agent>[^/]+)\/ws)\/?$/;

/**
 * A matcher for `path`: a string is one exact path whose messages name the agent; a RegExp is tested against the
 * path, and its `agent` group (else its first group), when it matched something, names the agent.
 */
export function pathMatcher(path: RegExp | string | undefined, baseUrl: string): (url: string) => PathMatch {
  const prefix = new URL(baseUrl).pathname.replace(/\/+$/, '');
  return (url) => {
    let pathname: string;
    try {
      pathname = new URL(url, 'http://upgrade.invalid').pathname;
    } catch {
      return undefined;
    }
    if (prefix !== '') {
      if (pathname !== prefix && !pathname.startsWith(`${prefix}/`)) return undefined;
      pathname = pathname.slice(prefix.length) || '/';
    }
    if (typeof path === 'string') return pathname === path ? {} : undefined;
    const match = (path ?? DEFAULT_PATH).exec(pathname);
    if (match === null) return undefined;
    const raw = match.groups?.['agent'] ?? match[1];
    if (raw === undefined) return {};
    try {
      return { agentId: decodeURIComponent(raw) };
    } catch {
      // A malformed escape names no agent we could host.
      return { agentId: raw };
    }
  };
}
