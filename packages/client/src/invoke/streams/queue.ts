/**
 * A push-to-pull bridge: callbacks (WebSocket messages) push values, a `for await` loop pulls them. Values pushed
 * before anyone pulls are kept in order; a failure is delivered after the values before it.
 */
export class AsyncQueue<T> implements AsyncIterable<T> {
  private readonly values: T[] = [];
  private waiting:
    | { resolve: (result: IteratorResult<T>) => void; reject: (error: unknown) => void }
    | undefined;
  private failure: { error: unknown } | undefined;
  private ended = false;

  constructor(private readonly onReturn: () => void = () => {}) {}

  push(value: T): void {
    if (this.ended || this.failure) return;
    if (this.waiting) {
      const { resolve } = this.waiting;
      this.waiting = undefined;
      resolve({ value, done: false });
    } else this.values.push(value);
  }

  fail(error: unknown): void {
    if (this.ended || this.failure) return;
    this.failure = { error };
    if (this.waiting && this.values.length === 0) {
      const { reject } = this.waiting;
      this.waiting = undefined;
      reject(error);
    }
  }

  end(): void {
    if (this.ended || this.failure) return;
    this.ended = true;
    if (this.waiting && this.values.length === 0) {
      const { resolve } = this.waiting;
      this.waiting = undefined;
      resolve({ value: undefined, done: true });
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => {
        if (this.values.length > 0) return Promise.resolve({ value: this.values.shift()!, done: false });
        if (this.failure) return Promise.reject(this.failure.error);
        if (this.ended) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve, reject) => {
          this.waiting = { resolve, reject };
        });
      },
      return: () => {
        this.ended = true;
        this.values.length = 0;
        this.onReturn();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
