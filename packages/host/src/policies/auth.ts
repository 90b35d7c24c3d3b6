/**
 * Who is calling, and may they run this operation (AWP `auth`, `auth_required`, `auth.required_for`; agent:// §10:
 * API keys in `X-API-Key`, OAuth2/JWT bearer tokens; WoA `authz`).
 *
 * Contract:
 * - Credentials: an API key in `apiKeyHeader` (default `X-API-Key`) when `apiKeys` are configured, a bearer JWT in
 *   `Authorization: Bearer …` when `jwt` is. Credentials in a scheme the host does not accept are not ours to
 *   judge (they may be meant for a proxy) and are ignored. Sending both accepted kinds at once is a 400: the
 *   host will not guess which identity the caller meant.
 * - An operation needs credentials when `scopes` in the config names it; else when its `authRequired` says so
 *   (`false` is an explicit "public"); else when the agent's `auth.optionalFor` / `requiredFor` lists it; else
 *   when its security requirements (the operation's, else the agent's) are non-empty and none is the empty,
 *   anonymous alternative `{}`.
 * - Credentials that are present but wrong (unknown key, bad signature, expired, wrong issuer or audience) are a
 *   401 even on public operations. A caller that sends credentials means to act as someone; serving it
 *   anonymously would hide an expired or mistyped credential until a protected call fails, and would quietly
 *   give it another identity's quota and idempotency scope. RFC 6750 §3.1 answers invalid tokens this way.
 * - Scopes: the config's scopes for the operation are all required, plus one of its security requirement
 *   alternatives. An alternative naming only schemes this host issues (`apiKey`, `bearer`) applies only to
 *   credentials of that kind; one naming any other scheme id (`oauth2`, …) applies to any credential. Missing
 *   scopes are a 403 listing them (`missingScopes`); a credential of the wrong kind is a 401 naming the right one.
 * - 401 carries `WWW-Authenticate`: a Bearer challenge (RFC 6750: realm, and error/error_description for a bad
 *   token) when JWTs are accepted, an `ApiKey realm=…, header=…` challenge when API keys are. A key set that
 *   cannot be fetched is a 503: the caller's token is not at fault.
 * - API keys are compared in constant time (api-keys.ts).
 */
import type { Agent, Operation, SecurityRequirement, SecurityScheme } from '@agentry/core';
import type { JSONWebKeySet } from 'jose';
import type { Problem } from '../errors.js';
import { type ApiKeyClient, createApiKeyLookup } from './api-keys.js';
import { apiKeyChallenge, type BearerError, bearerChallenge } from './auth-challenge.js';
import { type BearerVerifier, createBearerVerifier } from './bearer.js';
import { policyProblem } from './problems.js';

export interface AuthConfig {
  /** Key value → the client it identifies. */
  apiKeys?: Record<string, ApiKeyClient>;
  /** Default `X-API-Key`. */
  apiKeyHeader?: string;
  jwt?: {
    secret?: string;
    jwksUrl?: string;
    jwks?: JSONWebKeySet;
    issuer?: string;
    audience?: string;
    algorithms?: string[];
    /** Leeway for `exp` and `nbf`, in seconds (default 0). */
    clockToleranceSeconds?: number;
  };
  /** The protection space named in challenges (default `agentry`). */
  realm?: string;
  /** Scopes required per operation name, beside the operation's own `security` requirements. */
  scopes?: Record<string, string[]>;
}

export interface Principal {
  clientId: string;
  scopes: string[];
  via: 'api-key' | 'bearer';
  /** The bearer token's claims. */
  claims?: Record<string, unknown>;
}

export type AuthDecision =
  | { ok: true; principal: Principal | undefined }
  | { ok: false; problem: Problem; headers: Headers };

export interface Authenticator {
  /**
   * Checks the credentials the request carries (if any) and whether `operation` may run for them. `agent` lets
   * its `auth` contract (`requiredFor`, `optionalFor`, `security`) count where the operation says nothing.
   */
  authorize(headers: Headers, operation: Operation, agent?: Agent): Promise<AuthDecision>;
  /** Whether `operation` can only run with credentials. */
  needsAuth(operation: Operation, agent?: Agent): boolean;
  /** The security schemes to advertise in documents: an API-key header scheme and/or an HTTP bearer JWT scheme. */
  schemes(): SecurityScheme[];
}

/** The ids of the schemes `schemes()` advertises; security requirements name them. */
export const API_KEY_SCHEME_ID = 'apiKey';
export const BEARER_SCHEME_ID = 'bearer';

const DEFAULT_API_KEY_HEADER = 'X-API-Key';
const DEFAULT_REALM = 'agentry';

