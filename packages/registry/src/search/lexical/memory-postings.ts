/**
 * The lexical index in memory: every agent's terms as postings in typed arrays, ranked by the same BM25 as the
 * SQLite FTS5 engine (`sqlite.ts`), for registries too large for FTS5 to answer in time. A plain-language query
 * holds words that half the agents share; FTS5 reads and scores every match from its B-tree (seconds at 1,000,000
 * agents), where scoring the same few hundred thousand postings from arrays takes milliseconds. No database here:
 * the search index feeds it (`set`, `delete`) and asks it (`search`).
 *
 * Layout. Agents get integer slots, in the order they are set (a replaced agent gets a new slot and keeps its
 * order for ties); per slot a state (free, public, restricted), a length in tokens and an order. Each term's
 * postings are (slot, payload) pairs, slots ascending, in a chain of blocks (2, 4, 8… up to 4,096 postings) carved
 * from 4 MB pages of 32-bit words, so that a million terms of one posting cost no typed array each. A payload is
 * the term's one occurrence in the agent (field in bits 24–26, position below) or, with bit 31 set, its weighted
 * frequency; the agent's occurrences of the terms it holds more than once are in its area, in a pool of 16-bit
 * words (term in two halves, count, then each occurrence as field and position in 16 bits), or, when a position
 * reaches 8,192, in a pool of 32-bit words apart. So a posting costs 8 bytes, plus about 2 per occurrence beyond
 * the first and 6 per term an agent repeats. A freed slot's postings stay until a compaction rebuilds the pools (when a quarter of the
 * slots are free): every search skips them by the slot's state.
 *
 * Ranking: FTS5's BM25 (`visible-bm25.ts`), term at a time: for each clause of the query (a term, a prefix, a
 * phrase: terms at consecutive positions in one field) its weighted frequency F per matching agent, and how many
 * public agents it matches (n, counted in the same pass: exact whatever was replaced or deleted); then each
 * agent's share `idf × F(k1 + 1) / (F + k1(1 − b + b·D/avgdl))` added to its score, clause after clause in the
 * query's order, as FTS5 sums them (the same floating-point sums). Public agents are ranked with statistics over
 * the public agents (whatever the scope, as FTS5's bm25() reads its whole table); the restricted agents in scope
 * with statistics over the public agents and those restricted agents. Ties: public agents before restricted ones,
 * then by order (when agents are set in FTS5's rowid order, that is FTS5's order of equal scores).
 *
 * Text: `memory-text.ts` (FTS5's `porter unicode61 remove_diacritics 2`, mirrored).
 */

import { IdTable } from '@agentry/embeddings';
import {
  BM25_B as B,
  DEFAULT_FIELD_WEIGHTS,
  FIELD_COLUMNS,
  type FieldWeights,
  BM25_K1 as K1,
} from './fields.js';
import { clauseTerms, textTerms } from './memory-text.js';
import { ceilingOf, clauseCap, fts5Idf } from './pruning.js';
import type { LexicalQuery } from './query.js';
import type { LexicalFields, LexicalMatch, LexicalSearchOptions } from './types.js';
import { frequencyStep } from './visible-bm25.js';

const PAGE_BITS = 20;
const PAGE_WORDS = 1 << PAGE_BITS;
const PAGE_MASK = PAGE_WORDS - 1;
/** A block: next block's address, capacity in postings, then (slot, payload) pairs. */
const BLOCK_HEADER = 2;
const FIRST_BLOCK = 2;
const LARGEST_BLOCK = 4096;

const MANY = 0x8000_0000;
/** A payload of several occurrences whose weighted frequency is read from the agent's area. */
const IN_AREA = 0x7fff_ffff;
const IN_AREA_PAYLOAD = MANY + IN_AREA;
const FIELD_SHIFT = 24;
const POSITION_MASK = (1 << FIELD_SHIFT) - 1;

const K1_PLUS_1 = K1 + 1;

const FREE = 0;
const PUBLIC = 1;
const RESTRICTED = 2;

/** Scope marks of a search. */
const CANDIDATE = 1;
const EXCLUDED = 2;
/** An agent taken for a pruned search's scoring (a clause it holds is taken). */
const SELECTED = 4;

/** Free slots that trigger a compaction: this share of all slots, and at least `compactFrom`. */
const COMPACT_SHARE = 0.25;
const COMPACT_FROM = 10_000;
/** As `sqlite.ts` prunes: a clause matching more than this share of the public agents is common. */
const PRUNE_COMMON_SHARE = 0.2;
/** A term with at most this many postings per candidate is merged with the candidates, not sought in. */
const MERGE_RATIO = 2;
/** How deep a pruned answer is exactly the unpruned one (as `sqlite.ts`'s). */
const PRUNE_EXACT_DEPTH = 100;
/** New terms the prefix lookup scans one by one before it sorts them in. */
const UNSORTED_TERMS = 4096;

/**
 * An area's occurrences in 16 bits: the field above `NARROW_POSITION_BITS`, the position below. An agent whose
 * area holds a position from `NARROW_POSITION_LIMIT` on (or more entries or occurrences than 16 bits count) has
 * its area in 32-bit words instead, apart (`WIDE_AREA`): exact either way.
 */
const NARROW_POSITION_BITS = 13;
const NARROW_POSITION_LIMIT = 1 << NARROW_POSITION_BITS;
const NARROW_POSITION_MASK = NARROW_POSITION_LIMIT - 1;
const NARROW_COUNT_LIMIT = 0xffff;
/** Marks an agent's area address as one in the 32-bit pool. */
const WIDE_AREA = 0x8000_0000;

/**
 * Words (16 or 32 bits) in pages of 2^20 words, allocated by bumping; address 0 is never given (it means none).
 * An allocation never spans pages.
 */
class WordPages<Page extends Uint16Array | Uint32Array = Uint32Array> {
  readonly pages: Page[] = [];
  private top = PAGE_WORDS;

  constructor(private readonly makePage: () => Page = () => new Uint32Array(PAGE_WORDS) as Page) {}

  allocate(words: number): number {
    if (this.top + words > PAGE_WORDS) {
      this.pages.push(this.makePage());
      // The first page's first word stays unused, so that no address is 0.
      this.top = this.pages.length === 1 ? 1 : 0;
    }
    const address = (this.pages.length - 1) * PAGE_WORDS + this.top;
    this.top += words;
    return address;
  }

  get bytes(): number {
    return this.pages.reduce((sum, page) => sum + page.byteLength, 0);
  }
}

/** The pool of areas in 16-bit words (2 MB pages). */
function narrowPages(): WordPages<Uint16Array> {
  return new WordPages(() => new Uint16Array(PAGE_WORDS));
}

function grown<T extends Uint8Array | Uint32Array | Float64Array | Int32Array>(array: T, needed: number): T {
  if (needed <= array.length) return array;
  const next = new (array.constructor as new (length: number) => T)(Math.max(needed, array.length * 2, 16));
  next.set(array);
  return next;
}

/** Where a term's postings are read up to: a block and an index in it. */
interface Cursor {
  term: number;
  block: number;
  index: number;
}

