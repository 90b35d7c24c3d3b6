/**
 * Talking to an Agentry registry from the CLI (`register`, `search`) through @agentry/client's registry client:
 * where it is (`--registry`, else AGENTRY_REGISTRY, else the local default), the caller's token (`--token`, else
 * AGENTRY_TOKEN), and its failures turned into messages a person can act on.
 */

import {
  BadRegistryResponseError,
  createRegistryClient,
  type RegistryClient,
  type RegistryError,
  RegistryUnreachableError,
} from '@agentry/client';
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

/**
 * A client of the registry the options name (`--registry`, else AGENTRY_REGISTRY, else the local default), with the
 * caller's token. Requests use the global fetch: the registry is one the user chose, often on this machine.
 */
export function registryClientFor(options: RegistryOptions): RegistryClient {
  const baseUrl = registryBase(options);
  if (!URL.canParse(baseUrl)) throw new UsageError(`--registry must be a URL, not "${baseUrl}"`);
  const token = options.token ?? process.env['AGENTRY_TOKEN'];
  return createRegistryClient({ baseUrl, ...(token === undefined ? {} : { token }) });
}

/** What to tell the user of a registry failure: that it could not be reached, or its problem's detail and pointers. */
export function registryFailureMessage(error: RegistryError, options: RegistryOptions): string {
  if (error instanceof RegistryUnreachableError) {
    // The global fetch's TypeError says "fetch failed"; its cause names the system error (ECONNREFUSED).
    const cause = (error.cause as { cause?: { code?: string } } | undefined)?.cause?.code;
    return `Cannot reach the registry at ${registryBase(options)}${cause ? ` (${cause})` : ''}; is it running (agentry serve)? Pass --registry to use another.`;
  }
  if (error instanceof BadRegistryResponseError) return error.message;
  return problemMessage(error.status, error.body);
}

function registryBase(options: RegistryOptions): string {
  return trimTrailingSlash(options.registry ?? process.env['AGENTRY_REGISTRY'] ?? DEFAULT_REGISTRY);
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
