/**
 * The search suites that run on PostgreSQL (search-postgres.test.ts) and rank, once more with every index ranking
 * lexically in memory (lexical/memory-mirror.ts) whatever its size, on databases of the local server made for this
 * run and dropped at its end. Not refused-texts.test.ts: what it checks is what is sent to the embedding provider and
 * reported; that an agent the provider failed to embed is still found lexically, index.test.ts checks here too.
 */
import { after } from 'node:test';
import { dropPooledDatabases } from '../db/postgres-pool.js';
import { useTestDialect } from '../test-dialect.js';
import { rankLexicallyInMemory } from './helpers.js';

useTestDialect('postgres');
rankLexicallyInMemory();
after(() => dropPooledDatabases());
await import('./index.test.js');
await import('./demotion.test.js');