/** A clause as term ids: one list per position of the phrase (several terms for a prefix). */
interface PreparedClause {
  elements: number[][];
}

/** What scoring a clause needs of its search. */
interface ScoringContext {
  /** Candidates or excluded agents were given. */
  scoped: boolean;
  candidatesOnly: boolean;
  publicAverage: number;
  /** Public agents and the restricted agents in scope, and their average length. */
  restrictedRows: number;
  restrictedAverage: number;
  /** Agents scored so far (listed in `scored`). */
  scored: number;
}

export interface MemoryPostingsOptions {
  weights?: Readonly<FieldWeights>;
  /** Compaction waits for at least this many free slots (default 10,000; tests set it low). */
  compactFrom?: number;
  /** Prunes term queries by MaxScore (default true; false scores every match, as tests compare). */
  prune?: boolean;
}

/** What searches have done since the index was made: their work, for benchmarks and tests. */
export interface MemoryPostingsStats {
  /** Postings read (scanned, or probed while seeking): what pruning saves. */
  postingsRead: number;
  /** Agents scored. */
  agentsScored: number;
  /** Terms that pruned searches took. */
  termsTaken: number;
}

export class MemoryPostings {
  private readonly weights: Float64Array;
  /** The weighted frequencies are multiples of this (postings carry them as counts of it). */
  private readonly step: number;
  private readonly compactFrom: number;
  private readonly prune: boolean;
  /** What searches have done so far (`stats`), counted up in place. */
  private readonly counters: MemoryPostingsStats = { postingsRead: 0, agentsScored: 0, termsTaken: 0 };

  // Agents, by slot.
  /** Ids by slot and slots by id, outside the heap (a million strings there slow every full collection). */
  private readonly ids = new IdTable();
  private state = new Uint8Array(0);
  private lengths = new Uint32Array(0);
  private order = new Uint32Array(0);
  private slots = 0;
  private live = 0;
  private nextOrder = 0;
  private readonly restrictedSlots = new Set<number>();
  private publicRows = 0;
  private publicTokens = 0;

  // Terms, by id.
  /** Term texts by id and ids by text, outside the heap (a million terms there slow every full collection). */
  private termTable = new IdTable();
  private heads = new Uint32Array(0);
  private tails = new Uint32Array(0);
  private tailUsed = new Uint32Array(0);
  private postingCounts = new Uint32Array(0);
  /** Each term's count of public agents, valid while `countedAt` is `frees + 1`. */
  private publicCounts = new Uint32Array(0);
  private countedAt = new Uint32Array(0);
  /** Agents freed (replaced or deleted) so far: any kept count of public agents may have dropped since. */
  private frees = 0;
  private postingPages = new WordPages();
  private positionPages = narrowPages();
  private widePositionPages = new WordPages();
  /**
   * Each agent's area in `positionPages`, or (with `WIDE_AREA` set) in `widePositionPages` (0: it holds no term
   * twice). An area: its count of entries, then per entry the term (two 16-bit halves, low first, in the narrow
   * pool), its count of occurrences and each occurrence.
   */
  private areas = new Uint32Array(0);
  private storedPostings = 0;
  /** Term ids sorted by text, for prefixes; terms from `sorted.length` on are not in it yet. */
  private sortedTerms: number[] = [];
  private sortedUpTo = 0;

  // A search's scratch, by slot (reused: no allocation per posting).
  private frequency = new Float64Array(0);
  private score = new Float64Array(0);
  private touched = new Int32Array(0);
  private scored = new Int32Array(0);
  private scope = new Uint8Array(0);
  private values = new Float64Array(0);
  private readonly positions: number[][] = [];

  constructor(options: MemoryPostingsOptions = {}) {
    const weights = options.weights ?? DEFAULT_FIELD_WEIGHTS;
    this.weights = Float64Array.from(FIELD_COLUMNS.map(([field]) => Number(weights[field])));
    this.compactFrom = options.compactFrom ?? COMPACT_FROM;
    this.prune = options.prune ?? true;
    this.step = frequencyStep([...this.weights]);
  }

  /** What searches have done so far, a copy (benchmarks and tests read what pruning saves). */
  get stats(): Readonly<MemoryPostingsStats> {
    return { ...this.counters };
  }

  /** Live agents held. */
  get size(): number {
    return this.live;
  }

  /** Postings stored, those of replaced and deleted agents included until a compaction. */
  get postings(): number {
    return this.storedPostings;
  }

  /** Distinct terms held (until a compaction, those of replaced and deleted agents too). */
  get terms(): number {
    return this.termTable.size;
  }

  has(id: string): boolean {
    return this.ids.has(id);
  }

  /** Adds or replaces an agent (a replaced agent's old postings no longer count anywhere). */
  set(id: string, fields: LexicalFields, restricted: boolean): void {
    const old = this.ids.slotOf(id);
    let order: number;
    if (old < 0) order = this.nextOrder++;
    else {
      order = this.order[old]!;
      this.free(old);
    }
    const slot = this.newSlot(id, order, restricted ? RESTRICTED : PUBLIC);
    const occurrences = new Map<string, number[]>();
    let length = 0;
    FIELD_COLUMNS.forEach(([field], f) => {
      const terms = textTerms(fields[field]);
      terms.forEach((term, position) => {
        const encoded = (f << FIELD_SHIFT) | Math.min(position, POSITION_MASK);
        const found = occurrences.get(term);
        if (found === undefined) occurrences.set(term, [encoded]);
        else found.push(encoded);
      });
      length += terms.length;
    });
    this.writeArea(slot, occurrences);
    this.lengths[slot] = length;
    if (restricted) this.restrictedSlots.add(slot);
    else {
      this.publicRows++;
      this.publicTokens += length;
    }
    this.maybeCompact();
  }

  delete(id: string): void {
    const slot = this.ids.slotOf(id);
    if (slot < 0) return;
    this.free(slot);
    this.maybeCompact();
  }

