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
 * the term's one occurrence in the agent (field in bits 24–26, position below) or, with bit 31 set, the address
 * of its occurrences in a second page pool (count, then each). So a posting costs 8 bytes, plus 4 per occurrence
 * beyond the first. A freed slot's postings stay until a compaction rebuilds the pools (when a quarter of the
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
import {
  BM25_B as B,
  DEFAULT_FIELD_WEIGHTS,
  FIELD_COLUMNS,
  type FieldWeights,
  BM25_K1 as K1,
} from './fields.js';
import { clauseTerms, textTerms } from './memory-text.js';
import { fts5Idf } from './pruning.js';
import type { LexicalQuery } from './query.js';
import type { LexicalFields, LexicalMatch, LexicalSearchOptions } from './types.js';

const PAGE_BITS = 20;
const PAGE_WORDS = 1 << PAGE_BITS;
const PAGE_MASK = PAGE_WORDS - 1;
/** A block: next block's address, capacity in postings, then (slot, payload) pairs. */
const BLOCK_HEADER = 2;
const FIRST_BLOCK = 2;
const LARGEST_BLOCK = 4096;

const MANY = 0x8000_0000;
const FIELD_SHIFT = 24;
const POSITION_MASK = (1 << FIELD_SHIFT) - 1;

const FREE = 0;
const PUBLIC = 1;
const RESTRICTED = 2;

/** Scope marks of a search. */
const CANDIDATE = 1;
const EXCLUDED = 2;

/** Free slots that trigger a compaction: this share of all slots, and at least `compactFrom`. */
const COMPACT_SHARE = 0.25;
const COMPACT_FROM = 10_000;
/** New terms the prefix lookup scans one by one before it sorts them in. */
const UNSORTED_TERMS = 4096;

/** 32-bit words in pages of 4 MB, allocated by bumping; address 0 is never given (it means none). */
class WordPages {
  readonly pages: Uint32Array[] = [];
  private top = PAGE_WORDS;

  allocate(words: number): number {
    if (this.top + words > PAGE_WORDS) {
      this.pages.push(new Uint32Array(PAGE_WORDS));
      // The first page's first word stays unused, so that no address is 0.
      this.top = this.pages.length === 1 ? 1 : 0;
    }
    const address = (this.pages.length - 1) * PAGE_WORDS + this.top;
    this.top += words;
    return address;
  }

  get bytes(): number {
    return this.pages.length * PAGE_WORDS * 4;
  }
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

export interface MemoryPostingsOptions {
  weights?: Readonly<FieldWeights>;
  /** Compaction waits for at least this many free slots (default 10,000; tests set it low). */
  compactFrom?: number;
}

export class MemoryPostings {
  private readonly weights: Float64Array;
  private readonly compactFrom: number;

  // Agents, by slot.
  private ids: string[] = [];
  private readonly slotOf = new Map<string, number>();
  private state = new Uint8Array(0);
  private lengths = new Uint32Array(0);
  private order = new Uint32Array(0);
  private slots = 0;
  private live = 0;
  private nextOrder = 0;
  private idChars = 0;
  private readonly restrictedSlots = new Set<number>();
  private publicRows = 0;
  private publicTokens = 0;

  // Terms, by id.
  private readonly termIds = new Map<string, number>();
  private terms: string[] = [];
  private termChars = 0;
  private heads = new Uint32Array(0);
  private tails = new Uint32Array(0);
  private tailUsed = new Uint32Array(0);
  private postingCounts = new Uint32Array(0);
  private postingPages = new WordPages();
  private positionPages = new WordPages();
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
  private readonly positions: number[][] = [];

  constructor(options: MemoryPostingsOptions = {}) {
    const weights = options.weights ?? DEFAULT_FIELD_WEIGHTS;
    this.weights = Float64Array.from(FIELD_COLUMNS.map(([field]) => Number(weights[field])));
    this.compactFrom = options.compactFrom ?? COMPACT_FROM;
  }

  /** Live agents held. */
  get size(): number {
    return this.live;
  }

  /** Postings stored, those of replaced and deleted agents included until a compaction. */
  get postings(): number {
    return this.storedPostings;
  }

