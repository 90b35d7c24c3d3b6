/** What the host reports about itself: handler failures, invalid outputs, documents with issues, failed callbacks. */
export interface HostLogger {
  error(message: string, details?: Record<string, unknown>): void;
  warn(message: string, details?: Record<string, unknown>): void;
}

/** Writes to the console (stderr), one line per entry with its details as JSON. */
export const consoleLogger: HostLogger = {
  error(message, details) {
    console.error(`[agentry-host] ${message}`, ...(details === undefined ? [] : [details]));
  },
  warn(message, details) {
    console.warn(`[agentry-host] ${message}`, ...(details === undefined ? [] : [details]));
  },
};

/** The fields of an error worth logging (name, message, stack, cause), never sent to callers. */
export function errorDetails(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { error: String(error) };
  const out: Record<string, unknown> = { name: error.name, message: error.message };
  if (error.stack !== undefined) out['stack'] = error.stack;
  if (error.cause !== undefined) out['cause'] = errorDetails(error.cause);
  return out;
}
