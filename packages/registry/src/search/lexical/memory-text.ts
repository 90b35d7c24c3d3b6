/**
 * Text analysis of the in-memory lexical index (`memory-postings.ts`): the terms SQLite's FTS5 tokenizer
 * `porter unicode61 remove_diacritics 2` makes of a text, so that the index in memory ranks exactly as the FTS5
 * engine (`sqlite.ts`) does, and which query words an agent's text matched, as FTS5's `highlight()` marks them.
 *
 * Words: as unicode61 cuts and folds them (`fts5-unicode.ts`: letters, digits, and what FTS5's table says besides;
 * case folded, Latin diacritics removed). Over the shared corpora and benchmarks (58,277 distinct texts, and a few
 * made to be hard: accents written both ways, Greek, Devanagari, emoji) every text's terms here are FTS5's, in
 * order; `indexWords` (postgres-text.ts, which keeps every combining mark and strips Greek accents) differs on 16.
 *
 * Stems: FTS5's porter tokenizer stems a token of 3 to 64 bytes (UTF-8) with Porter's original algorithm, reading
 * bytes (a byte of a non-ASCII letter is a consonant: `straße` → `straß`), and passes shorter or longer tokens
 * through. The stemming here is the npm package `stemmer` (wooorm, Porter's original algorithm) run on the same
 * bytes. Compared with FTS5's vocabulary (fts5vocab) word by word: the bench's generated agents (20,000 agents and
 * 2,000 queries: 20,511 distinct words) and the shared corpora and benchmarks (41,793 distinct words): no stem
 * differs.
 */
import { stemmer } from 'stemmer';
import { FIELD_COLUMNS } from './fields.js';
import { fts5Fold, fts5WordPattern } from './fts5-unicode.js';
import type { LexicalQuery, QueryClause } from './query.js';
import type { FieldMatches, LexicalFields } from './types.js';

const WORD = fts5WordPattern();
/** A word of ASCII letters and digits only (the words of a text hold nothing else that is ASCII). */
const ASCII = /^[\dA-Za-z]*$/;
const ASCII_WORD = /[\dA-Za-z]+/g;
/** FTS5's porter stems tokens of this many bytes (`FTS5_PORTER_MAX_TOKEN`, and its minimum). */
const MIN_STEMMED_BYTES = 3;
const MAX_STEMMED_BYTES = 64;
/** Stems remembered (a registry's vocabulary is mostly a few hundred thousand words). */
const MAX_CACHED_STEMS = 200_000;

/** One word of a text: its term (folded, stemmed) and where it is written. */
export interface TextToken {
  term: string;
  start: number;
  end: number;
}

/** The words of a text as unicode61 folds them (not stemmed), with their offsets in the text. */
export function foldedWords(text: string): Array<{ word: string; start: number; end: number }> {
  const out: Array<{ word: string; start: number; end: number }> = [];
  for (const match of text.matchAll(WORD)) {
    const word = fold(match[0]);
    if (word.length > 0) out.push({ word, start: match.index, end: match.index + match[0].length });
  }
  return out;
}

/** A word as unicode61 with `remove_diacritics 2` folds it. */
function fold(run: string): string {
  return ASCII.test(run) ? run.toLowerCase() : fts5Fold(run);
}

const stems = new Map<string, string>();
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A folded word's term, as FTS5's porter tokenizer stems it. */
export function stem(word: string): string {
  const known = stems.get(word);
  if (known !== undefined) return known;
  const out = porterStem(word);
  if (stems.size >= MAX_CACHED_STEMS) stems.clear();
  stems.set(word, out);
  return out;
}

/**
 * FTS5's porter on the word's UTF-8 bytes: each byte of a non-ASCII character becomes a private-use character
 * (a consonant to the stemmer, which case folding leaves alone), and back.
 */
