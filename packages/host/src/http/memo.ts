/**
 * A bounded cache for a pure function of a header value. Callers send few distinct `Accept` and `Content-Type`
 * values, and parsing them again on every call is a visible part of a small call; the bound keeps a caller that
 * sends a new value each time from growing the cache (it is emptied when full).
 */
export function memoized<T>(compute: (header: string | null) => T, kept = 64): (header: string | null) => T {
  const cache = new Map<string | null, T>();
  return (header) => {
    if (cache.has(header)) return cache.get(header) as T;
    const value = compute(header);
    if (cache.size >= kept) cache.clear();
    cache.set(header, value);
    return value;
  };
}
