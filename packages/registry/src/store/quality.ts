/**
 * Evidence about how good an agent is: feedback from callers (AIDIP §10 step 4) and the outcomes the gateway
 * observed. Quality is not a change of the agent: it bumps no revision and does not show in `updated_since`.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import { type FeedbackTotals, withFeedback, withInvocation } from '../records/quality.js';
import type { LivenessSignal, QualitySignals } from '../records/types.js';
import { writeAudit } from './audit.js';
import { parseColumn } from './json.js';
import type { FeedbackOutcome } from './schema.js';

export interface Feedback {
  rating: number;
  outcome: FeedbackOutcome;
  comment?: string;
}

export class QualityStore {
  readonly #db: Kysely<Database>;
  readonly #now: () => string;

  constructor(db: Kysely<Database>, now: () => string) {
    this.#db = db;
    this.#now = now;
  }

  /** Records feedback on an existing agent; undefined when the agent is gone. */
  async addFeedback(id: string, feedback: Feedback, actor: string): Promise<QualitySignals | undefined> {
    return this.#db.transaction().execute(async (trx) => {
      const row = await trx.selectFrom('agents').select('quality').where('id', '=', id).executeTakeFirst();
      if (row === undefined) return undefined;
      const at = this.#now();
      await trx
        .insertInto('feedback')
        .values({
          agent_id: id,
          rating: feedback.rating,
          outcome: feedback.outcome,
          comment: feedback.comment ?? null,
          actor,
          at,
        })
        .execute();
      const quality = withFeedback(
        parseColumn<QualitySignals>(row.quality, 'agents.quality'),
        await totals(trx, id),
      );
      await trx
        .updateTable('agents')
        .set({ quality: JSON.stringify(quality) })
        .where('id', '=', id)
        .execute();
      await writeAudit(trx, {
        at,
        actor,
        action: 'agent.feedback',
        target: id,
        details: { rating: feedback.rating, outcome: feedback.outcome },
      });
      return quality;
    });
  }

  /** Records what the gateway saw when it called the agent. */
  async addInvocation(id: string, latencyMs: number, ok: boolean): Promise<QualitySignals | undefined> {
    return this.#db.transaction().execute(async (trx) => {
      const row = await trx
        .selectFrom('agents')
        .select(['quality', 'latency_samples'])
        .where('id', '=', id)
        .executeTakeFirst();
      if (row === undefined) return undefined;
      const next = withInvocation(
        parseColumn<QualitySignals>(row.quality, 'agents.quality'),
        parseColumn<number[]>(row.latency_samples, 'agents.latency_samples'),
        { latencyMs, ok, at: this.#now() },
        await totals(trx, id),
      );
      await trx
        .updateTable('agents')
        .set({ quality: JSON.stringify(next.quality), latency_samples: JSON.stringify(next.samples) })
        .where('id', '=', id)
        .execute();
      return next.quality;
    });
  }

  /**
   * The outcome of a liveness probe. Returns whether the agent's up/down state changed (ranking reads it); a probe
   * older than the one recorded changes nothing.
   */
  async recordLiveness(id: string, probe: LivenessSignal): Promise<boolean> {
    return this.#db.transaction().execute(async (trx) => {
      const row = await trx.selectFrom('agents').select('quality').where('id', '=', id).executeTakeFirst();
      if (row === undefined) return false;
      const quality = parseColumn<QualitySignals>(row.quality, 'agents.quality');
      const previous = quality.liveness;
      if (previous !== undefined && previous.checkedAt > probe.checkedAt) return false;
      const next: QualitySignals = { ...quality, liveness: { ...probe } };
      if (
        probe.status === 'up' &&
        !(quality.lastSeenAt !== undefined && quality.lastSeenAt >= probe.checkedAt)
      ) {
        next.lastSeenAt = probe.checkedAt;
      }
      await trx
        .updateTable('agents')
        .set({ quality: JSON.stringify(next) })
        .where('id', '=', id)
        .execute();
      return previous?.status !== probe.status;
    });
  }

  /** Feedback on an agent, newest first. */
  async feedback(id: string, limit = 100): Promise<Array<Feedback & { actor: string; at: string }>> {
    const rows = await this.#db
      .selectFrom('feedback')
      .selectAll()
      .where('agent_id', '=', id)
      .orderBy('seq', 'desc')
      .limit(limit)
      .execute();
    return rows.map((row) => {
      const entry: Feedback & { actor: string; at: string } = {
        rating: row.rating,
        outcome: row.outcome,
        actor: row.actor,
        at: row.at,
      };
      if (row.comment !== null) entry.comment = row.comment;
      return entry;
    });
  }
}

/** An agent's feedback, summed. */
export async function totals(db: Kysely<Database>, id: string): Promise<FeedbackTotals> {
  const row = await db
    .selectFrom('feedback')
    .select((eb) => [
      eb.fn.countAll<number>().as('ratings'),
      eb.fn.sum<number>('rating').as('rating_sum'),
      eb.fn.sum<number>(eb.case().when('outcome', '=', 'success').then(1).else(0).end()).as('successes'),
    ])
    .where('agent_id', '=', id)
    .executeTakeFirst();
  const ratings = Number(row?.ratings ?? 0);
  const ratingSum = Number(row?.rating_sum ?? 0);
  const successes = Number(row?.successes ?? 0);
  return {
    ratings,
    ratingScore: (ratingSum - ratings) / 4,
    reportedSuccesses: successes,
    reportedFailures: ratings - successes,
  };
}
