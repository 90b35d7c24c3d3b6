/**
 * The search index behind the registry's `GET /agents?q=`, `POST /agents/search` and `POST /resolve`: a lexical
 * (BM25) index and a semantic (embedding) index over what each agent says about itself, fused into one ranking.
 * The registry's store decides which agents a caller may see and which match the filters; the index ranks them.
 */

/** Everything an agent says about itself that a search should match. */
export interface SearchDocument {
  id: string;
  name: string;
  description: string;
  tags: string[];
  capabilities: string[];
  operations: SearchOperation[];
  /** What ranks the agent lower whatever the query (inactive, unreachable, synthetic); absent when nothing does. */
  demotion?: Demotion;
  /**
   * Whether some callers may not see the agent. Such an agent counts in no search statistics but those of callers
   * who may see it (docs/search.md, "What a caller may not see"); absent: public.
   */
  restricted?: boolean;
}

/**
 * A standing penalty: subtracted from the agent's fused score, in standard deviations (the rankings are
 * standardised before they are fused), and told in the hit's `why`.
 */
export interface Demotion {
  penalty: number;
  reasons: string[];
}

export interface SearchOperation {
  name: string;
  description: string;
  /** Example requests (text) and the parameter names of the input schema. */
  examples: string[];
  parameters: string[];
}

export type SearchMode = 'hybrid' | 'lexical' | 'semantic';

export interface SearchOptions {
  mode?: SearchMode;
  top: number;
  /** Rank only these agents (the filters and entitlements, applied first). Absent: every indexed agent. */
  candidates?: ReadonlySet<string>;
  /** Never rank these agents (those hidden from the caller), whatever `candidates` says. */
  excluded?: ReadonlySet<string>;
  /**
   * Where the `why` of the hits reads their words. Absent: the lexical index reads the hits' text back from the
   * database. A function: the caller's own read of the hits, given every hit's id in rank order once the ranking is
   * made (a caller that shows the hits reads their records anyway, so a search reads each hit once: at a million
   * agents a second read of rows the page cache no longer holds costs milliseconds a row). It answers with a lookup
   * of the documents of the hits it read, which is asked only for the hits that matched words; a hit it does not
   * show (undefined) is explained without its words. `false`: no words are read (a ranking only counted).
   */
  hitDocuments?: ((ids: readonly string[]) => Promise<(id: string) => SearchDocument | undefined>) | false;
}

export interface SearchHit {
  id: string;
  /** Higher is better; comparable within one result list. */
  score: number;
  /** Short reasons a person can read: which fields and signals matched. */
  why: string[];
  lexical?: number;
  semantic?: number;
}

export interface SearchIndex {
  /**
   * Index (or re-index) agents; embeds them in batches (an agent whose text is unchanged keeps its vector). If the
   * embedding provider fails, the agents are still indexed lexically and wait for `embedPending`.
   */
  upsert(documents: readonly SearchDocument[]): Promise<void>;
  remove(ids: readonly string[]): Promise<void>;
  /**
   * Ranks agents for a need. Mode `hybrid` (the default) fuses lexical and semantic rankings; without a provider,
   * or while the provider cannot embed the query, every mode ranks lexically.
   */
  search(query: string, options: SearchOptions): Promise<SearchHit[]>;
  /**
   * Embeds the agents that have no vector from the current provider (after a failure, a change of model, or a
   * write without a provider); returns how many it embedded. Each batch is a write of its own. Rejects if the
   * provider fails.
   */
  embedPending(options?: EmbedPendingOptions): Promise<number>;
  stats(): Promise<SearchIndexStats>;
  /** Stops following other connections' writes (before the database closes). */
  close(): void;
}

export interface EmbedPendingOptions {
  /** Texts per provider call (default 64). */
  batchSize?: number;
  /** Most agents this call embeds (default: every one waiting). */
  limit?: number;
}

export interface SearchIndexStats {
  /** Agents in the lexical index. */
  documents: number;
  /** Agents with a vector from the current provider (held in memory). */
  embedded: number;
  provider?: string;
  dimensions?: number;
  /** Present (true) when semantic candidates come from the approximate nearest-neighbour index (docs/search.md). */
  approximate?: true;
  /** Present (true) when lexical searches rank in memory (lexical/memory-mirror.ts, docs/search.md). */
  lexicalInMemory?: true;
  /**
   * Present (true) while the approximate index is built in the background (trained, or trained again after many
   * changes): searches are answered meanwhile, but share the thread with the build.
   */
  vectorIndexBuilding?: true;
}
