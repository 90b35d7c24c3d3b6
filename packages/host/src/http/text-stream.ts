/**
 * A response body made of the texts of an async iterator's items, pulled as the reader asks for them: a slow reader
 * holds the iterator back, and a reader that goes away ends it (so an operation streaming to nobody is stopped).
 */
const encoder = new TextEncoder();

export function textStream<T>(
  items: AsyncIterator<T>,
  toText: (item: T) => string,
): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const step = await items.next();
        if (step.done) {
          controller.close();
          return;
        }
        controller.enqueue(encoder.encode(toText(step.value)));
      } catch (error) {
        controller.error(error);
      }
    },
    async cancel() {
      await items.return?.(undefined);
    },
  });
}
