/**
 * What the PostgreSQL lexical engine's writes and searches agree on: the text search configuration, how text is
 * split into words before PostgreSQL sees it, and how a posting's positions carry their field.
 */

/** The text search configuration the first lexical migration creates: Snowball English, no stop words. */
export const CONFIG = 'agentry_english';

/**
 * A posting's position is its field number times this plus its word position in the field (PostgreSQL's
 * positions stop at 16,383), so one array holds every field's positions, and two positions are neighbours in
 * one field exactly when they differ by one.
 */
export const FIELD_POSITIONS = 65_536;

/** The words of a text as FTS5's `unicode61 remove_diacritics 2` splits them, lower case, Latin accents removed. */
export function indexWords(text: string): string[] {
  return (
    text
      .normalize('NFD')
      .replace(/[\u0300-\u036f]/g, '')
      .normalize('NFC')
      .toLowerCase()
      .match(/[\p{L}\p{N}\p{M}]+/gu) ?? []
  );
}
