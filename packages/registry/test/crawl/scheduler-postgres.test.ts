/**
 * The crawler on PostgreSQL: every case of scheduler-suite.ts, its tables in a fresh database of the local server
 * (127.0.0.1:5432), dropped at the end.
 */
import { describeScheduler } from './scheduler-suite.js';

describeScheduler('postgres');