function porterStem(word: string): string {
  if (ASCII.test(word)) {
    return word.length < MIN_STEMMED_BYTES || word.length > MAX_STEMMED_BYTES ? word : stemmer(word);
  }
  const bytes = encoder.encode(word);
  if (bytes.length < MIN_STEMMED_BYTES || bytes.length > MAX_STEMMED_BYTES) return word;
  let asChars = '';
  for (const byte of bytes) asChars += String.fromCharCode(byte < 0x80 ? byte : 0xe000 + byte);
  const stemmed = stemmer(asChars);
  const out = new Uint8Array(stemmed.length);
  for (let i = 0; i < stemmed.length; i++) {
    const code = stemmed.charCodeAt(i);
    out[i] = code >= 0xe000 ? code - 0xe000 : code;
  }
  return decoder.decode(out);
}

/** The terms of a text, in order (a term's index is its position, as FTS5 counts positions in a column). */
export function textTerms(text: string): string[] {
  const out: string[] = [];
  if (isAscii(text)) {
    // Most text: ASCII words are letters and digits, folded by lower-casing.
    for (const word of text.toLowerCase().match(ASCII_WORD) ?? []) out.push(stem(word));
    return out;
  }
  for (const match of text.matchAll(WORD)) {
    const word = fold(match[0]);
    if (word.length > 0) out.push(stem(word));
  }
  return out;
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

/** The terms of a text with their offsets. */
export function textTokens(text: string): TextToken[] {
  return foldedWords(text).map(({ word, start, end }) => ({ term: stem(word), start, end }));
}

/**
 * A query clause as FTS5 matches it: its terms in a row (a phrase when more than one), the last one a prefix of
 * any term for a `word*` clause (FTS5 stems the prefix too: `connection*` matches `connect`).
 */
export interface ClauseTerms {
  terms: string[];
  prefix: boolean;
}

/** The clause's terms; undefined when it has none (FTS5's empty phrase, which matches nothing). */
export function clauseTerms(clause: QueryClause): ClauseTerms | undefined {
  const text = clause.kind === 'phrase' ? clause.words.join(' ') : clause.word;
  const terms = textTerms(text);
  return terms.length === 0 ? undefined : { terms, prefix: clause.kind === 'prefix' };
}

/** Whether the clause's i-th term matches a text's term. */
export function termMatches(clause: ClauseTerms, i: number, term: string): boolean {
  const wanted = clause.terms[i]!;
  return clause.prefix && i === clause.terms.length - 1 ? term.startsWith(wanted) : term === wanted;
}

/**
 * Which query words each field of one agent's text matched: the text's own words (lower case), as FTS5's
 * `highlight()` marks them for the SQLite engine's explanation. Every occurrence of a clause is a span of words
 * (a phrase's from its first word to its last, with what separates them); overlapping spans are one; each span's
 * text is one entry, in the order they occur, without repeats.
 */
export function matchedWords(query: LexicalQuery, fields: LexicalFields): FieldMatches {
  const clauses = query.clauses.map(clauseTerms).filter((clause) => clause !== undefined);
  const matches: FieldMatches = {};
  if (clauses.length === 0) return matches;
  for (const [field] of FIELD_COLUMNS) {
    const text = fields[field];
    const tokens = textTokens(text);
    const spans: Array<[number, number]> = [];
    for (const clause of clauses) {
      const size = clause.terms.length;
      for (let start = 0; start + size <= tokens.length; start++) {
        let holds = true;
        for (let i = 0; i < size && holds; i++) holds = termMatches(clause, i, tokens[start + i]!.term);
        if (holds) spans.push([start, start + size - 1]);
      }
    }
    if (spans.length === 0) continue;
    spans.sort((a, b) => a[0] - b[0]);
    const words = new Set<string>();
    let [from, to] = spans[0]!;
    const mark = () => words.add(text.slice(tokens[from]!.start, tokens[to]!.end).toLowerCase());
    for (const [start, end] of spans.slice(1)) {
      if (start <= to) {
        if (end > to) to = end;
        continue;
      }
      mark();
      from = start;
      to = end;
    }
    mark();
    matches[field] = [...words];
  }
  return matches;
}