  /** Same contract as LexicalIndex.search (types.ts), synchronous. */
  search(query: LexicalQuery, options: LexicalSearchOptions): LexicalMatch[] {
    const limit = Math.floor(options.limit);
    if (!(limit > 0) || options.candidates?.size === 0) return [];
    const clauses = this.prepare(query);
    if (clauses.length === 0) return [];
    this.ensureScratch();
    const pruned = this.prunedSearch(clauses, options, limit);
    if (pruned !== undefined) return pruned;
    const marked = this.markScope(options);
    const inScope = (slot: number): boolean => {
      const mark = this.scope[slot]!;
      return (options.candidates === undefined || (mark & CANDIDATE) !== 0) && (mark & EXCLUDED) === 0;
    };
    const scoped = options.candidates !== undefined || marked.length > 0;

    // The restricted agents the caller may see, all of them: their rows and tokens join the statistics.
    let visibleRows = 0;
    let visibleTokens = 0;
    for (const slot of this.restrictedSlots) {
      if (inScope(slot)) {
        visibleRows++;
        visibleTokens += this.lengths[slot]!;
      }
    }
    const publicAverage = this.publicRows > 0 ? this.publicTokens / this.publicRows : 0;
    const restrictedRows = this.publicRows + visibleRows;
    const restrictedAverage = restrictedRows > 0 ? (this.publicTokens + visibleTokens) / restrictedRows : 0;

    const frequency = this.frequency;
    const score = this.score;
    const touched = this.touched;
    const state = this.state;
    const lengths = this.lengths;
    const context: ScoringContext = {
      scoped,
      candidatesOnly: options.candidates !== undefined,
      publicAverage,
      restrictedRows,
      restrictedAverage,
      scored: 0,
    };
    for (const clause of clauses) {
      if (clause.elements.length === 1 && clause.elements[0]!.length === 1) {
        this.scoreTerm(clause.elements[0]![0]!, context);
        continue;
      }
      const counts = this.gather(clause, scoped ? inScope : undefined);
      const publicIdf = fts5Idf(this.publicRows, counts.public);
      const restrictedIdf = fts5Idf(restrictedRows, counts.public + counts.restricted);
      for (let i = 0; i < counts.touched; i++) {
        const slot = touched[i]!;
        const weighted = frequency[slot]!;
        frequency[slot] = 0;
        if (scoped && !inScope(slot)) continue;
        const isPublic = state[slot] === PUBLIC;
        const average = isPublic ? publicAverage : restrictedAverage;
        const norm = average > 0 ? 1 - B + (B * lengths[slot]!) / average : 1;
        const share =
          (isPublic ? publicIdf : restrictedIdf) * ((weighted * (K1 + 1)) / (weighted + K1 * norm));
        if (score[slot] === 0) this.scored[context.scored++] = slot;
        score[slot]! += share;
      }
    }
    const scoredCount = context.scored;
    this.counters.agentsScored += scoredCount;
    const top = this.top(scoredCount, limit);
    for (let i = 0; i < scoredCount; i++) score[this.scored[i]!] = 0;
    for (const slot of marked) this.scope[slot] = 0;
    return top;
  }

  /**
   * The search pruned by MaxScore (Turtle and Flood, 1995; `pruning.ts`): the query's terms are taken rarest first,
   * and only the agents in scope holding a taken term (the candidates) are scored, with the whole query's BM25.
   * Every candidate is sought in every term's postings, term after term in the query's order (the same sums as the
   * unpruned search, in the same order), galloping forward along the slot-ascending postings, so a common term
   * costs about what its candidates do, not what its postings do. The answer stands once `min(limit, 100)`
   * candidates score above the ceiling (the caps of the terms not taken, each the larger of its public and its
   * restricted cap): the top `min(limit, 100)` is then exactly the unpruned one. Below it the pool holds
   * candidates only, in their true order with their true scores; the next rarest term is also taken while the pool
   * is short of `limit` and a term held by at most `PRUNE_COMMON_SHARE` of the public agents is left (so the pool
   * holds at least what `sqlite.ts`'s pruned pool does). Once every term is taken nothing is left out: the answer
   * is the unpruned one. Undefined (search unpruned) when the index is made with `prune: false`, and for a single
   * term, a phrase or a prefix.
   */
  private prunedSearch(
    clauses: readonly PreparedClause[],
    options: LexicalSearchOptions,
    limit: number,
  ): LexicalMatch[] | undefined {
    if (!this.prune) return undefined;
    if (clauses.length < 2) return undefined;
    if (!clauses.every((clause) => clause.elements.length === 1 && clause.elements[0]!.length === 1)) {
      return undefined;
    }
    const terms = clauses.map((clause) => clause.elements[0]![0]!);
    const marked = this.markScope(options);
    const scope = this.scope;
    const state = this.state;
    const candidatesOnly = options.candidates !== undefined;
    const scoped = candidatesOnly || marked.length > 0;
    const inScope = (slot: number): boolean => {
      if (!scoped) return true;
      const mark = scope[slot]!;
      return (!candidatesOnly || (mark & CANDIDATE) !== 0) && (mark & EXCLUDED) === 0;
    };

    // The restricted agents in scope, by slot: their rows and tokens join their statistics, and each term's count
    // of them is found by seeking them in its postings.
    const visible: number[] = [];
    let visibleTokens = 0;
    for (const slot of this.restrictedSlots) {
      if (inScope(slot)) {
        visible.push(slot);
        visibleTokens += this.lengths[slot]!;
      }
    }
    visible.sort((a, b) => a - b);
    const rows = this.publicRows;
    const publicAverage = rows > 0 ? this.publicTokens / rows : 0;
    const restrictedRows = rows + visible.length;
    const restrictedAverage = restrictedRows > 0 ? (this.publicTokens + visibleTokens) / restrictedRows : 0;
    const publicCounts = terms.map((term) => this.publicCount(term));
    const restrictedCounts = terms.map((term) => this.countAmong(term, visible));
    const publicIdfs = publicCounts.map((count) => fts5Idf(rows, count));
    const restrictedIdfs = terms.map((_, i) =>
      fts5Idf(restrictedRows, publicCounts[i]! + restrictedCounts[i]!),
    );
    const caps = terms.map((_, i) =>
      publicCounts[i]! + restrictedCounts[i]! === 0
        ? 0
        : Math.max(
            clauseCap(rows, publicCounts[i]!),
            visible.length > 0 ? clauseCap(restrictedRows, publicCounts[i]! + restrictedCounts[i]!) : 0,
          ),
    );
    // Rarest first; a term the query repeats is taken once (its postings are one set).
    const held = (term: number) =>
      publicCounts[terms.indexOf(term)]! + restrictedCounts[terms.indexOf(term)]!;
    const ranked = [...new Set(terms)].filter((term) => held(term) > 0).sort((a, b) => held(a) - held(b));
    const depth = Math.min(limit, PRUNE_EXACT_DEPTH);
    const common = PRUNE_COMMON_SHARE * rows;
    const candidates = this.scored;
    const lengths = this.lengths;
    // By candidate, in the order taken: its norm (negated for a restricted agent) and its score so far.
    const norms = this.frequency;
    let count = 0;
    let answer: LexicalMatch[] | undefined;
    const finish = () => this.topCandidates(count, limit);
    for (let step = 0; step < ranked.length; step++) {
      const taken = ranked[step]!;
      this.counters.termsTaken++;
      const from = count;
      const pages = this.postingPages.pages;
      const tail = this.tails[taken]!;
      for (let block = this.heads[taken]!; block !== 0; ) {
        const page = pages[block >>> PAGE_BITS]!;
        const base = block & PAGE_MASK;
        const used = block === tail ? this.tailUsed[taken]! : page[base + 1]!;
        const end = base + BLOCK_HEADER + 2 * used;
        this.counters.postingsRead += used;
        for (let at = base + BLOCK_HEADER; at < end; at += 2) {
          const slot = page[at]!;
          if (state[slot] === FREE || (scope[slot]! & SELECTED) !== 0 || !inScope(slot)) continue;
          scope[slot]! |= SELECTED;
          // The norm as the unpruned search computes it (the same double), once per agent.
          const isPublic = state[slot] === PUBLIC;
          const average = isPublic ? publicAverage : restrictedAverage;
          const norm = average > 0 ? 1 - B + (B * lengths[slot]!) / average : 1;
          norms[count] = isPublic ? norm : -norm;
          candidates[count++] = slot;
        }
        block = page[base]!;
      }
      this.values = grown(this.values, count);
      this.values.fill(0, from, count);
      for (let i = 0; i < terms.length; i++) {
        if (caps[i] === 0) continue;
        this.scoreCandidates(terms[i]!, publicIdfs[i]!, restrictedIdfs[i]!, from, count);
      }
      if (step === ranked.length - 1) {
        answer = finish();
        break;
      }
      if (count < depth) continue;
      let left = 0;
      let selectiveLeft = false;
      for (let i = 0; i < terms.length; i++) {
        if (ranked.indexOf(terms[i]!) <= step) continue;
        left += caps[i]!;
        if (publicCounts[i]! <= common) selectiveLeft = true;
      }
      if (count < limit && selectiveLeft) continue;
      const ceiling = ceilingOf(left);
      const sums = this.values;
      let above = 0;
      for (let c = 0; c < count && above < depth; c++) if (sums[c]! > ceiling) above++;
      if (above >= depth) {
        answer = finish();
        break;
      }
    }
    this.counters.agentsScored += count;
    norms.fill(0, 0, count);
    for (let i = 0; i < count; i++) scope[candidates[i]!]! &= ~SELECTED;
    for (const slot of marked) scope[slot] = 0;
    return answer;
  }

