/**
 * USE-lite's tokenizer: a SentencePiece unigram model over the 8,000 pieces of the package's `vocab.json`, decoded
 * by Viterbi (the highest total score). It reproduces, quirks included, the tokenizer that
 * `@energetic-ai/embeddings` runs before TF.js, so the native encoder and the TF.js one read a text as the same
 * token ids (use-lite-tokenizer.property.test.ts compares the two on generated texts):
 * - the text is NFKC-normalised, spaces become `▁` and one `▁` is put in front;
 * - a position no piece starts at becomes one unknown token (id 0), and consecutive unknown tokens are merged;
 * - ties go to the candidate seen last, and a best score of exactly 0 counts as none yet;
 * - walking back from the end moves by each piece's length in UTF-16 units.
 */

/** `[piece, score]`, in id order. */
export type UseLiteVocabulary = readonly (readonly [string, number])[];

/** The first ids are control symbols (unknown, `<s>`, `</s>`, extra tokens) that no text is split into. */
const RESERVED_IDS = 6;
const SEPARATOR = '\u2581';

/** A node of the pieces' trie, by code point: `id` is the piece that ends here, -1 where none does. */
interface TrieNode {
  id: number;
  next: Map<number, TrieNode> | undefined;
}

export class UseLiteTokenizer {
  /**
   * The pieces by code point, so that the search for the pieces starting at a position follows the text one code
   * point at a time and stops where no piece continues (a Set of every prefix string cost a string and its hash per
   * step).
   */
  private readonly root: TrieNode = { id: -1, next: undefined };

  constructor(private readonly vocabulary: UseLiteVocabulary) {
    for (let id = RESERVED_IDS; id < vocabulary.length; id++) {
      let node = this.root;
      for (const symbol of vocabulary[id]![0]) {
        const code = symbol.codePointAt(0)!;
        node.next ??= new Map();
        let child = node.next.get(code);
        if (child === undefined) {
          child = { id: -1, next: undefined };
          node.next.set(code, child);
        }
        node = child;
      }
      if (node !== this.root) node.id = id; // a piece listed twice keeps its last id, as the reference trie does
    }
  }

  encode(text: string): number[] {
    const normalized = text.normalize('NFKC');
    const input = normalized.length > 0 ? SEPARATOR + normalized.replaceAll(' ', SEPARATOR) : normalized;
    const codes = Array.from(input, (symbol) => symbol.codePointAt(0)!);
    const n = codes.length;
    // Candidates ending at each position, in increasing order of their start.
    const ending: { id: number; length: number; score: number }[][] = Array.from({ length: n + 1 }, () => []);
    for (let start = 0; start < n; start++) {
      let node: TrieNode | undefined = this.root;
      let found = false;
      for (let length = 1; start + length <= n; length++) {
        node = node.next?.get(codes[start + length - 1]!);
        if (node === undefined) break;
        if (node.id < 0) continue;
        found = true;
        ending[start + length]!.push({ id: node.id, length, score: this.vocabulary[node.id]![1] });
      }
      if (!found) ending[start + 1]!.push({ id: 0, length: 1, score: 0 });
    }
    const best = new Float64Array(n + 1);
    const words = new Int32Array(n + 1);
    for (let end = 0; end <= n; end++) {
      for (const candidate of ending[end]!) {
        const score = candidate.score + best[end - candidate.length]!;
        if (best[end] === 0 || score >= best[end]!) {
          best[end] = score;
          words[end] = candidate.id;
        }
      }
    }
    const reversed: number[] = [];
    for (let at = n; at > 0; at -= this.vocabulary[words[at]!]![0].length) reversed.push(words[at]!);
    const ids: number[] = [];
    let previousUnknown = false;
    for (const id of reversed) {
      if (!(previousUnknown && id === 0)) ids.push(id);
      previousUnknown = id === 0;
    }
    return ids.reverse();
  }
}
