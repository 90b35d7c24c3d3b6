/**
 * Text normalisation before rule matching. Injected instructions hide behind compatibility forms (fullwidth
 * letters), case, invisible characters splitting words, and odd spacing; matching the normalised form sees
 * through all of these with one plain set of patterns.
 */

/**
 * Invisible format characters a person does not see but a model reads: zero-width space/joiners, word joiner,
 * invisible operators, BOM, Mongolian vowel separator, soft hyphen, bidi marks, embeddings, overrides and
 * isolates, and the Unicode tag block (U+E0000–E007F, used to smuggle ASCII).
 */
const INVISIBLE =
  /[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]|\udb40[\udc00-\udc7f]/g;

/**
 * The text as rules see it: NFKC, lower case, invisible characters removed, runs of spaces and tabs collapsed to
 * one space and runs of line breaks to one line break (lines are kept: some markup is only markup at a line start).
 */
export function normalizeText(text: string): string {
  return text
    .normalize('NFKC')
    .replace(INVISIBLE, '')
    .toLowerCase()
    .replace(/\r\n?/g, '\n')
    .replace(/[^\S\n]+/g, ' ')
    .replace(/ ?\n[\s]*/g, '\n')
    .trim();
}

/** A short, single-line, printable excerpt of `text` around `[start, end)`, at most about `width` characters. */
export function excerptAround(text: string, start: number, end: number, width = 80): string {
  const matched = end - start;
  const room = Math.max(0, Math.floor((width - matched) / 2));
  const from = Math.max(0, start - room);
  const to = Math.min(text.length, Math.max(end, start + 1) + room);
  const piece = text
    .slice(from, Math.min(to, from + Math.max(width, 1)))
    // Control characters would corrupt logs and terminals that show the excerpt.
    .replace(/\p{Cc}+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return `${from > 0 ? '…' : ''}${piece}${to < text.length ? '…' : ''}`;
}
