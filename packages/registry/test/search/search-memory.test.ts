/**
 * The search suites that rank once more with every index ranking lexically in memory (lexical/memory-mirror.ts)
 * whatever its size, on SQLite files: what they expect of the stored engine holds of the mirror, including a second
 * connection's writes (shared-database.test.ts) and restricted agents' statistics. Not refused-texts.test.ts (what
 * it checks is what is sent to the embedding provider and reported; that an agent the provider failed to embed is
 * still found lexically, index.test.ts checks here too), nor the cases that start a registry whole
 * (`rankingLexicallyInMemory`). The PostgreSQL run is search-memory-postgres.test.ts; the mirror's
 * own cases are lexical-memory.test.ts.
 */
import { rankLexicallyInMemory } from './helpers.js';

rankLexicallyInMemory();
await import('./index.test.js');
await import('./demotion.test.js');
await import('./lexical.test.js');
await import('./restricted-statistics.test.js');
await import('./shared-database.test.js');