  has(id: string): boolean {
    return this.slotOf.has(id);
  }

  /** Adds or replaces an agent (a replaced agent's old postings no longer count anywhere). */
  set(id: string, fields: LexicalFields, restricted: boolean): void {
    const old = this.slotOf.get(id);
    let order: number;
    if (old === undefined) order = this.nextOrder++;
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
    for (const [term, encoded] of occurrences) this.append(this.termId(term), slot, this.payloadOf(encoded));
    this.lengths[slot] = length;
    if (restricted) this.restrictedSlots.add(slot);
    else {
      this.publicRows++;
      this.publicTokens += length;
    }
    this.maybeCompact();
  }

  delete(id: string): void {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return;
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

    let scoredCount = 0;
    const frequency = this.frequency;
    const score = this.score;
    const touched = this.touched;
    const state = this.state;
    const lengths = this.lengths;
    for (const clause of clauses) {
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
        if (score[slot] === 0) this.scored[scoredCount++] = slot;
        score[slot]! += share;
      }
    }
    const top = this.top(scoredCount, limit);
    for (let i = 0; i < scoredCount; i++) score[this.scored[i]!] = 0;
    for (const slot of marked) this.scope[slot] = 0;
    return top;
  }

  /** Approximate bytes held (typed arrays + rough per-id and per-term cost), for stats and docs. */
  get bytes(): number {
    const arrays =
      this.state.byteLength +
      this.lengths.byteLength +
      this.order.byteLength +
      this.heads.byteLength +
      this.tails.byteLength +
      this.tailUsed.byteLength +
      this.postingCounts.byteLength +
      this.frequency.byteLength +
      this.score.byteLength +
      this.touched.byteLength +
      this.scored.byteLength +
      this.scope.byteLength;
    // A string in V8: a header and its characters; a Map entry and an array element besides.
    const strings = (count: number, chars: number) => count * (16 + 8 + 40) + chars;
    return (
      this.postingPages.bytes +
      this.positionPages.bytes +
      arrays +
      this.ids.length * 8 +
      strings(this.live, this.idChars) +
      strings(this.terms.length, this.termChars) +
      this.sortedTerms.length * 8
    );
  }

  /** Rebuilds the pools without the postings of freed slots, and renumbers the slots (order kept). */
  compact(): void {
    const renumbered = new Int32Array(this.slots).fill(-1);
    const ids: string[] = [];
    let next = 0;
    for (let slot = 0; slot < this.slots; slot++) {
      if (this.state[slot] === FREE) continue;
      renumbered[slot] = next;
      ids.push(this.ids[slot]!);
      this.state[next] = this.state[slot]!;
      this.lengths[next] = this.lengths[slot]!;
      this.order[next] = this.order[slot]!;
      next++;
    }
    this.state.fill(FREE, next);
    this.ids = ids;
    this.slots = next;
    this.slotOf.clear();
    for (const [slot, id] of ids.entries()) this.slotOf.set(id, slot);
    const restricted = [...this.restrictedSlots].map((slot) => renumbered[slot]!);
    this.restrictedSlots.clear();
    for (const slot of restricted) this.restrictedSlots.add(slot);

    const old = {
      terms: this.terms,
      heads: this.heads,
      tails: this.tails,
      tailUsed: this.tailUsed,
      postingPages: this.postingPages.pages,
      positionPages: this.positionPages.pages,
    };
    this.termIds.clear();
    this.terms = [];
    this.termChars = 0;
    this.heads = new Uint32Array(0);
    this.tails = new Uint32Array(0);
    this.tailUsed = new Uint32Array(0);
    this.postingCounts = new Uint32Array(0);
    this.postingPages = new WordPages();
    this.positionPages = new WordPages();
    this.storedPostings = 0;
    this.sortedTerms = [];
    this.sortedUpTo = 0;
    old.terms.forEach((text, term) => {
      let id = -1;
      for (let block = old.heads[term]!; block !== 0; ) {
        const page = old.postingPages[block >>> PAGE_BITS]!;
        const base = block & PAGE_MASK;
        const used = block === old.tails[term] ? old.tailUsed[term]! : page[base + 1]!;
        for (let i = 0; i < used; i++) {
          const slot = renumbered[page[base + BLOCK_HEADER + 2 * i]!]!;
          if (slot < 0) continue;
          let payload = page[base + BLOCK_HEADER + 2 * i + 1]!;
          if ((payload & MANY) !== 0)
            payload = this.payloadOf(readOccurrences(old.positionPages, payload, []));
          if (id < 0) id = this.termId(text);
          this.append(id, slot, payload);
        }
        block = page[base]!;
      }
    });
  }

