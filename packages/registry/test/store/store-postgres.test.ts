/**
 * The store on PostgreSQL: every case of store-suite.ts, facet-index-suite.ts and indexed-lists-suite.ts on a fresh database of the local
 * server (127.0.0.1:5432), dropped at the end.
 */
import { describeFacetIndex } from './facet-index-suite.js';
import { describeIndexedLists } from './indexed-lists-suite.js';
import { describeStore } from './store-suite.js';

describeStore('postgres');
describeFacetIndex('postgres');
describeIndexedLists('postgres');
