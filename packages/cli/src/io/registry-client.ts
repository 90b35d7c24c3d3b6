/**
 * Talking to an Agentry registry from the CLI (`register`, `search`): where it is (`--registry`, else
 * AGENTRY_REGISTRY, else the local default), the caller's token (`--token`, else AGENTRY_TOKEN), and its problem
 * answers turned into messages a person can act on.
 */

import { trimTrailingSlash } from '@agentry/core';
import type { Command } from 'commander';
import { UsageError } from './errors.js';

export const DEFAULT_REGISTRY = 'http://127.0.0.1:7420';

export interface RegistryOptions {
  registry?: string;
  token?: string;
}

export function addRegistryOptions(command: Command): Command {
  return command
    .option('--registry <url>', `the registry (default: AGENTRY_REGISTRY, else ${DEFAULT_REGISTRY})`)
    .option('--token <token>', 'a registry token (default: AGENTRY_TOKEN)');
}

export interface RegistryAnswer {
  status: number;
  headers: Headers;
  body: unknown;
}

export class RegistryError extends Error {
  override readonly name = 'RegistryError';
  constructor(
    message: string,
    readonly status: number,
    readonly body: unknown,
  ) {
    super(message);
  }
}

/** Calls the registry; a non-2xx answer is a RegistryError carrying the problem's detail and pointers. */
export async function callRegistry(
  options: RegistryOptions,
  path: string,
  init: { method?: string; body?: unknown } = {},
): Promise<RegistryAnswer> {
  const base = trimTrailingSlash(options.registry ?? process.env['AGENTRY_REGISTRY'] ?? DEFAULT_REGISTRY);
  if (!URL.canParse(base)) throw new UsageError(`--registry must be a URL, not "${base}"`);
  const token = options.token ?? process.env['AGENTRY_TOKEN'];
  const headers: Record<string, string> = { accept: 'application/json' };
  if (token !== undefined && token !== '') headers['authorization'] = `Bearer ${token}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(`${base}${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers,
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      signal: AbortSignal.timeout(60_000),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    throw new RegistryError(
      `Cannot reach the registry at ${base}${cause ? ` (${cause})` : ''}; is it running (agentry serve)? Pass --registry to use another.`,
      0,
      undefined,
    );
  }
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    // Not JSON: keep the text for the message.
  }
  if (!response.ok) throw new RegistryError(problemMessage(response.status, body), response.status, body);
  return { status: response.status, headers: response.headers, body };
}

/** `403 Forbidden: detail` plus one line per failure with its JSON pointer. */
function problemMessage(status: number, body: unknown): string {
  if (typeof body !== 'object' || body === null) {
    return `The registry answered ${status}${typeof body === 'string' && body !== '' ? `: ${body.slice(0, 200)}` : ''}`;
  }
  const problem = body as {
    title?: string;
    detail?: string;
    errors?: Array<{ pointer?: string; detail?: string; message?: string }>;
  };
  const lines = [
    `The registry answered ${status}${problem.title ? ` ${problem.title}` : ''}: ${problem.detail ?? ''}`.trim(),
  ];
  for (const failure of problem.errors ?? []) {
    const said = failure.detail ?? failure.message ?? '';
    // A single failure is often the detail itself: not said twice.
    if (said !== '' && problem.detail?.includes(said)) continue;
    lines.push(`  ${failure.pointer || '/'}: ${said}`);
  }
  if (status === 401)
    lines.push(
      '  (pass --token or set AGENTRY_TOKEN; `agentry serve` prints the admin token on first start)',
    );
  return lines.join('\n');
}

/** A registry named on the command line: an http(s) URL, or a bare host name (https); without a trailing slash. */
export function registryUrl(value: string): string {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `https://${value}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new UsageError(`"${value}" is not a registry URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`"${value}" is not an http(s) URL`);
  }
  return trimTrailingSlash(url.href);
}

/** Comma-separated option values as a list. */
export function listOption(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const items = value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  return items.length > 0 ? items : undefined;
}
