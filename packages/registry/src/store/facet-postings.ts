/**
 * The facet index's agents (facet-index.ts) as numbered slots, kept in id order, with a posting list per value:
 * the slots of the agents holding it, in id order. A filtered list or a search's scope then reads the agents a
 * filter keeps from the postings of its rarest requirement, checking the others on each agent's codes, in the
 * order a list pages in (`agents.id`), and stops once it has a page — where the database intersected its
 * (value, agent_id) indexes, which at 1,000,000 agents took about a second, or walked the agents in id order.
 *
 * Agent ids are compared as JavaScript strings (UTF-16 code units). Ids are URL-safe ASCII (records/ids.ts), on
 * which that is the byte order SQLite's `BINARY` collation and PostgreSQL's `C` collation sort by; the facet index
 * answers lists only where the database sorts so (`FacetIndex.sortsLikeDatabase`).
 *
 * Writes come in batches (`apply`): each posting a batch touches is rebuilt once by a merge, so a batch costs the
 * length of the postings it touches, not their length a change; the id order is rebuilt once when agents come or
 * go (a binary search for each new id, one copy of the order).
 *
 * Each agent's codes are a run in one shared pool of 32-bit words (`AgentCodeRuns`), not a typed array each: at
 * 1,000,000 agents a million small typed arrays held about 250 MB of heap where their codes are about 40 MB.
 */
import { IdTable } from '@agentry/embeddings';

/** One agent's facet value codes as they are now; `codes` undefined when the agent no longer exists. */
export interface AgentCodes {
  id: string;
  codes: readonly number[] | undefined;
}

/**
 * What a filter asks, as codes: per requirement, the codes of the values it accepts (any of them). A requirement
 * no agent's value meets is an empty list.
 */
export type CodeRequirements = ReadonlyArray<readonly number[]>;

const EMPTY = new Int32Array(0);
const NO_CODES = new Uint32Array(0);

/**
 * Every slot's codes as a run (start, length) in one pool. A run that grows moves to the pool's end; the pool is
 * rewritten without the runs left behind once they are half of it.
 */
class AgentCodeRuns {
  pool: Uint32Array = new Uint32Array(64);
  starts: Uint32Array = new Uint32Array(0);
  lengths: Uint32Array = new Uint32Array(0);
  #used = 0;
  #abandoned = 0;

