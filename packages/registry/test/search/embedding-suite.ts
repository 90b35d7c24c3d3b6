/**
 * The preamble of the search suites that embed (index, demotion, refused-texts, coalesce): a loopback
 * OpenAI-compatible embeddings server whose "model" is a bag of words (fast and deterministic), started before the
 * enclosing `describe`'s tests and closed after them, with its requests forgotten before each test; the provider it
 * serves; the texts it was sent; and a search database (and index) made for one test and disposed after it.
 */
import { after, before, beforeEach } from 'node:test';
import { createOpenAIEmbeddingProvider, type EmbeddingProvider } from '@agentry/embeddings';
import type { SearchIndex, SearchIndexOptions } from '../../src/search/index.js';
import {
  createSearchIndex,
  embeddingsHandler,
  type LoopbackServer,
  openTestDatabase,
  startServer,
  type TestDatabase,
} from './helpers.js';

/** What the server answers instead of embeddings, for a request's inputs: an error status and its message. */
export interface Refusal {
  status: number;
  message: string;
}

export interface EmbeddingSuiteOptions {
  /** The vectors' dimensions. */
  dimensions: number;
  /** Decides, per request, to answer with an error instead (a model loading, a text refused); else embeds. */
  refuse?: (input: readonly string[]) => Refusal | undefined;
}

export interface EmbeddingSuite {
  /** The running server: its URL and the requests it received since the test began. */
  readonly server: LoopbackServer;
  /** A provider of this server, under the model name `model` (every name embeds alike). */
  provider(model?: string): EmbeddingProvider;
  /** Each request's inputs received since the last call (or the test's start), oldest first; forgets them. */
  takeInputs(): string[][];
  /** Every text received since the last call (or the test's start), in order; forgets them. */
  takeTexts(): string[];
  /** Runs `test` on a new search database, disposed afterwards however `test` ends. */
  withDatabase(test: (database: TestDatabase) => Promise<void>): Promise<void>;
  /** Runs `test` on a search index embedding with `provider()`, over a new database disposed afterwards. */
  withIndex(
    test: (index: SearchIndex, database: TestDatabase) => Promise<void>,
    options?: SearchIndexOptions,
  ): Promise<void>;
}

/** Call inside a `describe`: its hooks start and stop the server around that block's tests. */
export function embeddingSuite(options: EmbeddingSuiteOptions): EmbeddingSuite {
  let server: LoopbackServer | undefined;
  before(async () => {
    const answer = embeddingsHandler(options.dimensions);
    server = await startServer((body, request, response) => {
      const refusal = options.refuse?.((JSON.parse(body) as { input: string[] }).input);
      if (refusal === undefined) {
        answer(body, request, response);
        return;
      }
      response.writeHead(refusal.status, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: refusal.message } }));
    });
  });
  after(() => server?.close());
  // Each test sees only the requests it caused.
  beforeEach(() => {
    if (server !== undefined) server.requests.length = 0;
  });

  const running = (): LoopbackServer => {
    if (server === undefined) throw new Error('the embeddings server runs only while the suite does');
    return server;
  };
  const suite: EmbeddingSuite = {
    get server() {
      return running();
    },
    provider: (model = 'bow') => createOpenAIEmbeddingProvider({ baseUrl: running().url, model }),
    takeInputs: () =>
      running()
        .requests.splice(0)
        .map((request) => (JSON.parse(request.body) as { input: string[] }).input),
    takeTexts: () => suite.takeInputs().flat(),
    async withDatabase(test) {
      const database = await openTestDatabase();
      try {
        await test(database);
      } finally {
        await database.dispose();
      }
    },
    withIndex: (test, indexOptions = {}) =>
      suite.withDatabase(async (database) =>
        test(await createSearchIndex(database.db, suite.provider(), indexOptions), database),
      ),
  };
  return suite;
}
