/**
 * Where the crawler's results land, and an import's (`arrival: 'imported'`). A crawled agent is one source of an
 * entry (docs/registry.md, "Identity"): it joins the entry that is its agent — one a publisher registered, or one
 * another crawl found — or becomes an entry held by the pseudo-publisher `crawler:<host>` of the origin that
 * published it, under an id derived from the origin and the agent's own id. Its source is keyed by the origin's
 * host and the agent's id there, so a re-crawl changes the same source. Every call is idempotent, as the crawler
 * requires.
 */
import type { FormatName } from '@agentry/core';
import type { SearchSync } from '../api/context.js';
import type { CrawledAgent, CrawlSink, LivenessResult } from '../crawl/types.js';
import { crawledId, crawlOwner, hostOf } from '../records/ids.js';
import { type AgentSource, fetchedSourceKey } from '../records/sources.js';
import type { RegistryRecord } from '../records/types.js';
import { scanAgentText } from '../safety/index.js';
import { ownerSuffixedId } from '../store/agents.js';
import type { RegistryStore } from '../store/store.js';

export { crawledId, crawlOwner } from '../records/ids.js';

const ACTOR = 'crawler';

export interface CrawlSinkOptions {
  /** How the agents arrive: by a crawl of their origin (default) or an import from another registry. */
  arrival?: 'crawled' | 'imported';
}

export function createCrawlSink(
  store: RegistryStore,
  sync: SearchSync,
  options: CrawlSinkOptions = {},
): CrawlSink {
  const arrival = options.arrival ?? 'crawled';
  const keyOf = (origin: string, agentId: string): string =>
    fetchedSourceKey(arrival, hostOf(origin), agentId);

  /**
   * The entry holding a crawled agent's source. Entries stored before sources had keys of their own (their
   * agent's id at its origin unknown) carry the entry's id in the key: found by it, the source takes its key.
   */
  const find = async (origin: string, agentId: string): Promise<RegistryRecord | undefined> => {
    const key = keyOf(origin, agentId);
    const found = await store.agents.getBySource(key);
    if (found !== undefined) return found;
    const first = crawledId(origin, agentId);
    for (const legacyId of [first, ownerSuffixedId(first, crawlOwner(origin))]) {
      const legacyKey = fetchedSourceKey(arrival, hostOf(origin), legacyId);
      const record = await store.agents.getBySource(legacyKey);
      if (record === undefined) continue;
      await store.agents.renameSource(record.id, legacyKey, key, agentId);
      return record;
    }
    return undefined;
  };

  /** Changes the agent's source; the entry is merged again, or deleted when nothing else describes it. */
  const change = async (
    origin: string,
    agentId: string,
    update: (source: AgentSource) => AgentSource | null,
  ): Promise<void> => {
    if ((await find(origin, agentId)) === undefined) return;
    const outcome = await store.agents.changeSource(keyOf(origin, agentId), update, ACTOR);
    if (outcome.kind === 'updated') await sync.upsert([outcome.record]);
    if (outcome.kind === 'deleted') await sync.remove([outcome.record.id]);
  };

  return {
    async upsertCrawled(origin: string, agents: readonly CrawledAgent[]): Promise<void> {
      if (agents.length === 0) return;
      const owner = crawlOwner(origin);
      for (const crawled of agents) await find(origin, crawled.id);
      const outcome = await store.agents.register(
        agents.map((crawled) => ({
          draft: {
            agent: crawled.agent,
            owner,
            flags: scanAgentText(crawled.agent),
            sourceFormat: sourceFormatOf(crawled),
            fetched: {
              arrival,
              host: hostOf(origin),
              handle: crawled.id,
              documents: crawled.sources.map((source) => ({
                format: source.format,
                url: source.url,
                at: source.fetchedAt,
              })),
            },
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
      const at = new Date().toISOString();
      for (const agentId of agentIds) {
        await change(origin, agentId, (source) =>
          source.agent.status?.state === 'inactive'
            ? source
            : {
                ...source,
                agent: { ...source.agent, status: { ...source.agent.status, state: 'inactive' } },
                at,
              },
        );
      }
    },

    async tombstone(origin: string, agentIds: readonly string[]): Promise<void> {
      for (const agentId of agentIds) await change(origin, agentId, () => null);
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

/** The id of the entry a crawled agent is part of; null when there is none (tombstoned, never stored). */
export async function crawledEntryId(
  store: RegistryStore,
  origin: string,
  agentId: string,
): Promise<string | null> {
  const record = await store.agents.getBySource(fetchedSourceKey('crawled', hostOf(origin), agentId));
  return record?.id ?? null;
}

function sourceFormatOf(crawled: CrawledAgent): FormatName {
  const primary = crawled.sources.find((source) => source.primary) ?? crawled.sources[0];
  return primary?.format ?? crawled.agent.provenance?.sourceFormat ?? 'aidip';
}
