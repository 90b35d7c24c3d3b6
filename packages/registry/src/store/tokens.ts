/**
 * API tokens. A token is shown once, when it is made; the store keeps only its SHA-256. Tokens are 256-bit random
 * strings, so a plain hash is enough (nothing to brute-force), and looking a token up by its hash gives an
 * attacker no timing signal about any stored token.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import { writeAudit } from './audit.js';
import { parseColumn } from './json.js';
import type { TokenRole, TokensTable } from './schema.js';

export interface TokenInfo {
  id: string;
  role: TokenRole;
  publisher?: string;
  groups: string[];
  createdAt: string;
  revokedAt?: string;
}

export interface NewToken {
  role: TokenRole;
  publisher?: string;
  groups?: readonly string[];
}

/** The id of the admin token: one row, replaced when the token changes. */
export const ADMIN_TOKEN_ID = 'admin';

/** A publisher or group name a token may carry: 1 to 64 letters, digits and `. _ : @ -`, starting with a letter or digit. */
export const ACCESS_NAME = /^[A-Za-z0-9][A-Za-z0-9._:@-]{0,63}$/;

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** A fresh token: `agentry_` and 43 characters of base64url (256 random bits). */
export function generateToken(): string {
  return `agentry_${randomBytes(32).toString('base64url')}`;
}

/** Live tokens remembered between requests; past this the memory starts over. */
const MAX_REMEMBERED = 10_000;

export class TokenStore {
  readonly #db: Kysely<Database>;
  readonly #now: () => string;
  readonly #changeCount: () => number;
  /**
   * Live tokens by hash, valid while the database is unchanged: a revocation is a write, so the next request
   * after it looks the token up again. Unknown tokens are not remembered (anyone can send new ones).
   */
  readonly #live = new Map<string, TokenInfo>();
  #liveAt = -1;

  constructor(db: Kysely<Database>, now: () => string, changeCount: () => number) {
    this.#db = db;
    this.#now = now;
    this.#changeCount = changeCount;
  }

