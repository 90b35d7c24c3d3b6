/**
 * The store on PostgreSQL: every case of store-suite.ts on a fresh database of the local server (127.0.0.1:5432),
 * dropped at the end.
 */
import { describeStore } from './store-suite.js';

describeStore('postgres');