  /**
   * One term's shares of the candidates' scores (candidates `from` to `to` of `scored`, slots ascending; their
   * norms in `frequency` and their sums in `values`, by candidate, so that both are read in order). A term with
   * few postings for its candidates is merged with them along its postings; otherwise each candidate is sought in
   * them: a block skipped whole by its last slot, then a gallop from where the last one was found, so sparse
   * candidates cost a logarithm of the gap each, not the postings between.
   */
  private scoreCandidates(
    term: number,
    publicIdf: number,
    restrictedIdf: number,
    from: number,
    to: number,
  ): void {
    let block = this.heads[term]!;
    if (block === 0 || from === to) return;
    const pages = this.postingPages.pages;
    const sums = this.values;
    const norms = this.frequency;
    const candidates = this.scored;
    const tail = this.tails[term]!;
    const tailUsed = this.tailUsed[term]!;
    let page = pages[block >>> PAGE_BITS]!;
    let base = block & PAGE_MASK;
    let used = block === tail ? tailUsed : page[base + 1]!;
    let first = base + BLOCK_HEADER;
    let read = 0;
    if (this.postingCounts[term]! <= MERGE_RATIO * (to - from)) {
      // Merged: every posting read once, the candidates walked beside them.
      let c = from;
      let next = candidates[c]!;
      for (;;) {
        const end = first + 2 * used;
        read += used;
        for (let at = first; at < end; at += 2) {
          const slot = page[at]!;
          if (slot < next) continue;
          while (next < slot) {
            if (++c === to) {
              this.counters.postingsRead += read;
              return;
            }
            next = candidates[c]!;
          }
          if (slot !== next) continue;
          sums[c]! += this.candidateShare(slot, term, page[at + 1]!, norms[c]!, publicIdf, restrictedIdf);
        }
        block = page[base]!;
        if (block === 0) break;
        page = pages[block >>> PAGE_BITS]!;
        base = block & PAGE_MASK;
        used = block === tail ? tailUsed : page[base + 1]!;
        first = base + BLOCK_HEADER;
      }
      this.counters.postingsRead += read;
      return;
    }
    let last = page[first + 2 * (used - 1)]!;
    let index = 0;
    for (let c = from; c < to; c++) {
      const slot = candidates[c]!;
      while (last < slot) {
        block = page[base]!;
        if (block === 0) {
          this.counters.postingsRead += read;
          return;
        }
        page = pages[block >>> PAGE_BITS]!;
        base = block & PAGE_MASK;
        used = block === tail ? tailUsed : page[base + 1]!;
        first = base + BLOCK_HEADER;
        last = page[first + 2 * (used - 1)]!;
        index = 0;
        read++;
      }
      // The first posting at or after `slot` in this block (there is one: `last` is not below it).
      let low = index;
      read++;
      if (page[first + 2 * low]! < slot) {
        low++;
        let high = low;
        let stride = 1;
        read++;
        while (page[first + 2 * high]! < slot) {
          low = high + 1;
          high = Math.min(used - 1, high + stride);
          stride *= 2;
          read++;
        }
        while (low < high) {
          const middle = (low + high) >>> 1;
          read++;
          if (page[first + 2 * middle]! < slot) low = middle + 1;
          else high = middle;
        }
      }
      index = low;
      const at = first + 2 * low;
      if (page[at] !== slot) continue;
      sums[c]! += this.candidateShare(slot, term, page[at + 1]!, norms[c]!, publicIdf, restrictedIdf);
    }
    this.counters.postingsRead += read;
  }

  /**
   * A candidate's share of its score for a term it holds, from its posting's payload: the weighted frequency (in
   * the payload, or in the candidate's area), then BM25 with the candidate's norm, which is negated for a
   * restricted candidate (its statistics are the restricted ones). Small, so that V8 inlines it in both loops of
   * `scoreCandidates`.
   */
  private candidateShare(
    slot: number,
    term: number,
    payload: number,
    norm: number,
    publicIdf: number,
    restrictedIdf: number,
  ): number {
    const weighted =
      payload < MANY
        ? this.weights[payload >>> FIELD_SHIFT]!
        : payload !== IN_AREA_PAYLOAD
          ? (payload - MANY) * this.step
          : this.weightedFrequency(slot, term, payload);
    return norm > 0
      ? publicIdf * ((weighted * K1_PLUS_1) / (weighted + K1 * norm))
      : restrictedIdf * ((weighted * K1_PLUS_1) / (weighted - K1 * norm));
  }

  /**
   * `top` for a pruned search's candidates: their sums are by candidate (`values`), so they are read in order and
   * copied once (into `frequency`, the norms' place, cleared after) for the selection.
   */
  private topCandidates(count: number, limit: number): LexicalMatch[] {
    const sums = this.values;
    const state = this.state;
    const order = this.order;
    const candidates = this.scored;
    let kept: number[];
    if (count <= limit) kept = Array.from({ length: count }, (_, c) => c);
    else {
      const values = this.frequency;
      values.set(sums.subarray(0, count));
      const threshold = select(values, count, count - limit);
      kept = [];
      // The candidates at the threshold by public first, then order (as `top`).
      const tied = this.touched;
      let ties = 0;
      for (let c = 0; c < count; c++) {
        const value = sums[c]!;
        if (value > threshold) kept.push(c);
        else if (value === threshold) {
          const slot = candidates[c]!;
          tied[ties] = c;
          values[ties++] = state[slot]! * 2 ** 32 + order[slot]!;
        }
      }
      const wanted = limit - kept.length;
      const last = ties > wanted ? select(values, ties, wanted - 1) : Number.POSITIVE_INFINITY;
      for (let i = 0; i < ties; i++) {
        const slot = candidates[tied[i]!]!;
        if (state[slot]! * 2 ** 32 + order[slot]! <= last) kept.push(tied[i]!);
      }
    }
    kept.sort((a, b) => {
      const slotA = candidates[a]!;
      const slotB = candidates[b]!;
      return sums[b]! - sums[a]! || state[slotA]! - state[slotB]! || order[slotA]! - order[slotB]!;
    });
    return kept.map((c) => ({ id: this.ids.idAt(candidates[c]!)!, score: sums[c]! }));
  }

