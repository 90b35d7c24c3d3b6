/**
 * Follows the change log (change-log.ts) for one index: how far it has applied the log, which of the changes
 * there are its own writes, and catching up on what other connections committed (`agentry crawl` beside
 * `agentry serve`), one reader at a time.
 *
 * A change read from the log may be older than what this index has written since the read began: an agent's change
 * applies only if no own write of it came later.
 */
import { type ChangedEntry, type ChangePosition, changesAfter, latestChange } from './change-log.js';
import type { Executor } from './lexical/types.js';

const LOAD_PAGE = 2000;

export interface ChangeFollower {
  /**
   * This index's own write stamped `ids` with `seq` (and has been applied by the index itself). When nobody else
   * wrote since the log was last read, the log is read past it at once (nothing to read back).
   */
  ownWriteCommitted(seq: number, ids: readonly string[]): void;
  /**
   * Applies the changes other connections committed since the log was last read: every change committed before
   * the call (a read of the log already under way when it is called is followed by another one).
   */
  catchUp(): Promise<void>;
}

/**
 * `from`: the log's latest number, read before what the index loaded (a change committed while it loads is applied
 * again, never missed). `apply` takes another writer's change.
 */
export function followChanges(
  db: Executor,
  from: number,
  apply: (change: ChangedEntry) => void,
): ChangeFollower {
  let applied: ChangePosition = { seq: from };
  /** This index's own writes by agent, while a read of the log that began before them may still apply it. */
  const ownWrites = new Map<string, number>();
  let catchingUp: Promise<void> | undefined;
  /** The read that follows the one under way, for the callers that came after it began. */
  let catchingUpAgain: Promise<void> | undefined;

  function forgetOwnWritesUpTo(seq: number): void {
    for (const [id, written] of ownWrites) if (written <= seq) ownWrites.delete(id);
  }

  /** Not in the write queue, so that a search never waits for an embedding of this index. */
  async function applyChanges(): Promise<void> {
    const latest = await latestChange(db);
    if (latest < applied.seq || (latest === applied.seq && applied.agentId === undefined)) return;
    let position = applied;
    for (;;) {
      const changes = await changesAfter(db, position, LOAD_PAGE);
      for (const change of changes) {
        if ((ownWrites.get(change.id) ?? 0) > change.seq) continue;
        apply(change);
      }
      const last = changes[changes.length - 1];
      const done = changes.length < LOAD_PAGE;
      if (last !== undefined) position = done ? { seq: last.seq } : { seq: last.seq, agentId: last.id };
      if (isAfter(position, applied)) applied = position;
      if (done) return;
    }
  }

  return {
    ownWriteCommitted(seq, ids) {
      for (const id of ids) ownWrites.set(id, seq);
      if (applied.agentId === undefined && seq === applied.seq + 1) applied = { seq };
      if (catchingUp === undefined) forgetOwnWritesUpTo(applied.seq);
    },
    catchUp() {
      const start = (): Promise<void> => {
        catchingUp ??= applyChanges().finally(() => {
          catchingUp = undefined;
          forgetOwnWritesUpTo(applied.seq);
        });
        return catchingUp;
      };
      if (catchingUp === undefined) return start();
      catchingUpAgain ??= catchingUp
        .catch(() => undefined)
        .then(() => {
          catchingUpAgain = undefined;
          return start();
        });
      return catchingUpAgain;
    },
  };
}

/** True when log position `a` comes after `b` (a position without an agent covers its whole write). */
function isAfter(a: ChangePosition, b: ChangePosition): boolean {
  if (a.seq !== b.seq) return a.seq > b.seq;
  if (a.agentId === undefined) return b.agentId !== undefined;
  return b.agentId !== undefined && a.agentId > b.agentId;
}
