/**
 * HTTPS for the commands that serve (`host`, `serve`): `--tls-cert` and `--tls-key` (or `AGENTRY_TLS_CERT` and
 * `AGENTRY_TLS_KEY`), two PEM files read and checked as a pair before anything listens, so that a certificate
 * without its key, a file that cannot be read or a key that does not match is one line naming what to fix.
 */
import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import { UsageError } from './errors.js';

export interface TlsOptions {
  tlsCert?: string;
  tlsKey?: string;
}

/** The PEM contents a server is made with. */
export interface TlsFiles {
  cert: Buffer;
  key: Buffer;
}

/** `--tls-cert` and `--tls-key`: flags and descriptions. */
export const TLS_OPTIONS = {
  cert: [
    '--tls-cert <pem>',
    'serve HTTPS with this certificate (PEM file, chain included; also AGENTRY_TLS_CERT); needs --tls-key',
  ],
  key: ['--tls-key <pem>', "the certificate's private key (PEM file; also AGENTRY_TLS_KEY)"],
} as const;

/** Where one of the pair was named: the flag, else the environment variable. */
interface Source {
  path: string;
  name: string;
}

/** The certificate and key to serve HTTPS with, or undefined for plain HTTP (neither given). */
export function tlsFiles(options: TlsOptions, env: NodeJS.ProcessEnv = process.env): TlsFiles | undefined {
  const cert = sourceOf(options.tlsCert, '--tls-cert', env['AGENTRY_TLS_CERT'], 'AGENTRY_TLS_CERT');
  const key = sourceOf(options.tlsKey, '--tls-key', env['AGENTRY_TLS_KEY'], 'AGENTRY_TLS_KEY');
  if (cert === undefined && key === undefined) return undefined;
  if (key === undefined) {
    throw new UsageError(
      `${cert!.name} needs a private key: pass --tls-key <pem> (or set AGENTRY_TLS_KEY) with the certificate's key`,
    );
  }
  if (cert === undefined) {
    throw new UsageError(
      `${key.name} needs a certificate: pass --tls-cert <pem> (or set AGENTRY_TLS_CERT) with the key's certificate`,
    );
  }
  const files = { cert: readPem(cert), key: readPem(key) };
  try {
    createSecureContext(files);
  } catch (error) {
    throw new UsageError(
      `${cert.name} ${cert.path} and ${key.name} ${key.path} are not a PEM certificate and its private key (${(error as Error).message})`,
    );
  }
  return files;
}

function sourceOf(
  flag: string | undefined,
  flagName: string,
  variable: string | undefined,
  variableName: string,
): Source | undefined {
  if (flag !== undefined) return { path: flag, name: flagName };
  if (variable !== undefined && variable.trim() !== '') return { path: variable.trim(), name: variableName };
  return undefined;
}

function readPem(source: Source): Buffer {
  try {
    return readFileSync(source.path);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new UsageError(`${source.name}: cannot read ${source.path} (${reason})`);
  }
}
