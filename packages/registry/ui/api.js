// The registry's public API, as any client uses it. Credentials live in sessionStorage: this tab only.

const TOKEN_KEY = 'agentry.token';
const AGENT_KEY = 'agentry.agent-credential';

export const credentials = {
  token: () => sessionStorage.getItem(TOKEN_KEY) ?? '',
  setToken(value) {
    if (value) sessionStorage.setItem(TOKEN_KEY, value);
    else sessionStorage.removeItem(TOKEN_KEY);
  },
  /** The agent's own credential for the gateway: `{ kind: 'api_key' | 'authorization', value }`. */
  agent() {
    try {
      return JSON.parse(sessionStorage.getItem(AGENT_KEY) ?? 'null') ?? { kind: 'api_key', value: '' };
    } catch {
      return { kind: 'api_key', value: '' };
    }
  },
  setAgent(value) {
    sessionStorage.setItem(AGENT_KEY, JSON.stringify(value));
  },
};

export class ApiError extends Error {
  constructor(message, status, body) {
    super(message);
    this.status = status;
    this.body = body;
  }
}

export function authHeaders(extra = {}) {
  const token = credentials.token();
  return token ? { ...extra, Authorization: `Bearer ${token}` } : extra;
}

/** Calls the API; answers `{ body, response }`, or throws an ApiError with the problem's detail. */
export async function api(path, init = {}) {
  const options = { ...init, headers: authHeaders(init.headers) };
  if (init.json !== undefined) {
    options.method = init.method ?? 'POST';
    options.body = JSON.stringify(init.json);
    options.headers['content-type'] = 'application/json';
  }
  const response = await fetch(path, options);
  const type = response.headers.get('content-type') ?? '';
  const body = type.includes('json') ? await response.json() : await response.text();
  if (!response.ok) throw new ApiError(problemText(body, response.status), response.status, body);
  return { body, response };
}

export function problemText(body, status) {
  return body?.detail ?? body?.error?.message ?? body?.title ?? `HTTP ${status}`;
}

export function nextCursor(response) {
  return response.headers.get('agentry-next-cursor') ?? undefined;
}

export const agentPath = (id) => `/app/agents/${encodeURIComponent(id)}`;
export const apiAgentPath = (id) => `/agents/${encodeURIComponent(id)}`;
