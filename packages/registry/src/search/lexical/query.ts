/**
 * A person's search text as lexical query clauses, independent of any database's query language. Nothing a user
 * types is syntax except two conveniences: `"several words"` ranks the words side by side first, and `word*` matches
 * any word starting with it. Everything else is reduced to words, so no input can inject operators (`AND`, `NEAR(`,
 * column filters) into the database's query.
 *
 * A quoted phrase is a preference, not a condition: its words still match apart. People quote the title of what
 * they want done something with ("find the painting "Corridor in the Asylum""), which no agent's description holds;
 * as a strict phrase it would leave only the query's other words to match. (Measured: on MetaTool's multi-tool set,
 * whose requests often quote, lexical NDCG@10 rose from 34 to 46; see docs/search.md.)
 */
import { STOP_WORDS } from '../text/stop-words.js';
import { identifierParts, isUnspacedScript, scriptRuns, wordsOf } from '../text/words.js';

export type QueryClause =
  | { kind: 'term'; word: string }
  | { kind: 'prefix'; word: string }
  | { kind: 'phrase'; words: string[] };

export interface LexicalQuery {
  /** Alternatives: a document matching more (and rarer) clauses ranks higher. Empty: the query matches nothing. */
  clauses: QueryClause[];
  /** The distinct words asked for, lower case, function words left out (for explanations and confidence). */
  words: string[];
}

/** Upper bounds that keep a pasted essay from becoming an expensive query. */
const MAX_CLAUSES = 48;
const MAX_WORD_LENGTH = 48;
const MIN_PREFIX_LENGTH = 2;
const WORD_OR_PREFIX = /[\p{L}\p{N}]+\*?/gu;

export function parseLexicalQuery(text: string): LexicalQuery {
  const builder = new ClauseBuilder();
  const parts = text.split('"');
  // Odd-numbered parts sit between quotes; after an unclosed last quote the text is plain.
  const lastQuoteClosed = parts.length % 2 === 1;
  parts.forEach((part, index) => {
    const quoted = index % 2 === 1 && (lastQuoteClosed || index < parts.length - 1);
    if (quoted) builder.addPhrase(part);
    else builder.addPlain(part);
  });
  return builder.finish();
}

class ClauseBuilder {
  private readonly clauses: QueryClause[] = [];
  private readonly keys = new Set<string>();
  private readonly words = new Set<string>();
  private readonly stopWords: string[] = [];

  addPhrase(text: string): void {
    const runs = wordsOf(text).flatMap(scriptRuns);
    const words = runs.flatMap((run) => (isUnspacedScript(run) ? Array.from(run) : [run])).map(normalizeWord);
    if (words.length === 1) this.add({ kind: 'term', word: words[0]! });
    else if (words.length > 1) this.add({ kind: 'phrase', words });
    for (const word of words) this.words.add(word);
    // Then each word on its own, as if unquoted (Han/Kana runs as their character pairs).
    if (words.length > 1) this.addPlain(runs.join(' '));
  }

  addPlain(text: string): void {
    for (const token of text.match(WORD_OR_PREFIX) ?? []) {
      const prefix = token.endsWith('*');
      for (const run of scriptRuns(prefix ? token.slice(0, -1) : token)) {
        if (isUnspacedScript(run)) this.addUnspacedRun(run);
        else if (prefix && run.length >= MIN_PREFIX_LENGTH) this.addPrefix(run);
        else this.addWord(run);
      }
    }
  }

  finish(): LexicalQuery {
    // A query of nothing but function words ("what is this") still means something: keep them then.
    if (this.words.size === 0) {
      for (const word of this.stopWords) {
        this.add({ kind: 'term', word });
        this.words.add(word);
      }
    }
    return { clauses: this.clauses.slice(0, MAX_CLAUSES), words: [...this.words] };
  }

  private addWord(word: string): void {
    const normalized = normalizeWord(word);
    if (STOP_WORDS.has(normalized)) {
      this.stopWords.push(normalized);
      return;
    }
    this.add({ kind: 'term', word: normalized });
    this.words.add(normalized);
    const parts = identifierParts(word).map(normalizeWord);
    if (parts.length > 1) this.add({ kind: 'phrase', words: parts });
  }

  private addPrefix(word: string): void {
    const normalized = normalizeWord(word);
    this.add({ kind: 'prefix', word: normalized });
    this.words.add(normalized);
  }

  /** Han/Kana text has no spaces: match its characters as neighbouring pairs (most of its words are two). */
  private addUnspacedRun(run: string): void {
    const characters = Array.from(run);
    if (characters.length === 1) this.add({ kind: 'term', word: characters[0]! });
    for (let i = 0; i + 1 < characters.length; i++) {
      this.add({ kind: 'phrase', words: [characters[i]!, characters[i + 1]!] });
    }
    this.words.add(run);
  }

  private add(clause: QueryClause): void {
    const key = clause.kind === 'phrase' ? `p:${clause.words.join(' ')}` : `${clause.kind}:${clause.word}`;
    if (this.keys.has(key)) return;
    this.keys.add(key);
    this.clauses.push(clause);
  }
}

function normalizeWord(word: string): string {
  return word.toLowerCase().slice(0, MAX_WORD_LENGTH);
}
