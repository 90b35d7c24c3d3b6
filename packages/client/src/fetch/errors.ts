/** Errors of the secure fetcher. Each says what was refused and, where a setting would allow it, which one. */
import { AgentryError, type AgentryErrorCode } from '@agentry/core';

export type RefusalReason =
  | 'scheme' // not http(s)
  | 'http-not-allowed' // plain http without allowHttp
  | 'private-address' // resolves to a non-public address without allowPrivateNetwork
  | 'invalid-url'
  | 'too-many-redirects'
  | 'redirect-loop';

export class FetchError extends AgentryError {
  static override readonly code: AgentryErrorCode = 'FetchFailed';
  override readonly name: string = 'FetchError';
  constructor(
    message: string,
    readonly url: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The request was not sent (or a redirect not followed) because the policy forbids it. */
export class FetchRefusedError extends FetchError {
  static override readonly code: AgentryErrorCode = 'AddressRefused';
  override readonly name = 'FetchRefusedError';
  constructor(
    message: string,
    url: string,
    readonly reason: RefusalReason,
    /** The setting that would allow it, e.g. `--allow-private-network`, when one would. */
    readonly allowedBy?: string,
  ) {
    super(message, url);
  }
}

export class FetchTimeoutError extends FetchError {
  static override readonly code: AgentryErrorCode = 'Timeout';
  override readonly name = 'FetchTimeoutError';
}

export class ResponseTooLargeError extends FetchError {
  static override readonly code: AgentryErrorCode = 'ResponseTooLarge';
  override readonly name = 'ResponseTooLargeError';
  constructor(
    message: string,
    url: string,
    readonly limitBytes: number,
  ) {
    super(message, url);
  }
}

/** The connection failed (DNS, TCP, TLS). */
export class NetworkError extends FetchError {
  static override readonly code: AgentryErrorCode = 'FetchFailed';
  override readonly name = 'NetworkError';
}