  /** How many of `slots` (ascending) hold a term. */
  private countAmong(term: number, slots: readonly number[]): number {
    if (slots.length === 0) return 0;
    const cursor: Cursor = { term, block: this.heads[term]!, index: 0 };
    let count = 0;
    for (const slot of slots) if (this.seek(cursor, slot) >= 0) count++;
    return count;
  }

  /** Bytes held (typed arrays, the id and term tables among them; sortedTerms at 8 bytes a term), for stats and docs. */
  get bytes(): number {
    const parts = this.byteParts;
    return parts.postings + parts.areas + parts.agents + parts.terms + parts.scratch;
  }

  /** `bytes` by what holds them: the postings' pages, the agents' areas, per agent, per term, search scratch. */
  get byteParts(): { postings: number; areas: number; agents: number; terms: number; scratch: number } {
    return {
      postings: this.postingPages.bytes,
      areas: this.positionPages.bytes + this.widePositionPages.bytes,
      agents:
        this.state.byteLength +
        this.lengths.byteLength +
        this.order.byteLength +
        this.areas.byteLength +
        this.ids.bytes,
      terms:
        this.heads.byteLength +
        this.tails.byteLength +
        this.tailUsed.byteLength +
        this.postingCounts.byteLength +
        this.publicCounts.byteLength +
        this.countedAt.byteLength +
        this.termTable.bytes +
        this.sortedTerms.length * 8,
      scratch:
        this.frequency.byteLength +
        this.score.byteLength +
        this.touched.byteLength +
        this.scored.byteLength +
        this.scope.byteLength +
        this.values.byteLength,
    };
  }

  /** Rebuilds the pools without the postings of freed slots, and renumbers the slots (order kept). */
  compact(): void {
    const renumbered = new Int32Array(this.slots).fill(-1);
    let next = 0;
    for (let slot = 0; slot < this.slots; slot++) {
      if (this.state[slot] === FREE) continue;
      renumbered[slot] = next;
      // The live slots before this one now sit below `next`, so slot `next` is free to take its id.
      if (next !== slot) this.ids.move(slot, next);
      this.state[next] = this.state[slot]!;
      this.lengths[next] = this.lengths[slot]!;
      this.order[next] = this.order[slot]!;
      next++;
    }
    this.state.fill(FREE, next);
    const oldAreas = this.areas.slice(0, this.slots);
    this.slots = next;
    const restricted = [...this.restrictedSlots].map((slot) => renumbered[slot]!);
    this.restrictedSlots.clear();
    for (const slot of restricted) this.restrictedSlots.add(slot);

    const old = {
      terms: this.termTable,
      heads: this.heads,
      tails: this.tails,
      tailUsed: this.tailUsed,
      postingPages: this.postingPages.pages,
      positionPages: this.positionPages.pages,
      widePositionPages: this.widePositionPages.pages,
    };
    this.termTable = new IdTable();
    this.heads = new Uint32Array(0);
    this.tails = new Uint32Array(0);
    this.tailUsed = new Uint32Array(0);
    this.postingCounts = new Uint32Array(0);
    this.publicCounts = new Uint32Array(0);
    this.countedAt = new Uint32Array(0);
    this.postingPages = new WordPages();
    this.positionPages = narrowPages();
    this.widePositionPages = new WordPages();
    this.areas = new Uint32Array(this.state.length);
    this.storedPostings = 0;
    this.sortedTerms = [];
    this.sortedUpTo = 0;
    // The postings of live agents, term by term (a term none holds any more is gone), then their areas.
    const termNumbers = new Int32Array(old.terms.size).fill(-1);
    for (let term = 0; term < old.terms.size; term++) {
      for (let block = old.heads[term]!; block !== 0; ) {
        const page = old.postingPages[block >>> PAGE_BITS]!;
        const base = block & PAGE_MASK;
        const used = block === old.tails[term] ? old.tailUsed[term]! : page[base + 1]!;
        for (let i = 0; i < used; i++) {
          const slot = renumbered[page[base + BLOCK_HEADER + 2 * i]!]!;
          if (slot < 0) continue;
          if (termNumbers[term]! < 0) termNumbers[term] = this.termId(old.terms.idAt(term)!);
          this.append(termNumbers[term]!, slot, page[base + BLOCK_HEADER + 2 * i + 1]!);
        }
        block = page[base]!;
      }
    }
    for (let slot = 0; slot < oldAreas.length; slot++) {
      const address = oldAreas[slot]!;
      const to = renumbered[slot]!;
      if (address === 0 || to < 0) continue;
      if (address >= WIDE_AREA) {
        const from = old.widePositionPages[(address - WIDE_AREA) >>> PAGE_BITS]!;
        const start = address & PAGE_MASK;
        let end = start + 1;
        for (let e = 0; e < from[start]!; e++) end += 2 + from[end + 1]!;
        const copy = this.widePositionPages.allocate(end - start);
        const page = this.widePositionPages.pages[copy >>> PAGE_BITS]!;
        const at = copy & PAGE_MASK;
        page.set(from.subarray(start, end), at);
        for (let entry = at + 1, e = 0; e < page[at]!; e++, entry += 2 + page[entry + 1]!) {
          page[entry] = termNumbers[page[entry]!]!;
        }
        this.areas[to] = copy + WIDE_AREA;
        continue;
      }
      const from = old.positionPages[address >>> PAGE_BITS]!;
      const start = address & PAGE_MASK;
      let end = start + 1;
      for (let e = 0; e < from[start]!; e++) end += 3 + from[end + 2]!;
      const copy = this.positionPages.allocate(end - start);
      const page = this.positionPages.pages[copy >>> PAGE_BITS]!;
      const at = copy & PAGE_MASK;
      page.set(from.subarray(start, end), at);
      for (let entry = at + 1, e = 0; e < page[at]!; e++, entry += 3 + page[entry + 2]!) {
        const term = termNumbers[page[entry]! + page[entry + 1]! * 0x1_0000]!;
        page[entry] = term & 0xffff;
        page[entry + 1] = term >>> 16;
      }
      this.areas[to] = copy;
    }
  }

  private newSlot(id: string, order: number, state: number): number {
    const slot = this.slots++;
    this.state = grown(this.state, this.slots);
    this.lengths = grown(this.lengths, this.slots);
    this.order = grown(this.order, this.slots);
    this.areas = grown(this.areas, this.slots);
    this.areas[slot] = 0;
    this.ids.set(slot, id);
    this.state[slot] = state;
    this.order[slot] = order;
    this.live++;
    return slot;
  }

  private free(slot: number): void {
    if (this.state[slot] === PUBLIC) {
      this.publicRows--;
      this.publicTokens -= this.lengths[slot]!;
    } else this.restrictedSlots.delete(slot);
    this.state[slot] = FREE;
    this.frees++;
    this.ids.deleteAt(slot);
    this.live--;
  }

