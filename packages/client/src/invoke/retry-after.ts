/**
 * `Retry-After` (RFC 9110 §10.2.3): either a number of seconds or an HTTP-date (§5.6.7: IMF-fixdate, or the
 * obsolete RFC 850 and asctime forms recipients must accept). Anything else is ignored, as the RFC asks of
 * malformed fields; a date in the past means "now".
 */

const DELAY_SECONDS = /^\d+$/;
const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const LONG_DAY = '(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const MONTH = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const TIME = '\\d{2}:\\d{2}:\\d{2}';
const IMF_FIXDATE = new RegExp(`^${DAY}, \\d{2} ${MONTH} \\d{4} ${TIME} GMT$`);
const RFC_850 = new RegExp(`^${LONG_DAY}, \\d{2}-${MONTH}-\\d{2} ${TIME} GMT$`);
const ASCTIME = new RegExp(`^${DAY} ${MONTH} (?: \\d|\\d{2}) ${TIME} \\d{4}$`);

/** The wait `value` asks for in milliseconds, or undefined when it is absent or malformed. */
export function parseRetryAfter(
  value: string | null | undefined,
  now: number = Date.now(),
): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (DELAY_SECONDS.test(text)) {
    const seconds = Number(text);
    return Number.isSafeInteger(seconds * 1000) ? seconds * 1000 : undefined;
  }
  const at = parseHttpDate(text);
  return at === undefined ? undefined : Math.max(0, at - now);
}

/** An HTTP-date as epoch milliseconds. */
export function parseHttpDate(text: string): number | undefined {
  let at: number;
  if (IMF_FIXDATE.test(text) || RFC_850.test(text)) at = Date.parse(text);
  else if (ASCTIME.test(text)) at = Date.parse(`${text} GMT`);
  else return undefined;
  return Number.isNaN(at) ? undefined : at;
}
