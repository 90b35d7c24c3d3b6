/**
 * Durations as agent descriptions write them: AWP's short forms (`24h`, `7d`, `10m`, `30s`), spelled-out units
 * (`1 hour`, `90 minutes`) and ISO 8601 durations limited to days and time (`P1D`, `PT24H`, `PT1H30M`, `PT0.5S`).
 * Years and months are refused: their length depends on the calendar.
 */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Unit spellings → milliseconds. `m` is minutes, never months. */
const UNIT_MS: Readonly<Record<string, number>> = {
  s: SECOND,
  sec: SECOND,
  secs: SECOND,
  second: SECOND,
  seconds: SECOND,
  m: MINUTE,
  min: MINUTE,
  mins: MINUTE,
  minute: MINUTE,
  minutes: MINUTE,
  h: HOUR,
  hr: HOUR,
  hrs: HOUR,
  hour: HOUR,
  hours: HOUR,
  d: DAY,
  day: DAY,
  days: DAY,
};

/** Milliseconds in one `unit` (any spelling above, any case), or undefined for an unknown unit. */
export function unitMilliseconds(unit: string): number | undefined {
  const key = unit.toLowerCase();
  return Object.hasOwn(UNIT_MS, key) ? UNIT_MS[key] : undefined;
}

const SHORT_FORM = /^(\d+(?:\.\d+)?)\s*([a-z]+)$/i;
const ISO_FORM =
  /^P(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/i;

/** The duration in whole milliseconds (> 0), or undefined when `text` is not a duration we read. */
export function parseDuration(text: string): number | undefined {
  const trimmed = text.trim();
  const short = SHORT_FORM.exec(trimmed);
  if (short !== null) {
    const unit = unitMilliseconds(short[2]!);
    return unit === undefined ? undefined : positiveMilliseconds(Number(short[1]) * unit);
  }
  const iso = ISO_FORM.exec(trimmed);
  // `P` and `PT` alone match the pattern but say nothing.
  if (iso === null || iso.slice(1).every((part) => part === undefined)) return undefined;
  if (/T$/i.test(trimmed)) return undefined;
  const [days, hours, minutes, seconds] = iso.slice(1).map((part) => (part === undefined ? 0 : Number(part)));
  return positiveMilliseconds(days! * DAY + hours! * HOUR + minutes! * MINUTE + seconds! * SECOND);
}

function positiveMilliseconds(ms: number): number | undefined {
  const rounded = Math.round(ms);
  return Number.isSafeInteger(rounded) && rounded > 0 ? rounded : undefined;
}
