/**
 * Times as the crawl records them: ISO 8601 in UTC with milliseconds (`toISOString`), which a crawl makes for
 * every document it asks for, and compares with the due times it stored in the same form.
 */

// The last time turned into text: a crawl asks for the same millisecond many times over.
let lastTime = Number.NaN;
let lastIso = '';

/** `new Date(time).toISOString()`, remembered for the last time asked. */
export function isoTime(time: number): string {
  if (time !== lastTime) {
    lastIso = new Date(time).toISOString();
    lastTime = time;
  }
  return lastIso;
}

const MAX_TIME = 8.64e15;

// YYYY-MM-DDTHH:mm:ss.sssZ: texts of this form sort as the times they name.
const CANONICAL = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** Whether the stored time `at` is after `time`; text in another form is parsed. */
export function isAfter(at: string, time: number): boolean {
  // Beyond the times a Date holds there is no text to compare with.
  if (!(Math.abs(time) <= MAX_TIME)) return Date.parse(at) > time;
  const text = isoTime(time);
  return at.length === 24 && text.length === 24 && CANONICAL.test(at) ? at > text : Date.parse(at) > time;
}
