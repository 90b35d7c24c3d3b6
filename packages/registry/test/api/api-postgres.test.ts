/**
 * The registry's HTTP API on PostgreSQL: the API suite's files that cover finding (filters, paging, `q`, POST
 * /agents/search), facets, access control, registration, and intent resolution with the gateway, each registry on
 * a database of the local server (127.0.0.1:5432) made for this run and dropped at its end
 * (test/db/postgres-pool.ts). They run on SQLite as their own files; here `startRegistry` (test/support.ts) opens
 * PostgreSQL through test-dialect.ts's choice.
 */
import { after } from 'node:test';
import { dropPooledDatabases } from '../db/postgres-pool.js';
import { useTestDialect } from '../test-dialect.js';

useTestDialect('postgres');
after(() => dropPooledDatabases());
await import('./find.test.js');
await import('./facets.test.js');
await import('./access.test.js');
await import('./register.test.js');
await import('../resolve/registry.test.js');
