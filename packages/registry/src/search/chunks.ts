/**
 * Lists cut into pieces a statement at a time: an `IN (…)` list or a multi-row insert of the whole list could pass
 * SQLite's limit on bound parameters.
 */

/** Items per statement. */
const STATEMENT_CHUNK = 500;

export function chunks<T>(items: readonly T[], size = STATEMENT_CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
