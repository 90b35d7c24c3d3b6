/**
 * The search suites once more with every index ranking lexically in memory (lexical/memory-mirror.ts) whatever its
 * size, on SQLite files: what they expect of the stored engine holds of the mirror, including a second connection's
 * writes (shared-database.test.ts) and restricted agents' statistics. The PostgreSQL run is
 * search-memory-postgres.test.ts; the mirror's own cases are lexical-memory.test.ts.
 */
import { rankLexicallyInMemory } from './helpers.js';

rankLexicallyInMemory();
await import('./index.test.js');
await import('./demotion.test.js');
await import('./refused-texts.test.js');
await import('./lexical.test.js');
await import('./restricted-statistics.test.js');
await import('./shared-database.test.js');
