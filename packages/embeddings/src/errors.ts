/** An embedding provider could not turn text into vectors: unreachable, refused, or answered something unusable. */
export class EmbeddingError extends Error {
  override readonly name = 'EmbeddingError';

  constructor(
    message: string,
    /** The provider's id. */
    readonly provider: string,
    /** The HTTP status, when a remote provider answered with an error. */
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