type Presented = { kind: 'none' } | { kind: 'api-key'; key: string } | { kind: 'bearer'; token: string };

export function createAuthenticator(config: AuthConfig): Authenticator {
  const realm = config.realm ?? DEFAULT_REALM;
  const apiKeyHeader = config.apiKeyHeader ?? DEFAULT_API_KEY_HEADER;
  const lookupKey = config.apiKeys === undefined ? undefined : createApiKeyLookup(config.apiKeys);
  const verifyBearer: BearerVerifier | undefined =
    config.jwt === undefined ? undefined : createBearerVerifier(config.jwt);

  const challenges = (
    bearer: { error?: BearerError; description?: string; scopes?: string[] } = {},
  ): Headers => {
    const headers = new Headers();
    // With no scheme configured nobody can authenticate; the Bearer challenge still tells the caller what failed.
    if (verifyBearer !== undefined || lookupKey === undefined) {
      headers.append('WWW-Authenticate', bearerChallenge({ realm, ...bearer }));
    }
    if (lookupKey !== undefined) headers.append('WWW-Authenticate', apiKeyChallenge(realm, apiKeyHeader));
    return headers;
  };

  const unauthorized = (
    code: string,
    detail: string,
    bearer: { error?: BearerError; description?: string; scopes?: string[] } = {},
  ): AuthDecision => ({
    ok: false,
    problem: policyProblem({ status: 401, title: 'Unauthorized', code, detail }),
    headers: challenges(bearer),
  });

  const accepted = (): string => {
    const ways: string[] = [];
    if (verifyBearer !== undefined) ways.push('a bearer token ("Authorization: Bearer <token>")');
    if (lookupKey !== undefined) ways.push(`an API key in the "${apiKeyHeader}" header`);
    return ways.length === 0 ? 'credentials, but this host accepts none' : ways.join(' or ');
  };

  const presentedIn = (headers: Headers): Presented | 'both' => {
    const key = lookupKey === undefined ? '' : (headers.get(apiKeyHeader)?.trim() ?? '');
    const authorization = verifyBearer === undefined ? null : headers.get('Authorization');
    const bearer = authorization === null ? undefined : /^Bearer(?:\s+(.*))?$/i.exec(authorization.trim());
    if (key !== '' && bearer !== undefined && bearer !== null) return 'both';
    if (key !== '') return { kind: 'api-key', key };
    if (bearer !== undefined && bearer !== null) return { kind: 'bearer', token: bearer[1]?.trim() ?? '' };
    return { kind: 'none' };
  };

  const authenticate = async (presented: Presented): Promise<AuthDecision> => {
    if (presented.kind === 'none') return { ok: true, principal: undefined };
    if (presented.kind === 'api-key') {
      const client = lookupKey!(presented.key);
      if (client === undefined) {
        return unauthorized('InvalidApiKey', `The API key in the "${apiKeyHeader}" header is not valid.`);
      }
      return {
        ok: true,
        principal: { clientId: client.clientId, scopes: [...(client.scopes ?? [])], via: 'api-key' },
      };
    }
    const result = await verifyBearer!(presented.token);
    if (result.ok) {
      const { clientId, scopes, claims } = result.bearer;
      return { ok: true, principal: { clientId, scopes, via: 'bearer', claims } };
    }
    if (result.failure === 'unavailable') {
      return {
        ok: false,
        problem: policyProblem({
          status: 503,
          title: 'Service Unavailable',
          code: 'AuthUnavailable',
          detail: `${result.description}, so no bearer token can be checked now. Retry later.`,
        }),
        headers: new Headers({ 'Retry-After': '30' }),
      };
    }
    const expired = result.failure === 'expired';
    return unauthorized(
      expired ? 'TokenExpired' : 'InvalidToken',
      `${result.description}. Send a valid, unexpired bearer token.`,
      { error: 'invalid_token', description: result.description },
    );
  };

  const needsAuth = (operation: Operation, agent?: Agent): boolean => {
    if (config.scopes !== undefined && Object.hasOwn(config.scopes, operation.name)) return true;
    if (operation.authRequired !== undefined) return operation.authRequired;
    if (agent?.auth?.optionalFor?.includes(operation.name)) return false;
    if (agent?.auth?.requiredFor?.includes(operation.name)) return true;
    const requirements = requirementsOf(operation, agent);
    return (
      requirements.length > 0 && requirements.every((requirement) => Object.keys(requirement).length > 0)
    );
  };

  return {
    needsAuth,

    async authorize(headers, operation, agent) {
      const presented = presentedIn(headers);
      if (presented === 'both') {
        return {
          ok: false,
          problem: policyProblem({
            status: 400,
            title: 'Bad Request',
            code: 'InvalidRequest',
            detail: `The request carries both an API key ("${apiKeyHeader}") and a bearer token; send one of them.`,
          }),
          headers: challenges({ error: 'invalid_request', description: 'Send one credential, not two' }),
        };
      }
      const identified = await authenticate(presented);
      if (!identified.ok || !needsAuth(operation, agent)) return identified;
      const principal = identified.principal;
      const required = config.scopes?.[operation.name] ?? [];
      if (principal === undefined) {
        return unauthorized(
          'AuthRequired',
          `Operation "${operation.name}" needs credentials: send ${accepted()}.`,
          required.length > 0 ? { scopes: required } : {},
        );
      }
      const verdict = scopeVerdict(principal, required, requirementsOf(operation, agent));
      if (verdict.kind === 'ok') return identified;
      if (verdict.kind === 'wrong-scheme') {
        return unauthorized(
          'AuthRequired',
          `Operation "${operation.name}" does not accept ${principal.via === 'bearer' ? 'bearer tokens' : 'API keys'}: send ${verdict.schemes.map(describeScheme).join(' or ')}.`,
        );
      }
      const forbiddenHeaders = new Headers();
      if (principal.via === 'bearer') {
        forbiddenHeaders.set(
          'WWW-Authenticate',
          bearerChallenge({ realm, error: 'insufficient_scope', scopes: verdict.required }),
        );
      }
      return {
        ok: false,
        problem: policyProblem({
          status: 403,
          title: 'Forbidden',
          code: 'InsufficientScope',
          detail: `Operation "${operation.name}" needs the scope${verdict.missing.length === 1 ? '' : 's'} ${verdict.missing.join(', ')}, which client "${principal.clientId}" does not have.`,
          extensions: { missingScopes: verdict.missing, requiredScopes: verdict.required },
        }),
        headers: forbiddenHeaders,
      };
    },

    schemes() {
      const schemes: SecurityScheme[] = [];
      if (lookupKey !== undefined) {
        schemes.push({
          id: API_KEY_SCHEME_ID,
          type: 'apiKey',
          in: 'header',
          name: apiKeyHeader,
          description: `An API key issued by the host, in the ${apiKeyHeader} header.`,
        });
      }
      if (verifyBearer !== undefined) {
        schemes.push({
          id: BEARER_SCHEME_ID,
          type: 'bearer',
          bearerFormat: 'JWT',
          description: 'A JWT bearer token in the Authorization header.',
        });
      }
      return schemes;
    },
  };
}

