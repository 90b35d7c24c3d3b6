/** URL helpers shared by codecs. Pure string work: no fetching. */

/** True for an absolute URL with the given schemes (default: any scheme). */
export function isAbsoluteUrl(value: string, schemes?: readonly string[]): boolean {
  if (!URL.canParse(value)) return false;
  if (schemes === undefined) return true;
  const protocol = new URL(value).protocol.slice(0, -1);
  return schemes.includes(protocol);
}

/** Resolves `reference` against `base` when it is relative; returns it unchanged when it is absolute or no base. */
export function resolveUrl(reference: string, base: string | undefined): string {
  if (URL.canParse(reference)) return reference;
  if (base === undefined || !URL.canParse(reference, base)) return reference;
  return new URL(reference, base).href;
}

/** `base` without trailing slashes, for joining with absolute paths. */
export function trimTrailingSlash(base: string): string {
  let end = base.length;
  while (end > 0 && base.charCodeAt(end - 1) === 0x2f) end--;
  return end === base.length ? base : base.slice(0, end);
}

/**
 * `text` without runs of `char` at either end. A loop, not `/^-+|-+$/`: the regex retries its second branch at
 * every position of an inner run (`a----…a`), which is quadratic in the run's length.
 */
export function trimEdges(text: string, char: string): string {
  const code = char.charCodeAt(0);
  let start = 0;
  let end = text.length;
  while (start < end && text.charCodeAt(start) === code) start++;
  while (end > start && text.charCodeAt(end - 1) === code) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

/** Outside printable ASCII (control characters included: they take the general path, which is only slower). */
const NOT_PRINTABLE_ASCII = /[^ -~]/;
const COMBINING_MARKS = /[\u0300-\u036f]/g;
const NOT_SLUG = /[^a-z0-9]+/g;

/** A URL-safe token from free text: `Document Summarizer` → `document-summarizer`. */
export function slugify(text: string): string {
  const slug = NOT_PRINTABLE_ASCII.test(text)
    ? trimEdges(text.normalize('NFKD').replace(COMBINING_MARKS, '').toLowerCase().replace(NOT_SLUG, '-'), '-')
    : asciiSlug(text);
  return slug === '' ? 'agent' : slug;
}

/**
 * What the general path makes of printable ASCII (its own NFKD form, without combining marks), in one pass:
 * letters lowercased, each run of other characters one dash, none at either end.
 */
function asciiSlug(text: string): string {
  let slug = '';
  let dash = false;
  for (let i = 0; i < text.length; i++) {
    let code = text.charCodeAt(i);
    if (code >= 65 && code <= 90) code += 32;
    if ((code >= 97 && code <= 122) || (code >= 48 && code <= 57)) {
      if (dash && slug !== '') slug += '-';
      dash = false;
      slug += String.fromCharCode(code);
    } else {
      dash = true;
    }
  }
  return slug;
}
