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
  return base.replace(/\/+$/, '');
}

/** A URL-safe token from free text: `Document Summarizer` → `document-summarizer`. */
export function slugify(text: string): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug === '' ? 'agent' : slug;
}