  private maybeCompact(): void {
    const freed = this.slots - this.live;
    if (freed >= this.compactFrom && freed >= COMPACT_SHARE * this.slots) this.compact();
  }

  private termId(text: string): number {
    const known = this.termTable.slotOf(text);
    if (known >= 0) return known;
    // Terms are numbered densely and never leave (a compaction numbers them again in a new table).
    const id = this.termTable.size;
    this.termTable.set(id, text);
    this.heads = grown(this.heads, id + 1);
    this.tails = grown(this.tails, id + 1);
    this.tailUsed = grown(this.tailUsed, id + 1);
    this.postingCounts = grown(this.postingCounts, id + 1);
    this.publicCounts = grown(this.publicCounts, id + 1);
    this.countedAt = grown(this.countedAt, id + 1);
    return id;
  }

  /**
   * Appends an agent's postings, and writes its area: the occurrences of the terms it holds more than once (a
   * posting then carries their weighted frequency, and a phrase finds their positions here).
   */
  private writeArea(slot: number, occurrences: ReadonlyMap<string, number[]>): void {
    let words = 1;
    let entries = 0;
    let narrow = true;
    for (const encoded of occurrences.values()) {
      if (encoded.length > 1) {
        words += 2 + encoded.length;
        entries++;
        if (encoded.length > NARROW_COUNT_LIMIT) narrow = false;
        for (const position of encoded)
          if ((position & POSITION_MASK) >= NARROW_POSITION_LIMIT) narrow = false;
      }
    }
    if (entries > NARROW_COUNT_LIMIT) narrow = false;
    let page: Uint16Array | Uint32Array = new Uint32Array(0);
    let at = 0;
    if (entries > 0) {
      const pool = narrow ? this.positionPages : this.widePositionPages;
      // Narrow: a 16-bit half more per entry for the term's high half.
      const address = pool.allocate(narrow ? words + entries : words);
      this.areas[slot] = narrow ? address : address + WIDE_AREA;
      page = pool.pages[address >>> PAGE_BITS]!;
      at = address & PAGE_MASK;
      page[at++] = entries;
    }
    for (const [text, encoded] of occurrences) {
      const term = this.termId(text);
      if (encoded.length === 1) {
        this.append(term, slot, encoded[0]!);
        continue;
      }
      if (narrow) {
        page[at++] = term & 0xffff;
        page[at++] = term >>> 16;
      } else page[at++] = term;
      page[at++] = encoded.length;
      let weighted = 0;
      for (const position of encoded) {
        const field = position >>> FIELD_SHIFT;
        page[at++] = narrow ? (field << NARROW_POSITION_BITS) | (position & POSITION_MASK) : position;
        weighted += this.weights[field]!;
      }
      this.append(term, slot, this.payloadOf(weighted));
    }
  }

  /** A posting's payload for several occurrences: their weighted frequency in steps, or "read the area". */
  private payloadOf(weighted: number): number {
    const steps = weighted / this.step;
    return MANY + (Number.isInteger(steps) && steps < IN_AREA ? steps : IN_AREA);
  }

  /** The occurrences (field << 24 | position) of a posting, appended to `out`. */
  private addOccurrences(slot: number, term: number, payload: number, out: number[]): void {
    if (payload < MANY) {
      out.push(payload);
      return;
    }
    const address = this.areas[slot]!;
    if (address >= WIDE_AREA) {
      const page = this.widePositionPages.pages[(address - WIDE_AREA) >>> PAGE_BITS]!;
      let at = address & PAGE_MASK;
      const entries = page[at++]!;
      for (let e = 0; e < entries; e++) {
        const count = page[at + 1]!;
        if (page[at] === term) {
          for (let i = 0; i < count; i++) out.push(page[at + 2 + i]!);
          return;
        }
        at += 2 + count;
      }
      return;
    }
    const page = this.positionPages.pages[address >>> PAGE_BITS]!;
    let at = address & PAGE_MASK;
    const entries = page[at++]!;
    const low = term & 0xffff;
    const high = term >>> 16;
    for (let e = 0; e < entries; e++) {
      const count = page[at + 2]!;
      if (page[at] === low && page[at + 1] === high) {
        for (let i = 0; i < count; i++) {
          const occurrence = page[at + 3 + i]!;
          out.push(
            ((occurrence >>> NARROW_POSITION_BITS) << FIELD_SHIFT) | (occurrence & NARROW_POSITION_MASK),
          );
        }
        return;
      }
      at += 3 + count;
    }
  }

  /** A posting's weighted frequency (F). */
  private weightedFrequency(slot: number, term: number, payload: number): number {
    if (payload < MANY) return this.weights[payload >>> FIELD_SHIFT]!;
    if (payload !== IN_AREA_PAYLOAD) return (payload - MANY) * this.step;
    const occurrences: number[] = [];
    this.addOccurrences(slot, term, payload, occurrences);
    let total = 0;
    for (const position of occurrences) total += this.weights[position >>> FIELD_SHIFT]!;
    return total;
  }

  private append(term: number, slot: number, payload: number): void {
    let block = this.tails[term]!;
    let used = this.tailUsed[term]!;
    const pages = this.postingPages;
    if (block === 0 || used === pages.pages[block >>> PAGE_BITS]![(block & PAGE_MASK) + 1]) {
      const capacity = block === 0 ? FIRST_BLOCK : Math.min(LARGEST_BLOCK, 2 * used);
      const fresh = pages.allocate(BLOCK_HEADER + 2 * capacity);
      const page = pages.pages[fresh >>> PAGE_BITS]!;
      page[(fresh & PAGE_MASK) + 1] = capacity;
      if (block === 0) this.heads[term] = fresh;
      else pages.pages[block >>> PAGE_BITS]![block & PAGE_MASK] = fresh;
      this.tails[term] = fresh;
      block = fresh;
      used = 0;
    }
    const page = pages.pages[block >>> PAGE_BITS]!;
    const at = (block & PAGE_MASK) + BLOCK_HEADER + 2 * used;
    page[at] = slot;
    page[at + 1] = payload;
    this.tailUsed[term] = used + 1;
    this.postingCounts[term]!++;
    if (this.state[slot] === PUBLIC && this.countedAt[term] === this.frees + 1) this.publicCounts[term]!++;
    this.storedPostings++;
  }

  /** The query's clauses as term ids; a clause a term of which is in no agent matches nothing and is left out. */
  private prepare(query: LexicalQuery): PreparedClause[] {
    const out: PreparedClause[] = [];
    for (const clause of query.clauses) {
      const terms = clauseTerms(clause);
      if (terms === undefined) continue;
      const last = terms.terms.length - 1;
      const elements = terms.terms.map((term, i) => {
        if (terms.prefix && i === last) return this.termsStartingWith(term);
        const id = this.termTable.slotOf(term);
        return id < 0 ? [] : [id];
      });
      if (elements.every((element) => element.length > 0)) out.push({ elements });
    }
    return out;
  }

