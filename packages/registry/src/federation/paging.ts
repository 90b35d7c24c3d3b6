/**
 * Fetching the JSON pages of another registry's listing, with the secure fetcher (an MCP Registry's here; an
 * Agentry registry's through @agentry/client's registry client), and the failures of either as `FederationError`s.
 */
import {
  BadRegistryResponseError,
  RegistryError,
  RegistryUnreachableError,
  type SecureFetcher,
} from '@agentry/client';
import { AgentryError, type AgentryErrorCode, parseJsonText } from '@agentry/core';

export class FederationError extends AgentryError {
  static override readonly code: AgentryErrorCode = 'ImportFailed';
  override readonly name = 'FederationError';
  constructor(
    message: string,
    readonly url: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * A registry client's failure as the federation says it: `<url>: <why>` when there was no answer (the fetch error
 * as the cause), `<url> answered HTTP <status>: <body>` for a failure status, else the client's own sentence. The
 * caller's abort reason, and anything that is not a registry failure, is returned as it is.
 */
export function federationFailure(error: unknown): unknown {
  if (!(error instanceof RegistryError)) return error;
  if (error instanceof RegistryUnreachableError) {
    const cause = error.cause;
    return new FederationError(
      `${error.url}: ${cause instanceof Error ? cause.message : String(cause)}`,
      error.url,
      {
        cause,
      },
    );
  }
  if (error instanceof BadRegistryResponseError) return new FederationError(error.message, error.url);
  return new FederationError(
    `${error.url} answered HTTP ${error.status}: ${error.text.slice(0, 200)}`,
    error.url,
  );
}

/** Pages read per import at most, so that a registry answering with endless cursors cannot keep an import going. */
export const MAX_PAGES = 10_000;

export interface JsonPage {
  json: unknown;
  headers: Headers;
}

export async function fetchJsonPage(
  fetcher: SecureFetcher,
  url: string,
  signal: AbortSignal | undefined,
): Promise<JsonPage> {
  let response: Response;
  try {
    ({ response } = await fetcher.fetch(url, {
      headers: { accept: 'application/json' },
      cacheMode: 'no-store',
      ...(signal === undefined ? {} : { signal }),
    }));
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    throw new FederationError(`${url}: ${error instanceof Error ? error.message : String(error)}`, url, {
      cause: error,
    });
  }
  const text = await response.text();
  if (response.status !== 200) {
    throw new FederationError(`${url} answered HTTP ${response.status}: ${text.slice(0, 200)}`, url);
  }
  const parsed = parseJsonText(text);
  if (!parsed.ok) throw new FederationError(`${url} did not answer JSON: ${parsed.issue.message}`, url);
  return { json: parsed.value, headers: response.headers };
}

/** `base` + `path` with the query parameters that have a value. */
export function pageUrl(
  base: string,
  path: string,
  query: Record<string, string | number | undefined>,
): string {
  const url = new URL(path.replace(/^\//, ''), base.endsWith('/') ? base : `${base}/`);
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== '') url.searchParams.set(name, String(value));
  }
  return url.href;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The later of two ISO 8601 times (either may be absent). */
export function later(a: string | undefined, b: string | undefined): string | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Date.parse(b) > Date.parse(a) ? b : a;
}
