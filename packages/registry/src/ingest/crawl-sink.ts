/**
 * Where the crawler's results land: crawled agents are registered like any other, owned by the pseudo-publisher
 * `crawler:<host>` of the origin that published them, under ids derived from the origin and the agent's own id
 * (stable, so a re-crawl updates the same record). Every call is idempotent, as the crawler requires.
 */
import type { FormatName } from '@agentry/core';
import type { SearchSync } from '../api/context.js';
import type { CrawledAgent, CrawlSink, LivenessResult } from '../crawl/types.js';
import { preferredId } from '../records/ids.js';
import type { RegistryRecord } from '../records/types.js';
import { scanAgentText } from '../safety/index.js';
import { ownerSuffixedId } from '../store/agents.js';
import type { RegistryStore } from '../store/store.js';

const ACTOR = 'crawler';

export function createCrawlSink(store: RegistryStore, sync: SearchSync): CrawlSink {
  /** The record a crawled agent was stored under, if it was. */
  const find = async (origin: string, agentId: string): Promise<RegistryRecord | undefined> => {
    const owner = crawlOwner(origin);
    const first = crawledId(origin, agentId);
    for (const id of [first, ownerSuffixedId(first, owner)]) {
      const record = await store.agents.get(id);
      if (record?.owner === owner) return record;
    }
    return undefined;
  };

  return {
    async upsertCrawled(origin: string, agents: readonly CrawledAgent[]): Promise<void> {
      if (agents.length === 0) return;
      const owner = crawlOwner(origin);
      const outcome = await store.agents.register(
        agents.map((crawled) => ({
          draft: {
            agent: crawled.agent,
            owner,
            flags: scanAgentText(crawled.agent),
            sourceFormat: sourceFormatOf(crawled),
          },
          preferredId: crawledId(origin, crawled.id),
        })),
        { actor: ACTOR },
      );
      if (Array.isArray(outcome)) {
        await sync.upsert(outcome.filter((item) => item.kind !== 'unchanged').map((item) => item.record));
      }
    },

    async markInactive(origin: string, agentIds: readonly string[]): Promise<void> {
      for (const agentId of agentIds) {
        const record = await find(origin, agentId);
        if (record === undefined || record.status === 'inactive') continue;
        const agent = { ...record.agent, status: { ...record.agent.status, state: 'inactive' } };
        const outcome = await store.agents.update(
          record.id,
          { agent, flags: record.flags, sourceFormat: agent.provenance?.sourceFormat ?? 'aidip' },
          () => 'allow',
          ACTOR,
        );
        if (outcome.kind === 'updated') await sync.upsert([outcome.record]);
      }
    },

    async tombstone(origin: string, agentIds: readonly string[]): Promise<void> {
      for (const agentId of agentIds) {
        const record = await find(origin, agentId);
        if (record === undefined) continue;
        const outcome = await store.agents.delete(record.id, () => 'allow', ACTOR);
        if (outcome.kind === 'deleted') await sync.remove([record.id]);
      }
    },

    async recordLiveness(origin: string, agentId: string, result: LivenessResult): Promise<void> {
      if (result.status === 'unknown') return;
      const record = await find(origin, agentId);
      if (record === undefined) return;
      const changed = await store.quality.recordLiveness(record.id, {
        status: result.status,
        checkedAt: result.lastSeenAt ?? result.checkedAt,
        ...(result.reason === undefined ? {} : { reason: result.reason }),
      });
      // Search ranks unreachable agents lower: it has to hear of the change.
      if (changed) {
        const current = await store.agents.get(record.id);
        if (current !== undefined) await sync.upsert([current]);
      }
    },
  };
}

/** The publisher crawled agents are owned by: one per origin host. */
export function crawlOwner(origin: string): string {
  return `crawler:${hostOf(origin)}`;
}

/** The registry id a crawled agent asks for: its origin's host and its own id. */
export function crawledId(origin: string, agentId: string): string {
  const id = `${hostOf(origin)}.${agentId}`;
  return preferredId({ id, name: id, description: '', operations: [], bindings: [] });
}

function hostOf(origin: string): string {
  return URL.canParse(origin) ? new URL(origin).host : origin;
}

function sourceFormatOf(crawled: CrawledAgent): FormatName {
  const primary = crawled.sources.find((source) => source.primary) ?? crawled.sources[0];
  return primary?.format ?? crawled.agent.provenance?.sourceFormat ?? 'aidip';
}