  private termsStartingWith(prefix: string): number[] {
    const terms = this.termTable;
    if (terms.size - this.sortedUpTo > UNSORTED_TERMS) {
      for (let id = this.sortedUpTo; id < terms.size; id++) this.sortedTerms.push(id);
      this.sortedTerms.sort((a, b) => terms.compareSlots(a, b));
      this.sortedUpTo = terms.size;
    }
    const out: number[] = [];
    let low = 0;
    let high = this.sortedTerms.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (terms.compareAt(this.sortedTerms[middle]!, prefix) < 0) low = middle + 1;
      else high = middle;
    }
    for (let i = low; i < this.sortedTerms.length; i++) {
      const id = this.sortedTerms[i]!;
      if (!terms.startsWithAt(id, prefix)) break;
      out.push(id);
    }
    for (let id = this.sortedUpTo; id < terms.size; id++) {
      if (terms.startsWithAt(id, prefix)) out.push(id);
    }
    return out;
  }

  private ensureScratch(): void {
    const n = this.slots;
    this.frequency = grown(this.frequency, n);
    this.score = grown(this.score, n);
    this.touched = grown(this.touched, n);
    this.scored = grown(this.scored, n);
    this.scope = grown(this.scope, n);
  }

  /** Marks the candidates and the excluded agents by slot; the marked slots, to clear after. */
  private markScope(options: LexicalSearchOptions): number[] {
    const marked: number[] = [];
    // forEach, not for…of: a scope may be a Set or the store's IdList, and a walk that serves both through the
    // iterator protocol allocates a result a step (tens of thousands a filtered search).
    const mark = (ids: ReadonlySet<string> | undefined, bit: number) => {
      ids?.forEach((id) => {
        const slot = this.ids.slotOf(id);
        if (slot < 0) return;
        if (this.scope[slot] === 0) marked.push(slot);
        this.scope[slot]! |= bit;
      });
    };
    mark(options.candidates, CANDIDATE);
    mark(options.excluded, EXCLUDED);
    return marked;
  }

  /**
   * One term's shares of the scores, in one pass over its postings: public agents in scope scored as they come
   * (the term's count of public agents is known before: `publicCount`), restricted ones in scope set aside until
   * their count is known too.
   */
  private scoreTerm(term: number, context: ScoringContext): void {
    const publicIdf = fts5Idf(this.publicRows, this.publicCount(term));
    const pages = this.postingPages.pages;
    const state = this.state;
    const lengths = this.lengths;
    const score = this.score;
    const scored = this.scored;
    const scope = this.scope;
    const weights = this.weights;
    const frequency = this.frequency;
    const setAside = this.touched;
    const step = this.step;
    const { scoped, candidatesOnly, publicAverage } = context;
    let scoredCount = context.scored;
    let restricted = 0;
    const tail = this.tails[term]!;
    for (let block = this.heads[term]!; block !== 0; ) {
      const page = pages[block >>> PAGE_BITS]!;
      const base = block & PAGE_MASK;
      const used = block === tail ? this.tailUsed[term]! : page[base + 1]!;
      const end = base + BLOCK_HEADER + 2 * used;
      this.counters.postingsRead += used;
      for (let at = base + BLOCK_HEADER; at < end; at += 2) {
        const slot = page[at]!;
        const held = state[slot]!;
        if (held === FREE) continue;
        if (scoped) {
          const mark = scope[slot]!;
          if ((candidatesOnly && (mark & CANDIDATE) === 0) || (mark & EXCLUDED) !== 0) continue;
        }
        const payload = page[at + 1]!;
        const weighted =
          payload < MANY
            ? weights[payload >>> FIELD_SHIFT]!
            : payload !== IN_AREA_PAYLOAD
              ? (payload - MANY) * step
              : this.weightedFrequency(slot, term, payload);
        if (held === RESTRICTED) {
          setAside[restricted++] = slot;
          frequency[slot] = weighted;
          continue;
        }
        const norm = publicAverage > 0 ? 1 - B + (B * lengths[slot]!) / publicAverage : 1;
        const share = publicIdf * ((weighted * K1_PLUS_1) / (weighted + K1 * norm));
        const before = score[slot]!;
        if (before === 0) scored[scoredCount++] = slot;
        score[slot] = before + share;
      }
      block = page[base]!;
    }
    if (restricted > 0) {
      const { restrictedAverage } = context;
      const restrictedIdf = fts5Idf(context.restrictedRows, this.publicCount(term) + restricted);
      for (let i = 0; i < restricted; i++) {
        const slot = setAside[i]!;
        const weighted = frequency[slot]!;
        frequency[slot] = 0;
        const norm = restrictedAverage > 0 ? 1 - B + (B * lengths[slot]!) / restrictedAverage : 1;
        const share = restrictedIdf * ((weighted * K1_PLUS_1) / (weighted + K1 * norm));
        const before = score[slot]!;
        if (before === 0) scored[scoredCount++] = slot;
        score[slot] = before + share;
      }
    }
    context.scored = scoredCount;
  }

  /**
   * How many public agents hold a term: counted over its postings, and kept (and counted up as public agents
   * are added) until an agent is freed, which may have held it.
   */
  private publicCount(term: number): number {
    if (this.countedAt[term] === this.frees + 1) return this.publicCounts[term]!;
    const pages = this.postingPages.pages;
    const state = this.state;
    const tail = this.tails[term]!;
    let count = 0;
    for (let block = this.heads[term]!; block !== 0; ) {
      const page = pages[block >>> PAGE_BITS]!;
      const base = block & PAGE_MASK;
      const used = block === tail ? this.tailUsed[term]! : page[base + 1]!;
      const end = base + BLOCK_HEADER + 2 * used;
      this.counters.postingsRead += used;
      for (let at = base + BLOCK_HEADER; at < end; at += 2) if (state[page[at]!] === PUBLIC) count++;
      block = page[base]!;
    }
    this.publicCounts[term] = count;
    this.countedAt[term] = this.frees + 1;
    return count;
  }

  /**
   * One clause's weighted frequency in each agent that holds it (into `frequency`, the agents listed in
   * `touched`): every public agent (they all count in n) and the restricted agents in scope.
   */
  private gather(
    clause: PreparedClause,
    inScope: ((slot: number) => boolean) | undefined,
  ): { touched: number; public: number; restricted: number } {
    const counts = { touched: 0, public: 0, restricted: 0 };
    const frequency = this.frequency;
    const touched = this.touched;
    const state = this.state;
    const weights = this.weights;
    const record = (slot: number, weighted: number) => {
      if (frequency[slot] === 0) {
        touched[counts.touched++] = slot;
        if (state[slot] === PUBLIC) counts.public++;
        else counts.restricted++;
      }
      frequency[slot]! += weighted;
    };
    if (clause.elements.length === 1) {
      for (const term of clause.elements[0]!) {
        const single = clause.elements[0]!.length === 1;
        this.forEachPosting(term, (slot, payload) => {
          const held = state[slot]!;
          if (held === FREE || (held === RESTRICTED && inScope !== undefined && !inScope(slot))) return;
          const weighted = this.weightedFrequency(slot, term, payload);
          if (single) {
            // One term: each agent once, no need to look for it.
            touched[counts.touched++] = slot;
            if (held === PUBLIC) counts.public++;
            else counts.restricted++;
            frequency[slot] = weighted;
          } else record(slot, weighted);
        });
      }
      return counts;
    }
    // A phrase: driven by its rarest exact term, the others' postings found by slot (both lists ascend).
    let driver = -1;
    clause.elements.forEach((element, i) => {
      if (element.length !== 1) return;
      if (
        driver < 0 ||
        this.postingCounts[element[0]!]! < this.postingCounts[clause.elements[driver]![0]!]!
      ) {
        driver = i;
      }
    });
    if (driver < 0) return counts;
    const cursors = clause.elements.map((element) =>
      element.map((term): Cursor => ({ term, block: this.heads[term]!, index: 0 })),
    );
    while (this.positions.length < clause.elements.length) this.positions.push([]);
    const positions = this.positions;
    const driving = clause.elements[driver]![0]!;
    this.forEachPosting(driving, (slot, payload) => {
      const held = state[slot]!;
      if (held === FREE || (held === RESTRICTED && inScope !== undefined && !inScope(slot))) return;
      for (let e = 0; e < clause.elements.length; e++) {
        const list = positions[e]!;
        list.length = 0;
        if (e === driver) {
          this.addOccurrences(slot, driving, payload, list);
          continue;
        }
        for (const cursor of cursors[e]!) {
          const found = this.seek(cursor, slot);
          if (found >= 0) this.addOccurrences(slot, cursor.term, found, list);
        }
        if (list.length === 0) return;
        if (cursors[e]!.length > 1) list.sort((a, b) => a - b);
      }
      const weighted = phraseFrequency(positions, clause.elements.length, weights);
      if (weighted > 0) record(slot, weighted);
    });
    return counts;
  }

  /** Calls `visit` with each posting of a term, in slot order. */
  private forEachPosting(term: number, visit: (slot: number, payload: number) => void): void {
    const pages = this.postingPages.pages;
    const tail = this.tails[term]!;
    for (let block = this.heads[term]!; block !== 0; ) {
      const page = pages[block >>> PAGE_BITS]!;
      const base = block & PAGE_MASK;
      const used = block === tail ? this.tailUsed[term]! : page[base + 1]!;
      const end = base + BLOCK_HEADER + 2 * used;
      for (let at = base + BLOCK_HEADER; at < end; at += 2) visit(page[at]!, page[at + 1]!);
      block = page[base]!;
    }
  }

  /** The payload of the term's posting for `slot`, or -1; the cursor moves forward only. */
  private seek(cursor: Cursor, slot: number): number {
    const pages = this.postingPages.pages;
    const tail = this.tails[cursor.term]!;
    while (cursor.block !== 0) {
      const page = pages[cursor.block >>> PAGE_BITS]!;
      const base = cursor.block & PAGE_MASK;
      const used = cursor.block === tail ? this.tailUsed[cursor.term]! : page[base + 1]!;
      const first = base + BLOCK_HEADER;
      if (page[first + 2 * (used - 1)]! < slot) {
        cursor.block = page[base]!;
        cursor.index = 0;
        continue;
      }
      let low = cursor.index;
      let high = used - 1;
      while (low < high) {
        const middle = (low + high) >>> 1;
        if (page[first + 2 * middle]! < slot) low = middle + 1;
        else high = middle;
      }
      cursor.index = low;
      return page[first + 2 * low] === slot ? page[first + 2 * low + 1]! : -1;
    }
    return -1;
  }

  /**
   * The first `limit` scored agents, best first: by score, then public before restricted, then by order. The
   * `limit`-th score is found by selection (linear), then only the agents at or above it are sorted.
   */
  private top(count: number, limit: number): LexicalMatch[] {
    const score = this.score;
    const state = this.state;
    const order = this.order;
    const scored = this.scored;
    let kept: number[];
    if (count <= limit) kept = Array.from(scored.subarray(0, count));
    else {
      this.values = grown(this.values, count);
      const values = this.values;
      for (let i = 0; i < count; i++) values[i] = score[scored[i]!]!;
      const threshold = select(values, count, count - limit);
      kept = [];
      // The agents at the threshold (often many: equal texts score alike) by public first, then order: a key
      // each, the ones wanted found by selection again.
      const tied = this.touched;
      let ties = 0;
      for (let i = 0; i < count; i++) {
        const slot = scored[i]!;
        const value = score[slot]!;
        if (value > threshold) kept.push(slot);
        else if (value === threshold) {
          tied[ties] = slot;
          values[ties++] = state[slot]! * 2 ** 32 + order[slot]!;
        }
      }
      const wanted = limit - kept.length;
      const last = ties > wanted ? select(values, ties, wanted - 1) : Number.POSITIVE_INFINITY;
      for (let i = 0; i < ties; i++) {
        const slot = tied[i]!;
        if (state[slot]! * 2 ** 32 + order[slot]! <= last) kept.push(slot);
      }
    }
    // PUBLIC (1) sorts before RESTRICTED (2).
    kept.sort((a, b) => score[b]! - score[a]! || state[a]! - state[b]! || order[a]! - order[b]!);
    return kept.map((slot) => ({ id: this.ids.idAt(slot)!, score: score[slot]! }));
  }
}