  /** Makes a token; the plaintext is in the result and nowhere else. */
  async create(spec: NewToken, actor: string): Promise<{ token: string; info: TokenInfo }> {
    const token = generateToken();
    const id = `tok_${randomBytes(9).toString('base64url')}`;
    const at = this.#now();
    const row: TokensTable = {
      id,
      token_hash: hashToken(token),
      role: spec.role,
      publisher: spec.publisher ?? null,
      groups: JSON.stringify([...new Set(spec.groups ?? [])]),
      created_at: at,
      revoked_at: null,
    };
    await this.#db.transaction().execute(async (trx) => {
      await trx.insertInto('tokens').values(row).execute();
      await writeAudit(trx, {
        at,
        actor,
        action: 'token.create',
        target: id,
        details: {
          role: spec.role,
          publisher: spec.publisher ?? null,
          groups: parseColumn(row.groups, 'groups'),
        },
      });
    });
    return { token, info: infoFromRow(row) };
  }

  /** The live token with this plaintext, if any. */
  async authenticate(token: string): Promise<TokenInfo | undefined> {
    const hash = hashToken(token);
    const changes = this.#changeCount();
    if (changes !== this.#liveAt) {
      this.#live.clear();
      this.#liveAt = changes;
    }
    const remembered = this.#live.get(hash);
    if (remembered !== undefined) return remembered;
    const row = await this.#db
      .selectFrom('tokens')
      .selectAll()
      .where('token_hash', '=', hash)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    if (row === undefined) return undefined;
    const info = infoFromRow(row);
    // Only when nothing was written meanwhile: a revocation committed during the lookup must not be forgotten.
    if (this.#changeCount() === changes) {
      if (this.#live.size >= MAX_REMEMBERED) this.#live.clear();
      this.#live.set(hash, info);
    }
    return info;
  }

  /** Revokes a token; false when there is no live token with that id. The admin token cannot be revoked here. */
  async revoke(id: string, actor: string): Promise<boolean> {
    if (id === ADMIN_TOKEN_ID) return false;
    return this.#db.transaction().execute(async (trx) => {
      const at = this.#now();
      const result = await trx
        .updateTable('tokens')
        .set({ revoked_at: at })
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) return false;
      await writeAudit(trx, { at, actor, action: 'token.revoke', target: id, details: {} });
      return true;
    });
  }

  /**
   * Live tokens (the admin token among them), newest first, at most `limit`; with `before` (a token id), those
   * made before it. What a token can do is listed, never the token itself: the store has only its hash.
   */
  async list(options: { limit: number; before?: string }): Promise<TokenInfo[]> {
    let query = this.#db.selectFrom('tokens').selectAll().where('revoked_at', 'is', null);
    if (options.before !== undefined) {
      const from = await this.#db
        .selectFrom('tokens')
        .select(['created_at', 'id'])
        .where('id', '=', options.before)
        .executeTakeFirst();
      if (from === undefined) return [];
      query = query.where((eb) =>
        eb.or([
          eb('created_at', '<', from.created_at),
          eb.and([eb('created_at', '=', from.created_at), eb('id', '<', from.id)]),
        ]),
      );
    }
    const rows = await query
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(options.limit)
      .execute();
    return rows.map(infoFromRow);
  }

  async get(id: string): Promise<TokenInfo | undefined> {
    const row = await this.#db.selectFrom('tokens').selectAll().where('id', '=', id).executeTakeFirst();
    return row === undefined ? undefined : infoFromRow(row);
  }

  /**
   * Makes sure there is an admin token. With `token` given (configuration or `AGENTRY_ADMIN_TOKEN`), that is it;
   * otherwise the stored one stays, and on first start one is generated. Returns the plaintext only when this call
   * generated it: the one time anyone can see it. A configured token is the operator's and is never handed back
   * (printed at every start, it would end up in logs).
   */
  async ensureAdmin(token: string | undefined): Promise<string | undefined> {
    const stored = await this.#db
      .selectFrom('tokens')
      .select('token_hash')
      .where('id', '=', ADMIN_TOKEN_ID)
      .executeTakeFirst();
    if (token === undefined && stored !== undefined) return undefined;
    const plaintext = token ?? generateToken();
    const hash = hashToken(plaintext);
    if (stored?.token_hash === hash) return undefined;
    const at = this.#now();
    const row = adminRow(hash, at);
    const made = await this.#db.transaction().execute(async (trx) => {
      if (token === undefined) {
        // A generated token is stored only if there still is none: processes starting together on a new file
        // each found none above, and only the first to write may show its token (the others' would not work).
        const inserted = await trx
          .insertInto('tokens')
          .values(row)
          .onConflict((conflict) => conflict.column('id').doNothing())
          .executeTakeFirst();
        if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return false;
      } else {
        await trx.deleteFrom('tokens').where('id', '=', ADMIN_TOKEN_ID).execute();
        await trx.insertInto('tokens').values(row).execute();
      }
      await writeAudit(trx, {
        at,
        actor: 'system',
        action: stored === undefined ? 'token.create' : 'token.rotate',
        target: ADMIN_TOKEN_ID,
        details: { role: 'admin', source: token === undefined ? 'generated' : 'configured' },
      });
      return true;
    });
    return made && token === undefined ? plaintext : undefined;
  }

  /**
   * Replaces the admin token with a new one (`agentry token --role admin`, for a lost one): the old one stops
   * working. Returns the plaintext, the one time anyone can see it.
   */
  async replaceAdmin(actor: string): Promise<{ token: string; info: TokenInfo }> {
    const token = generateToken();
    const row = adminRow(hashToken(token), this.#now());
    await this.#db.transaction().execute(async (trx) => {
      const removed = await trx.deleteFrom('tokens').where('id', '=', ADMIN_TOKEN_ID).executeTakeFirst();
      await trx.insertInto('tokens').values(row).execute();
      await writeAudit(trx, {
        at: row.created_at,
        actor,
        action: Number(removed.numDeletedRows) === 0 ? 'token.create' : 'token.rotate',
        target: ADMIN_TOKEN_ID,
        details: { role: 'admin', source: 'generated' },
      });
    });
    return { token, info: infoFromRow(row) };
  }
}

function adminRow(hash: string, at: string): TokensTable {
  return {
    id: ADMIN_TOKEN_ID,
    token_hash: hash,
    role: 'admin',
    publisher: 'admin',
    groups: '[]',
    created_at: at,
    revoked_at: null,
  };
}

function infoFromRow(row: TokensTable): TokenInfo {
  const info: TokenInfo = {
    id: row.id,
    role: row.role,
    groups: parseColumn<string[]>(row.groups, 'tokens.groups'),
    createdAt: row.created_at,
  };
  if (row.publisher !== null) info.publisher = row.publisher;
  if (row.revoked_at !== null) info.revokedAt = row.revoked_at;
  return info;
}
