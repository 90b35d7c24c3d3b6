/**
 * Content negotiation (RFC 9110 §12.5.1): which of the media types the host offers an `Accept` header prefers.
 * Ranges are matched most specific first (`text/event-stream` over `text/*` over `*\/*`), a `q` of 0 refuses, and
 * among equal qualities the host's own order decides. Media type parameters other than `q` are ignored.
 */

interface AcceptRange {
  type: string;
  subtype: string;
  q: number;
}

/** The ranges of an `Accept` header; malformed members are skipped, as a lenient server does. */
export function parseAccept(header: string): AcceptRange[] {
  const ranges: AcceptRange[] = [];
  for (const member of header.split(',')) {
    const [range, ...params] = member.split(';');
    const match = /^\s*([A-Za-z0-9!#$%&'*+.^_`|~-]+)\/([A-Za-z0-9!#$%&'*+.^_`|~-]+)\s*$/.exec(range ?? '');
    if (match === null) continue;
    const type = match[1]!.toLowerCase();
    const subtype = match[2]!.toLowerCase();
    if (type === '*' && subtype !== '*') continue;
    let q = 1;
    for (const param of params) {
      const [name, value] = param.split('=');
      if (name?.trim().toLowerCase() !== 'q' || value === undefined) continue;
      const parsed = Number(value.trim());
      q = /^\s*(0(\.\d{0,3})?|1(\.0{0,3})?)\s*$/.test(value) && Number.isFinite(parsed) ? parsed : 1;
    }
    ranges.push({ type, subtype, q });
  }
  return ranges;
}

/** The quality `ranges` give `mediaType` (its most specific matching range), or 0 when none matches. */
function qualityOf(ranges: readonly AcceptRange[], mediaType: string): number {
  const [type, subtype] = mediaType.toLowerCase().split('/') as [string, string];
  let best: { specificity: number; q: number } | undefined;
  for (const range of ranges) {
    let specificity: number;
    if (range.type === type && range.subtype === subtype) specificity = 2;
    else if (range.type === type && range.subtype === '*') specificity = 1;
    else if (range.type === '*') specificity = 0;
    else continue;
    if (best === undefined || specificity > best.specificity) best = { specificity, q: range.q };
  }
  return best?.q ?? 0;
}

/**
 * The offered media type the request accepts best, or undefined when it accepts none. No `Accept` header (or one
 * with no readable member) accepts anything, so the first offer wins.
 */
export function negotiate(header: string | null, offered: readonly string[]): string | undefined {
  if (header === null || header.trim() === '') return offered[0];
  const ranges = parseAccept(header);
  if (ranges.length === 0) return offered[0];
  let chosen: string | undefined;
  let chosenQ = 0;
  for (const mediaType of offered) {
    const q = qualityOf(ranges, mediaType);
    if (q > chosenQ) {
      chosen = mediaType;
      chosenQ = q;
    }
  }
  return chosen;
}