/** The value that would be at `k` (0-based) were the first `count` values sorted ascending (they are reordered). */
function select(values: Float64Array, count: number, k: number): number {
  let low = 0;
  let high = count - 1;
  while (low < high) {
    // Hoare partition around the median of three.
    const middle = (low + high) >>> 1;
    const a = values[low]!;
    const b = values[middle]!;
    const c = values[high]!;
    const pivot = Math.max(Math.min(a, b), Math.min(Math.max(a, b), c));
    let i = low;
    let j = high;
    while (i <= j) {
      while (values[i]! < pivot) i++;
      while (values[j]! > pivot) j--;
      if (i <= j) {
        const swap = values[i]!;
        values[i] = values[j]!;
        values[j] = swap;
        i++;
        j--;
      }
    }
    if (k <= j) high = j;
    else if (k >= i) low = i;
    else return values[k]!;
  }
  return values[k]!;
}

/** Where phraseFrequency reads each term's positions up to (grown for a longer phrase). */
let phraseCursors = new Int32Array(16);

/**
 * A phrase's occurrences in one agent, each weighted by its field: the starts of its first term's occurrences
 * that the i-th term follows at i positions further in the same field (positions carry their field above bit 24).
 */
function phraseFrequency(positions: readonly number[][], size: number, weights: Float64Array): number {
  let total = 0;
  if (phraseCursors.length < size) phraseCursors = new Int32Array(size);
  const cursors = phraseCursors;
  cursors.fill(0, 0, size);
  for (const start of positions[0]!) {
    let holds = true;
    for (let e = 1; e < size && holds; e++) {
      const list = positions[e]!;
      let at = cursors[e]!;
      while (at < list.length && list[at]! < start + e) at++;
      cursors[e] = at;
      holds = at < list.length && list[at] === start + e;
    }
    if (holds) total += weights[(start >>> FIELD_SHIFT) & 7]!;
  }
  return total;
}
