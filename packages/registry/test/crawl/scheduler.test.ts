/** The crawler on a real SQLite file: every case of scheduler-suite.ts. */
import { describeScheduler } from './scheduler-suite.js';

describeScheduler('sqlite');