type ScopeVerdict =
  | { kind: 'ok' }
  | { kind: 'missing'; missing: string[]; required: string[] }
  | { kind: 'wrong-scheme'; schemes: string[] };

const OWN_SCHEMES: Readonly<Record<Principal['via'], string>> = {
  'api-key': API_KEY_SCHEME_ID,
  bearer: BEARER_SCHEME_ID,
};

function scopeVerdict(
  principal: Principal,
  configured: readonly string[],
  requirements: readonly SecurityRequirement[],
): ScopeVerdict {
  const held = new Set(principal.scopes);
  const alternatives = requirements.length === 0 ? [{}] : requirements;
  const applicable = alternatives.filter((requirement) => appliesTo(requirement, principal.via));
  if (applicable.length === 0) {
    return { kind: 'wrong-scheme', schemes: [...new Set(alternatives.flatMap((r) => Object.keys(r)))] };
  }
  let best: { missing: string[]; required: string[] } | undefined;
  for (const requirement of applicable) {
    const required = [...new Set([...configured, ...Object.values(requirement).flat()])];
    const missing = required.filter((scope) => !held.has(scope));
    if (missing.length === 0) return { kind: 'ok' };
    if (best === undefined || missing.length < best.missing.length) best = { missing, required };
  }
  return { kind: 'missing', ...best! };
}

/** A requirement naming only our own schemes binds the credential kind; any foreign scheme id leaves it open. */
function appliesTo(requirement: SecurityRequirement, via: Principal['via']): boolean {
  const ids = Object.keys(requirement);
  const own = Object.values(OWN_SCHEMES);
  if (ids.length === 0 || ids.some((id) => !own.includes(id))) return true;
  return ids.includes(OWN_SCHEMES[via]);
}

function requirementsOf(operation: Operation, agent: Agent | undefined): SecurityRequirement[] {
  return operation.security ?? agent?.auth?.security ?? [];
}

function describeScheme(id: string): string {
  if (id === API_KEY_SCHEME_ID) return 'an API key';
  if (id === BEARER_SCHEME_ID) return 'a bearer token';
  return `credentials for "${id}"`;
}
