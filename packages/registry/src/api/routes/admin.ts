/** Administration (admin token only): API tokens (create, list, revoke) and the audit log. */
import type { JsonValue } from '@agentry/core';
import { actorOf } from '../../access/callers.js';
import type { TokenRole } from '../../store/schema.js';
import { ACCESS_NAME } from '../../store/tokens.js';
import { readJsonBody } from '../body.js';
import type { RegistryServices, RouteHandlers } from '../context.js';
import { invalidInput, notFound } from '../problems.js';
import { jsonResponse } from '../respond.js';
import { unknownQueryParameter } from '../route-table.js';

const NAME = ACCESS_NAME;
const ROLES: readonly TokenRole[] = ['publisher', 'client'];

export function adminHandlers(
  services: RegistryServices,
): RouteHandlers<'createToken' | 'listTokens' | 'revokeToken' | 'readAudit'> {
  const { store, settings } = services;

  return {
    createToken: async (c) => {
      const caller = c.get('caller');
      const body = await readJsonBody(c.req.raw, settings.maxBodyBytes);
      if (!body.ok) return body.response;
      const spec = readTokenSpec(body.value);
      if (!spec.ok) return spec.response;
      const { token, info } = await store.tokens.create(spec.value, actorOf(caller));
      // The token is in this answer and nowhere else: the store keeps its hash.
      return jsonResponse(
        {
          id: info.id,
          token,
          role: info.role,
          publisher: info.publisher ?? null,
          groups: info.groups,
          created_at: info.createdAt,
        },
        201,
      );
    },

    listTokens: async (c) => {
      const url = new URL(c.req.url);
      const unknown = unknownQueryParameter(url, 'listTokens');
      if (unknown !== undefined) return unknown;
      const params = url.searchParams;
      const limit = readPageLimit(params);
      if (limit instanceof Response) return limit;
      const before = params.get('before') ?? undefined;
      const tokens = await store.tokens.list({ limit, ...(before === undefined ? {} : { before }) });
      const last = tokens[tokens.length - 1];
      return jsonResponse({
        tokens: tokens.map((info) => ({
          id: info.id,
          role: info.role,
          publisher: info.publisher ?? null,
          groups: info.groups,
          created_at: info.createdAt,
        })),
        ...(tokens.length === limit && last !== undefined ? { next_before: last.id } : {}),
      });
    },

    revokeToken: async (c) => {
      const caller = c.get('caller');
      const id = c.req.param('id');
      const revoked = await store.tokens.revoke(id, actorOf(caller));
      if (!revoked)
        return notFound(`No live token "${id}" (the admin token is changed through configuration).`);
      return new Response(null, { status: 204 });
    },

    readAudit: async (c) => {
      const url = new URL(c.req.url);
      const unknown = unknownQueryParameter(url, 'readAudit');
      if (unknown !== undefined) return unknown;
      const params = url.searchParams;
      const limit = readPageLimit(params);
      if (limit instanceof Response) return limit;
      const before = params.get('before') === null ? undefined : Number(params.get('before'));
      if (before !== undefined && (!Number.isInteger(before) || before < 1))
        return invalidInput('"before" must be a positive integer (an entry\'s seq).');
      const entries = await store.audit.list({
        limit,
        ...(before === undefined ? {} : { before }),
        ...(params.get('target') === null ? {} : { target: params.get('target')! }),
        ...(params.get('action') === null ? {} : { action: params.get('action')! }),
      });
      const last = entries[entries.length - 1];
      return jsonResponse({
        entries,
        ...(entries.length === limit && last !== undefined ? { next_before: last.seq } : {}),
      });
    },
  };
}

type TokenSpec = { role: TokenRole; publisher?: string; groups: string[] };

function readTokenSpec(body: JsonValue): { ok: true; value: TokenSpec } | { ok: false; response: Response } {
  const fail = (detail: string, pointer: string): { ok: false; response: Response } => ({
    ok: false,
    response: invalidInput(detail, pointer),
  });
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return fail(
      'The body must be {"role"?: "publisher" | "client", "publisher"?: "...", "groups"?: [...]}.',
      '',
    );
  }
  const extra = Object.keys(body).find((key) => !['role', 'publisher', 'groups'].includes(key));
  if (extra !== undefined)
    return fail(`Unknown member "${extra}"; a token has role, publisher and groups.`, `/${extra}`);
  const { publisher, groups } = body;
  // AIDIP's `{publisher, groups}`: naming a publisher asks for a publisher's token, naming none for a client's.
  const role = body['role'] ?? (publisher === undefined ? 'client' : 'publisher');
  if (typeof role !== 'string' || !(ROLES as readonly string[]).includes(role)) {
    return fail('"role" must be "publisher" or "client".', '/role');
  }
  const spec: TokenSpec = { role: role as TokenRole, groups: [] };
  if (publisher !== undefined) {
    if (typeof publisher !== 'string' || !NAME.test(publisher) || publisher === 'admin') {
      return fail('"publisher" is 1 to 64 letters, digits and . _ : @ - (and not "admin").', '/publisher');
    }
    spec.publisher = publisher;
  }
  if (groups !== undefined) {
    if (!Array.isArray(groups) || groups.length > 32)
      return fail('"groups" must be an array of at most 32 group names.', '/groups');
    for (const [index, group] of groups.entries()) {
      if (typeof group !== 'string' || !NAME.test(group)) {
        return fail(
          'A group name is 1 to 64 letters, digits and . _ : @ -, starting with a letter or digit.',
          `/groups/${index}`,
        );
      }
    }
    spec.groups = [...new Set(groups as string[])];
  }
  return { ok: true, value: spec };
}

/** `limit` of an admin listing: 100 unless given, an integer from 1 to 1000, else a 400 saying so. */
function readPageLimit(params: URLSearchParams): number | Response {
  const limit = params.get('limit') === null ? 100 : Number(params.get('limit'));
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
    return invalidInput('"limit" must be an integer from 1 to 1000.');
  return limit;
}