  /** Sets a slot's codes (no codes: the slot holds none). */
  set(slot: number, codes: ArrayLike<number>): void {
    if (slot >= this.starts.length) {
      const size = Math.max(slot + 1, Math.ceil(this.starts.length * 1.5), 16);
      this.starts = grownTo(this.starts, size);
      this.lengths = grownTo(this.lengths, size);
    }
    const held = this.lengths[slot]!;
    let start = this.starts[slot]!;
    if (codes.length > held) {
      // The old run is left behind after any packing `#makeRoom` does, which still copies it.
      if (this.#used + codes.length > this.pool.length) this.#makeRoom(codes.length);
      this.#abandoned += held;
      start = this.#used;
      this.#used += codes.length;
    } else this.#abandoned += held - codes.length;
    // A slot without codes keeps no start: one left from before a packing may lie beyond the pool.
    if (codes.length > 0) this.pool.set(codes, start);
    this.starts[slot] = codes.length > 0 ? start : 0;
    this.lengths[slot] = codes.length;
  }

  /** The slot's codes, as a view of the pool (valid until the next `set`). */
  of(slot: number): Uint32Array {
    const length = this.lengths[slot] ?? 0;
    if (length === 0) return NO_CODES;
    const start = this.starts[slot]!;
    return this.pool.subarray(start, start + length);
  }

  /** Room for `wanted` more words: the live runs packed when half the pool is left behind, else a larger pool. */
  #makeRoom(wanted: number): void {
    if (this.#abandoned * 2 >= this.#used) {
      const packed = new Uint32Array(Math.max(64, Math.ceil((this.#used - this.#abandoned + wanted) * 1.5)));
      let used = 0;
      for (let slot = 0; slot < this.lengths.length; slot++) {
        const length = this.lengths[slot]!;
        if (length === 0) continue;
        const start = this.starts[slot]!;
        packed.set(this.pool.subarray(start, start + length), used);
        this.starts[slot] = used;
        used += length;
      }
      this.pool = packed;
      this.#used = used;
      this.#abandoned = 0;
      if (this.#used + wanted <= this.pool.length) return;
    }
    this.pool = grownTo(this.pool, Math.max(this.#used + wanted, Math.ceil(this.pool.length * 1.5)));
  }
}

function grownTo(array: Uint32Array, length: number): Uint32Array {
  const grown = new Uint32Array(length);
  grown.set(array);
  return grown;
}

export class FacetPostings {
  /** Ids by slot and slots by id, outside the heap (a million strings there slow every full collection). */
  readonly #ids = new IdTable();
  readonly #codes = new AgentCodeRuns();
  /** Slots of agents that left, reused by later batches. */
  readonly #free: number[] = [];
  /** Live slots, in id order. */
  #order: Int32Array = EMPTY;
  /** Each live slot's position in `#order`. */
  #rank: Int32Array = EMPTY;
  /** Per code, the slots of the agents holding it, in id order. */
  readonly #postings: Int32Array[] = [];

  /** A fresh set of agents, each with its codes. */
  static build(agents: ReadonlyMap<string, readonly number[]>): FacetPostings {
    const postings = new FacetPostings();
    const ids = [...agents.keys()].sort();
    postings.#order = new Int32Array(ids.length);
    postings.#rank = new Int32Array(ids.length);
    const lengths: number[] = [];
    for (const [slot, id] of ids.entries()) {
      const codes = Uint32Array.from(new Set(agents.get(id)!));
      postings.#ids.set(slot, id);
      postings.#codes.set(slot, codes);
      postings.#order[slot] = slot;
      postings.#rank[slot] = slot;
      for (const code of codes) lengths[code] = (lengths[code] ?? 0) + 1;
    }
    const filled: number[] = [];
    for (let code = 0; code < lengths.length; code++) {
      postings.#postings[code] = new Int32Array(lengths[code] ?? 0);
      filled[code] = 0;
    }
    // Slots were numbered in id order: appending them in slot order leaves each posting sorted.
    for (let slot = 0; slot < ids.length; slot++) {
      for (const code of postings.#codes.of(slot)) postings.#postings[code]![filled[code]!++] = slot;
    }
    return postings;
  }

  get size(): number {
    return this.#ids.size;
  }

  has(id: string): boolean {
    return this.#ids.has(id);
  }

  /** The agent's codes (a view, valid until the next `apply`); undefined when the index does not hold it. */
  codesOf(id: string): Uint32Array | undefined {
    const slot = this.#ids.slotOf(id);
    return slot < 0 ? undefined : this.#codes.of(slot);
  }

  /** The slot of an agent held, or -1: what `forEachRun`'s and `runOf`'s callers tell agents apart by. */
  slotOf(id: string): number {
    return this.#ids.slotOf(id);
  }

  /**
   * Calls `visit` with every agent's slot and its codes as `pool[start..end)` (in no particular order): no view
   * or id is made per agent, which at 1,000,000 agents would be a million allocations a count.
   */
  forEachRun(visit: (slot: number, pool: Uint32Array, start: number, end: number) => void): void {
    const { pool, starts, lengths } = this.#codes;
    const ids = this.#ids;
    for (let slot = 0; slot < ids.slotCount; slot++) {
      if (ids.holds(slot)) visit(slot, pool, starts[slot]!, starts[slot]! + lengths[slot]!);
    }
  }

  /** `forEachRun`'s visit for one held slot. */
  runOf(slot: number, visit: (slot: number, pool: Uint32Array, start: number, end: number) => void): void {
    const { pool, starts, lengths } = this.#codes;
    if (this.#ids.holds(slot)) visit(slot, pool, starts[slot]!, starts[slot]! + lengths[slot]!);
  }

  /** Brings the agents named in `changes` to what they say: new ones added, changed ones rewritten, gone ones dropped. */
  apply(changes: readonly AgentCodes[]): void {
    const added = new Map<number, number[]>();
    const removed = new Map<number, number[]>();
    const note = (into: Map<number, number[]>, code: number, slot: number): void => {
      const slots = into.get(code);
      if (slots === undefined) into.set(code, [slot]);
      else slots.push(slot);
    };
    const arrived: number[] = [];
    const left: number[] = [];
    // An agent named twice in a batch ends as its last entry says.
    for (const { id, codes } of new Map(changes.map((change) => [change.id, change])).values()) {
      const slot = this.#ids.slotOf(id);
      if (codes === undefined) {
        if (slot < 0) continue;
        for (const code of this.#codes.of(slot)) note(removed, code, slot);
        left.push(slot);
        continue;
      }
      const next = Uint32Array.from(new Set(codes));
      if (slot < 0) {
        // Slots freed by this batch are not reused within it: a posting rebuilt here drops them.
        const fresh = this.#free.pop() ?? this.#ids.slotCount;
        this.#ids.set(fresh, id);
        this.#codes.set(fresh, next);
        for (const code of next) note(added, code, fresh);
        arrived.push(fresh);
        continue;
      }
      const previous = this.#codes.of(slot);
      for (const code of previous) if (!next.includes(code)) note(removed, code, slot);
      for (const code of next) if (!previous.includes(code)) note(added, code, slot);
      this.#codes.set(slot, next);
    }
    if (arrived.length > 0 || left.length > 0) this.#reorder(arrived, left);
    for (const code of new Set([...added.keys(), ...removed.keys()])) {
      this.#postings[code] = this.#merged(
        this.#postings[code] ?? EMPTY,
        added.get(code) ?? [],
        removed.get(code) ?? [],
      );
    }
    for (const slot of left) {
      this.#ids.deleteAt(slot);
      this.#codes.set(slot, NO_CODES);
      this.#free.push(slot);
    }
  }

  /**
   * The ids of the agents meeting every requirement (at least one), not among `hidden`, in id order after
   * `afterId` (every one when undefined), at most `limit`.
   */
  meeting(
    requirements: CodeRequirements,
    hidden: ReadonlySet<string> | undefined,
    afterId: string | undefined,
    limit: number,
  ): string[] {
    if (requirements.length === 0 || limit <= 0) return [];
    // The requirement whose postings are shortest is walked; the others are checked on each agent's codes.
    let driver = -1;
    let driverLength = Number.POSITIVE_INFINITY;
    for (const [index, codes] of requirements.entries()) {
      let length = 0;
      for (const code of codes) length += this.#postings[code]?.length ?? 0;
      if (length < driverLength) {
        driver = index;
        driverLength = length;
      }
    }
    if (driverLength === 0) return [];
    const checks = requirements.filter((_, index) => index !== driver).map(acceptedCodes);
    const from = afterId === undefined ? 0 : this.#firstRankAfter(afterId);
    const lists = requirements[driver]!.map((code) => this.#postings[code] ?? EMPTY);
    const heads = lists.map((list) => this.#firstAtOrAfter(list, from));
    const rank = this.#rank;
    const { pool, starts, lengths } = this.#codes;
    // Nothing is allocated per agent visited (a wide filter visits tens of thousands a search), and the answer is
    // sized once: garbage that outlives a young collection brings full collections into the searches beside it.
    const found = new Array<string>(Math.min(limit, driverLength));
    let count = 0;
    for (;;) {
      // The next slot in id order among the driver's postings (an agent in several of them once).
      let slot = -1;
      let slotRank = Number.POSITIVE_INFINITY;
      for (let index = 0; index < lists.length; index++) {
        const list = lists[index]!;
        const head = heads[index]!;
        if (head < list.length && rank[list[head]!]! < slotRank) {
          slot = list[head]!;
          slotRank = rank[slot]!;
        }
      }
      if (slot < 0) break;
      for (let index = 0; index < lists.length; index++)
        if (lists[index]![heads[index]!] === slot) heads[index]!++;
      const start = starts[slot]!;
      const end = start + lengths[slot]!;
      let meets = true;
      for (let c = 0; c < checks.length && meets; c++) meets = runMeets(pool, start, end, checks[c]!);
      if (!meets) continue;
      // The id is made for every agent that meets the filter (the answer holds it), so `hidden` is asked by id:
      // no set of hidden slots is built a request, which for a private registry's many hidden agents costs more.
      const id = this.#ids.idAt(slot)!;
      if (hidden?.has(id)) continue;
      found[count++] = id;
      if (count >= limit) break;
    }
    found.length = count;
    return found;
  }

  /** The slots of the agents among `ids` that the index holds; undefined when none is named. */
  slotsOf(ids: ReadonlySet<string> | undefined): Set<number> | undefined {
    if (ids === undefined || ids.size === 0) return undefined;
    const slots = new Set<number>();
    ids.forEach((id) => {
      const slot = this.#ids.slotOf(id);
      if (slot >= 0) slots.add(slot);
    });
    return slots;
  }

  /** The position in id order of the first agent whose id sorts after `id`. */
  #firstRankAfter(id: string): number {
    let low = 0;
    let high = this.#order.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.#ids.compareAt(this.#order[middle]!, id) <= 0) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** The index in `list` of its first slot at or after position `rank` in id order. */
  #firstAtOrAfter(list: Int32Array, rank: number): number {
    let low = 0;
    let high = list.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.#rank[list[middle]!]! < rank) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** The id order with `arrived` slots placed and `left` ones taken out; every slot's rank again. */
  #reorder(arrived: number[], left: readonly number[]): void {
    const ids = this.#ids;
    const leaving = new Set(left);
    const sorted = arrived.sort((a, b) => ids.compareSlots(a, b));
    const old = this.#order;
    const order = new Int32Array(old.length - left.length + sorted.length);
    let written = 0;
    let copied = 0;
    const copyUpTo = (end: number): void => {
      if (leaving.size === 0) {
        order.set(old.subarray(copied, end), written);
        written += end - copied;
        copied = end;
        return;
      }
      for (; copied < end; copied++) {
        const slot = old[copied]!;
        if (!leaving.has(slot)) order[written++] = slot;
      }
    };
    for (const slot of sorted) {
      // The first position of the old order whose id sorts after this one.
      let low = copied;
      let high = old.length;
      while (low < high) {
        const middle = (low + high) >>> 1;
        if (ids.compareSlots(old[middle]!, slot) < 0) low = middle + 1;
        else high = middle;
      }
      copyUpTo(low);
      order[written++] = slot;
    }
    copyUpTo(old.length);
    this.#order = order;
    if (this.#rank.length < ids.slotCount) {
      const grown = new Int32Array(Math.max(ids.slotCount, Math.ceil(this.#rank.length * 1.25)));
      grown.set(this.#rank);
      this.#rank = grown;
    }
    for (let rank = 0; rank < order.length; rank++) this.#rank[order[rank]!] = rank;
  }

  /** `list` less `removed`, with `added` merged in, in id order (ranks as they are now). */
  #merged(list: Int32Array, added: number[], removed: readonly number[]): Int32Array {
    const rank = this.#rank;
    const dropping = new Set(removed);
    const adding = added.sort((a, b) => rank[a]! - rank[b]!);
    const out = new Int32Array(list.length - removed.length + adding.length);
    let written = 0;
    let next = 0;
    for (const slot of list) {
      if (dropping.size > 0 && dropping.has(slot)) continue;
      while (next < adding.length && rank[adding[next]!]! < rank[slot]!) out[written++] = adding[next++]!;
      out[written++] = slot;
    }
    while (next < adding.length) out[written++] = adding[next++]!;
    return written === out.length ? out : out.subarray(0, written);
  }
}

/** 1 at each of `codes`: what `runMeets` checks an agent's codes against. */
function acceptedCodes(codes: readonly number[]): Uint8Array {
  let largest = -1;
  for (const code of codes) if (code > largest) largest = code;
  const accepted = new Uint8Array(largest + 1);
  for (const code of codes) accepted[code] = 1;
  return accepted;
}

/** Whether the run `pool[start..end)` of an agent's codes holds a code `accepted` has a 1 at. */
export function runMeets(pool: Uint32Array, start: number, end: number, accepted: Uint8Array): boolean {
  for (let i = start; i < end; i++) if (accepted[pool[i]!] === 1) return true;
  return false;
}
