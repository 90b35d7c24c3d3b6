/**
 * A query's clauses as the PostgreSQL lexical engine matches them (lexemes, the last one a prefix for `word*`),
 * and how a clause is counted in one agent's postings: its occurrences field by field, a phrase's as its lexemes
 * at consecutive positions inside one field, as FTS5 counts phrases.
 */
import { FIELD_COLUMNS as FIELDS } from './fields.js';
import { FIELD_POSITIONS } from './postgres-text.js';

/** A clause as lexemes in order; the last one a prefix for a `word*` clause. */
export interface PreparedClause {
  lexemes: string[];
  prefix: boolean;
}

/** One agent's positions of the query's lexemes: by field number, then lexeme. */
export type FieldPositions = Array<Map<string, number[]>>;

/** Empty positions, one map per field. */
export function emptyFieldPositions(): FieldPositions {
  return FIELDS.map(() => new Map());
}

/** Adds one posting (a lexeme's positions, each carrying its field) to an agent's positions. */
export function addPosting(fields: FieldPositions, lexeme: string, positions: readonly number[]): void {
  for (const encoded of positions) {
    const field = Math.floor(encoded / FIELD_POSITIONS);
    const byLexeme = fields[field];
    if (byLexeme === undefined) continue;
    let list = byLexeme.get(lexeme);
    if (list === undefined) {
      list = [];
      byLexeme.set(lexeme, list);
    }
    list.push(encoded % FIELD_POSITIONS);
  }
}

/** Whether a posting's lexeme is one of the clause's (the prefix clause's last lexeme: any lexeme it starts). */
export function clauseHolds(clause: PreparedClause, lexeme: string): boolean {
  const last = clause.lexemes.length - 1;
  return clause.lexemes.some((wanted, index) =>
    clause.prefix && index === last ? lexeme.startsWith(wanted) : lexeme === wanted,
  );
}

/** One agent's postings of the query's lexemes, as read: each lexeme with its positions (carrying their field). */
export interface AgentPostings {
  lexemes: string[];
  positions: number[][];
  /** The positions by field, made when a phrase first needs them. */
  fields?: FieldPositions;
}

/**
 * A clause's occurrences in an agent, each counted with its field's weight (FTS5's F). A one-lexeme clause (most
 * of them) is counted straight from the postings; a phrase from the positions by field.
 */
export function weightedFrequency(
  postings: AgentPostings,
  clause: PreparedClause,
  weights: readonly number[],
): number {
  if (clause.lexemes.length === 1) {
    const wanted = clause.lexemes[0]!;
    let total = 0;
    postings.lexemes.forEach((lexeme, index) => {
      if (clause.prefix ? !lexeme.startsWith(wanted) : lexeme !== wanted) return;
      for (const encoded of postings.positions[index]!) {
        total += weights[Math.floor(encoded / FIELD_POSITIONS)] ?? 0;
      }
    });
    return total;
  }
  if (postings.fields === undefined) {
    const fields = emptyFieldPositions();
    postings.lexemes.forEach((lexeme, index) => {
      addPosting(fields, lexeme, postings.positions[index]!);
    });
    postings.fields = fields;
  }
  let total = 0;
  postings.fields.forEach((positions, field) => {
    const count = occurrences(positions, clause);
    if (count > 0) total += count * weights[field]!;
  });
  return total;
}

/** Whether a clause occurs in some field of an agent. */
export function occursIn(fields: FieldPositions, clause: PreparedClause): boolean {
  return fields.some((positions) => occurrences(positions, clause) > 0);
}

/** How many times a clause occurs in one field: for a phrase, the starts of its lexemes at consecutive positions. */
function occurrences(positions: ReadonlyMap<string, number[]>, clause: PreparedClause): number {
  // One lexeme (most clauses): its positions counted, no sets made. A position holds one lexeme.
  if (clause.lexemes.length === 1) {
    const lexeme = clause.lexemes[0]!;
    if (!clause.prefix) return positions.get(lexeme)?.length ?? 0;
    let count = 0;
    for (const [found, where] of positions) if (found.startsWith(lexeme)) count += where.length;
    return count;
  }
  const at = (index: number): Set<number> => {
    const lexeme = clause.lexemes[index]!;
    if (clause.prefix && index === clause.lexemes.length - 1) {
      const all = new Set<number>();
      for (const [found, where] of positions) if (found.startsWith(lexeme)) for (const p of where) all.add(p);
      return all;
    }
    return new Set(positions.get(lexeme) ?? []);
  };
  let starts = at(0);
  for (let index = 1; index < clause.lexemes.length && starts.size > 0; index++) {
    const next = at(index);
    starts = new Set([...starts].filter((start) => next.has(start + index)));
  }
  return starts.size;
}

/** The clause's lexemes matched exactly (all but a prefix clause's last). */
export function exactLexemes(clause: PreparedClause): string[] {
  return clause.prefix ? clause.lexemes.slice(0, -1) : clause.lexemes;
}

/** A LIKE pattern for a prefix clause's last lexeme. */
export function prefixPattern(clause: PreparedClause): string | undefined {
  if (!clause.prefix) return undefined;
  return `${clause.lexemes.at(-1)!.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** A clause as tsquery text: quoted lexemes (never operators), `<->` between a phrase's, `:*` on a prefix. */
export function renderClause(clause: PreparedClause): string {
  const parts = clause.lexemes.map((lexeme) => `'${lexeme.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`);
  if (clause.prefix) parts[parts.length - 1] += ':*';
  return parts.length === 1 ? parts[0]! : `(${parts.join(' <-> ')})`;
}

/** A key naming the clause (as much as its lexemes and prefix say). */
export function clauseKey(clause: PreparedClause): string {
  return `${clause.prefix ? '*' : ''}${clause.lexemes.join(' ')}`;
}
