/**
 * The search suites that run on PostgreSQL (search-postgres.test.ts) once more with every index ranking lexically
 * in memory (lexical/memory-mirror.ts) whatever its size, on databases of the local server made for this run and
 * dropped at its end.
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
await import('./refused-texts.test.js');
