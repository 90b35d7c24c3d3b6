/**
 * The approximate nearest-neighbour search suite (ann-search.test.ts) on PostgreSQL: the same agents, queries and
 * bounds on a database of the local server (127.0.0.1:5432) made for this run and dropped at its end
 * (test/db/postgres-pool.ts). The vectors and the index live in each replica's memory on both dialects; here they are
 * loaded from and written to PostgreSQL, and the lexical half of the hybrid ranking is the PostgreSQL engine's.
 */
import { after } from 'node:test';
import { dropPooledDatabases } from '../db/postgres-pool.js';
import { useTestDialect } from '../test-dialect.js';

useTestDialect('postgres');
after(() => dropPooledDatabases());
await import('./ann-search.test.js');