  private newSlot(id: string, order: number, state: number): number {
    const slot = this.slots++;
    this.state = grown(this.state, this.slots);
    this.lengths = grown(this.lengths, this.slots);
    this.order = grown(this.order, this.slots);
    this.ids[slot] = id;
    this.state[slot] = state;
    this.order[slot] = order;
    this.slotOf.set(id, slot);
    this.live++;
    this.idChars += id.length * 2;
    return slot;
  }

  private free(slot: number): void {
    const id = this.ids[slot]!;
    if (this.state[slot] === PUBLIC) {
      this.publicRows--;
      this.publicTokens -= this.lengths[slot]!;
    } else this.restrictedSlots.delete(slot);
    this.state[slot] = FREE;
    this.ids[slot] = '';
    this.slotOf.delete(id);
    this.live--;
    this.idChars -= id.length * 2;
  }

  private maybeCompact(): void {
    const freed = this.slots - this.live;
    if (freed >= this.compactFrom && freed >= COMPACT_SHARE * this.slots) this.compact();
  }

  private termId(text: string): number {
    const known = this.termIds.get(text);
    if (known !== undefined) return known;
    const id = this.terms.length;
    this.terms.push(text);
    this.termIds.set(text, id);
    this.termChars += text.length * 2;
    this.heads = grown(this.heads, id + 1);
    this.tails = grown(this.tails, id + 1);
    this.tailUsed = grown(this.tailUsed, id + 1);
    this.postingCounts = grown(this.postingCounts, id + 1);
    return id;
  }

