/**
 * The search index on PostgreSQL: the search suite's files that cover the index (embedding, ranking, restarts,
 * changes of model, demotions, refused texts, the lexical index in memory) on databases of the local server (127.0.0.1:5432) made for this run
 * and dropped at its end (test/db/postgres-pool.ts). They run on SQLite as their own files; here they open their
 * databases through test-dialect.ts's choice. The PostgreSQL lexical engine's own cases are lexical-postgres.test.ts.
 */
import { after } from 'node:test';
import { dropPooledDatabases } from '../db/postgres-pool.js';
import { useTestDialect } from '../test-dialect.js';

useTestDialect('postgres');
after(() => dropPooledDatabases());
await import('./index.test.js');
await import('./demotion.test.js');
await import('./refused-texts.test.js');
await import('./lexical-memory.test.js');
