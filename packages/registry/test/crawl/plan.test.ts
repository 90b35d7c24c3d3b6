/**
 * The crawl planner against its cases (test/vectors/crawl-plan.json): what a crawl of one host means, which
 * documents a crawl asks for, which agents are probed, how long the background loop sleeps, how a host is crawled.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import {
  type CrawlMode,
  type CrawlState,
  crawlMode,
  documentDue,
  idleWait,
  livenessDue,
  type PlanSettings,
  planCrawl,
} from '../../src/crawl/plan.js';
import type { AgentState } from '../../src/crawl/rows.js';
import type { CrawlDocumentRow, Revalidation } from '../../src/crawl/tables.js';
import type { OriginCrawl, PreviousDocument } from '../../src/crawl/types.js';

const ORIGIN = 'https://a.example';

interface PlanCase {
  name: string;
  now: string;
  settings?: Partial<PlanSettings>;
  state: {
    mode: CrawlMode;
    failures: number;
    previous?: Record<string, PreviousDocument>;
    stored?: Record<string, Pick<CrawlDocumentRow, 'status'>>;
    revalidated?: Revalidation[];
    agents?: Array<Partial<AgentState> & Pick<AgentState, 'agent_id' | 'state'>>;
    crawl?: Omit<OriginCrawl, 'origin' | 'startedAt' | 'finishedAt'>;
    error?: string;
  };
  plan: unknown;
}

interface Vectors {
  defaultSettings: PlanSettings;
  planCrawl: PlanCase[];
  documentDue: Array<{
    name: string;
    previous: PreviousDocument | null;
    now: string;
    onlyDue: boolean;
    due: boolean;
  }>;
  livenessDue: Array<{ name: string; agents: AgentState[]; now: string; due: string[] }>;
  idleWait: Array<{
    name: string;
    nextDueAt: string | null;
    now: string;
    idlePollMs: number;
    waitMs: number;
  }>;
  crawlMode: Array<{
    name: string;
    origin: string;
    byHand: boolean;
    refresh: boolean | string[] | null;
    mode: CrawlMode;
  }>;
}

const vectors = JSON.parse(
  readFileSync(new URL('../vectors/crawl-plan.json', import.meta.url), 'utf8'),
) as Vectors;

/** The columns a case leaves out of an agent's row. */
const AGENT_DEFAULTS = {
  origin: ORIGIN,
  inactive_reason: null,
  missing_count: 0,
  hash: '',
  first_seen_at: '2026-11-01T00:00:00.000Z',
  updated_at: '2026-11-01T00:00:00.000Z',
  liveness_status: null,
  liveness_checked_at: null,
  liveness_seen_at: null,
  liveness_latency_ms: null,
  liveness_due_at: null,
} satisfies Omit<AgentState, 'agent_id' | 'state'>;

function stateOf(input: PlanCase['state'], now: string): CrawlState {
  const { crawl, error } = input;
  return {
    origin: ORIGIN,
    mode: input.mode,
    failures: input.failures,
    snapshot: {
      previous: new Map(Object.entries(input.previous ?? {})),
      agents: (input.agents ?? []).map((agent) => ({ ...AGENT_DEFAULTS, ...agent })),
      revalidated: new Map((input.revalidated ?? []).map((entry) => [entry[0], entry])),
      stored: new Map(Object.entries(input.stored ?? {}).map(([url, row]) => [url, row as CrawlDocumentRow])),
    },
    result:
      error !== undefined
        ? { error }
        : { crawl: { origin: ORIGIN, startedAt: now, finishedAt: now, ...crawl! } },
  };
}

describe('planCrawl', () => {
  for (const vector of vectors.planCrawl) {
    test(vector.name, () => {
      const plan = planCrawl(stateOf(vector.state, vector.now), Date.parse(vector.now), {
        ...vectors.defaultSettings,
        ...vector.settings,
      });
      // Compared as JSON: fields left undefined are absent from the case.
      assert.deepEqual(JSON.parse(JSON.stringify(plan)), vector.plan);
    });
  }

  test('reads nothing but its arguments: the same state planned twice gives the same plan', () => {
    const vector = vectors.planCrawl[0]!;
    const settings = vectors.defaultSettings;
    const first = planCrawl(stateOf(vector.state, vector.now), Date.parse(vector.now), settings);
    const second = planCrawl(stateOf(vector.state, vector.now), Date.parse(vector.now), settings);
    assert.deepEqual(first, second);
  });
});

describe('documentDue', () => {
  for (const vector of vectors.documentDue) {
    test(vector.name, () => {
      assert.equal(
        documentDue(vector.previous ?? undefined, Date.parse(vector.now), vector.onlyDue),
        vector.due,
      );
    });
  }
});

describe('livenessDue', () => {
  for (const vector of vectors.livenessDue) {
    test(vector.name, () => {
      const due = livenessDue(vector.agents, Date.parse(vector.now));
      assert.deepEqual(
        due.map((agent) => agent.agent_id),
        vector.due,
      );
    });
  }
});

describe('idleWait', () => {
  for (const vector of vectors.idleWait) {
    test(vector.name, () => {
      assert.equal(
        idleWait(vector.nextDueAt ?? undefined, Date.parse(vector.now), vector.idlePollMs),
        vector.waitMs,
      );
    });
  }
});

describe('crawlMode', () => {
  for (const vector of vectors.crawlMode) {
    test(vector.name, () => {
      const refresh = Array.isArray(vector.refresh) ? new Set(vector.refresh) : (vector.refresh ?? undefined);
      assert.equal(crawlMode(vector.origin, vector.byHand, refresh), vector.mode);
    });
  }
});
