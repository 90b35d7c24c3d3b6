/** JSON columns: the store writes them itself, so a value that does not parse is corruption, not user error. */

export function parseColumn<T>(text: string, column: string): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new Error(`The store's ${column} column holds text that is not JSON; the database is damaged.`);
  }
}

export function parseNullableColumn<T>(text: string | null, column: string): T | undefined {
  return text === null ? undefined : parseColumn<T>(text, column);
}