  /** A posting's payload for its occurrences (each field << 24 | position), stored beside when more than one. */
  private payloadOf(encoded: readonly number[]): number {
    if (encoded.length === 1) return encoded[0]!;
    const address = this.positionPages.allocate(encoded.length + 1);
    const page = this.positionPages.pages[address >>> PAGE_BITS]!;
    const base = address & PAGE_MASK;
    page[base] = encoded.length;
    for (let i = 0; i < encoded.length; i++) page[base + 1 + i] = encoded[i]!;
    if (address >= MANY)
      throw new Error('the in-memory lexical index holds more occurrences than it can address');
    return (MANY | address) >>> 0;
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
        const id = this.termIds.get(term);
        return id === undefined ? [] : [id];
      });
      if (elements.every((element) => element.length > 0)) out.push({ elements });
    }
    return out;
  }

  private termsStartingWith(prefix: string): number[] {
    if (this.terms.length - this.sortedUpTo > UNSORTED_TERMS) {
      for (let id = this.sortedUpTo; id < this.terms.length; id++) this.sortedTerms.push(id);
      const terms = this.terms;
      this.sortedTerms.sort((a, b) => (terms[a]! < terms[b]! ? -1 : terms[a]! > terms[b]! ? 1 : 0));
      this.sortedUpTo = this.terms.length;
    }
    const out: number[] = [];
    let low = 0;
    let high = this.sortedTerms.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.terms[this.sortedTerms[middle]!]! < prefix) low = middle + 1;
      else high = middle;
    }
    for (let i = low; i < this.sortedTerms.length; i++) {
      const id = this.sortedTerms[i]!;
      if (!this.terms[id]!.startsWith(prefix)) break;
      out.push(id);
    }
    for (let id = this.sortedUpTo; id < this.terms.length; id++) {
      if (this.terms[id]!.startsWith(prefix)) out.push(id);
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
    const mark = (ids: ReadonlySet<string> | undefined, bit: number) => {
      if (ids === undefined) return;
      for (const id of ids) {
        const slot = this.slotOf.get(id);
        if (slot === undefined) continue;
        if (this.scope[slot] === 0) marked.push(slot);
        this.scope[slot]! |= bit;
      }
    };
    mark(options.candidates, CANDIDATE);
    mark(options.excluded, EXCLUDED);
    return marked;
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
          const weighted =
            (payload & MANY) === 0
              ? weights[(payload >>> FIELD_SHIFT) & 7]!
              : this.weightedOccurrences(payload);
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
    const pages = this.positionPages.pages;
    this.forEachPosting(clause.elements[driver]![0]!, (slot, payload) => {
      const held = state[slot]!;
      if (held === FREE || (held === RESTRICTED && inScope !== undefined && !inScope(slot))) return;
      for (let e = 0; e < clause.elements.length; e++) {
        const list = positions[e]!;
        list.length = 0;
        if (e === driver) {
          addOccurrences(pages, payload, list);
          continue;
        }
        for (const cursor of cursors[e]!) {
          const found = this.seek(cursor, slot);
          if (found >= 0) addOccurrences(pages, found, list);
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

  private weightedOccurrences(payload: number): number {
    const address = payload & ~MANY;
    const page = this.positionPages.pages[address >>> PAGE_BITS]!;
    const base = address & PAGE_MASK;
    const count = page[base]!;
    let total = 0;
    for (let i = 1; i <= count; i++) total += this.weights[(page[base + i]! >>> FIELD_SHIFT) & 7]!;
    return total;
  }

  /** The first `limit` scored agents, best first: by score, then public before restricted, then by order. */
  private top(count: number, limit: number): LexicalMatch[] {
    const score = this.score;
    const state = this.state;
    const order = this.order;
    // Whether a ranks below b.
    const below = (a: number, b: number): boolean => {
      const sa = score[a]!;
      const sb = score[b]!;
      if (sa !== sb) return sa < sb;
      if (state[a] !== state[b]) return state[a] === RESTRICTED;
      return order[a]! > order[b]!;
    };
    // A heap of the best `limit` so far, the lowest at its root.
    const heap: number[] = [];
    const down = (from: number) => {
      let at = from;
      for (;;) {
        const left = 2 * at + 1;
        if (left >= heap.length) return;
        const right = left + 1;
        const lower = right < heap.length && below(heap[right]!, heap[left]!) ? right : left;
        if (!below(heap[lower]!, heap[at]!)) return;
        [heap[at], heap[lower]] = [heap[lower]!, heap[at]!];
        at = lower;
      }
    };
    for (let i = 0; i < count; i++) {
      const slot = this.scored[i]!;
      if (heap.length < limit) {
        heap.push(slot);
        let at = heap.length - 1;
        while (at > 0) {
          const parent = (at - 1) >>> 1;
          if (!below(heap[at]!, heap[parent]!)) break;
          [heap[at], heap[parent]] = [heap[parent]!, heap[at]!];
          at = parent;
        }
      } else if (below(heap[0]!, slot)) {
        heap[0] = slot;
        down(0);
      }
    }
    heap.sort((a, b) => (below(a, b) ? 1 : below(b, a) ? -1 : 0));
    return heap.map((slot) => ({ id: this.ids[slot]!, score: score[slot]! }));
  }
}

/** A posting's occurrences (field << 24 | position), appended to `out`. */
function addOccurrences(pages: readonly Uint32Array[], payload: number, out: number[]): void {
  if ((payload & MANY) === 0) {
    out.push(payload);
    return;
  }
  readOccurrences(pages, payload, out);
}

function readOccurrences(pages: readonly Uint32Array[], payload: number, out: number[]): number[] {
  const address = payload & ~MANY;
  const page = pages[address >>> PAGE_BITS]!;
  const base = address & PAGE_MASK;
  const count = page[base]!;
  for (let i = 1; i <= count; i++) out.push(page[base + i]!);
  return out;
}

/**
 * A phrase's occurrences in one agent, each weighted by its field: the starts of its first term's occurrences
 * that the i-th term follows at i positions further in the same field (positions carry their field above bit 24).
 */
function phraseFrequency(positions: readonly number[][], size: number, weights: Float64Array): number {
  let total = 0;
  const cursors = new Array<number>(size).fill(0);
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
