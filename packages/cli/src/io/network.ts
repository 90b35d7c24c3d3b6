/**
 * The network policy shared by every command that fetches: HTTPS and public addresses only, unless the user opts
 * in with a flag or the matching environment variable (for local development).
 */
import { createSecureFetcher, type FetchPolicy, type SecureFetcher } from '@agentry/client';
import type { Command } from 'commander';

export interface NetworkOptions {
  allowHttp?: boolean;
  allowPrivateNetwork?: boolean;
}

/** `--allow-http` and `--allow-private-network`: flags and description. */
export const NETWORK_OPTIONS = {
  allowHttp: ['--allow-http', 'allow plain http:// URLs (also AGENTRY_ALLOW_HTTP=1); for local development'],
  allowPrivateNetwork: [
    '--allow-private-network',
    'allow loopback, private and link-local addresses (also AGENTRY_ALLOW_PRIVATE_NETWORK=1); for local development',
  ],
} as const;

/** Adds `--allow-http` and `--allow-private-network` to a command. */
export function addNetworkOptions(command: Command): Command {
  return command.option(...NETWORK_OPTIONS.allowHttp).option(...NETWORK_OPTIONS.allowPrivateNetwork);
}

function envFlag(name: string): boolean {
  const value = process.env[name];
  return value !== undefined && /^(1|true|yes|on)$/i.test(value.trim());
}

export function fetchPolicy(options: NetworkOptions): FetchPolicy {
  return {
    allowHttp: options.allowHttp === true || envFlag('AGENTRY_ALLOW_HTTP'),
    allowPrivateNetwork: options.allowPrivateNetwork === true || envFlag('AGENTRY_ALLOW_PRIVATE_NETWORK'),
    userAgent: 'agentry-cli/0.1',
  };
}

export function createFetcher(options: NetworkOptions): SecureFetcher {
  return createSecureFetcher(fetchPolicy(options));
}

/** True when `source` is an absolute URL with a scheme (rather than a file path). */
export function looksLikeUrl(source: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(source);
}
