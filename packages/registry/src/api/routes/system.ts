/**
 * The registry about itself: liveness (`/healthz`), readiness (`/readyz`: whether it should be sent traffic — the
 * database answers and it is not shutting down), metrics (admin: invocation series name agent ids) and its
 * OpenAPI document.
 */

import { sql } from 'kysely';
import { EXPOSITION_CONTENT_TYPE } from '../../metrics/index.js';
import type { RegistryServices, RouteHandlers } from '../context.js';
import { problem } from '../problems.js';
import { jsonResponse } from '../respond.js';

/** How long `/readyz` waits for the database's trivial query before calling it unreachable. */
export const READINESS_TIMEOUT_MS = 1000;

/**
 * The registries that are shutting down, by their services: they answer `/readyz` 503 from then on, so a load
 * balancer drains them while their in-flight requests finish. Kept here rather than on the services because only
 * readiness reads it.
 */
const shuttingDown = new WeakSet<RegistryServices>();

/** Marks the registry of `services` as shutting down: `/readyz` answers 503 from now on (there is no way back). */
export function markShuttingDown(services: RegistryServices): void {
  shuttingDown.add(services);
}

export function systemHandlers(
  services: RegistryServices,
): RouteHandlers<'health' | 'ready' | 'metrics' | 'getOpenApi'> {
  const { store, metrics, settings } = services;

  return {
    health: async () => {
      try {
        await sql`select 1`.execute(store.db);
      } catch {
        return problem({
          status: 503,
          code: 'InternalError',
          title: 'Unhealthy',
          detail: 'The database does not answer.',
        });
      }
      return jsonResponse({ status: 'ok', version: settings.version });
    },

    ready: async () => {
      const notReady = (detail: string, reason: string) =>
        problem({
          status: 503,
          code: 'InternalError',
          title: 'Not ready',
          detail,
          extensions: { reason },
        });
      if (shuttingDown.has(services)) return notReady('The registry is shutting down.', 'shutting-down');
      const database = await databaseAnswers(store.db, READINESS_TIMEOUT_MS);
      if (database !== 'ok') {
        return notReady(
          database === 'timeout'
            ? `The database did not answer within ${READINESS_TIMEOUT_MS} ms.`
            : 'The database is unreachable.',
          'database-unreachable',
        );
      }
      return jsonResponse({ status: 'ready', database: 'ok', version: settings.version }, 200, {
        'cache-control': 'no-store',
      });
    },

    metrics: async () => {
      return new Response(await metrics.render(), {
        headers: { 'content-type': EXPOSITION_CONTENT_TYPE, 'cache-control': 'no-store' },
      });
    },

    getOpenApi: (c) => {
      return new Response(JSON.stringify(services.openApi(c.get('baseUrl'))), {
        headers: { 'content-type': 'application/json', 'cache-control': 'public, max-age=300' },
      });
    },
  };
}

/** Whether a trivial query answers within `timeoutMs`: `ok`, `timeout`, or `failed` (closed, unreachable). */
async function databaseAnswers(
  db: RegistryServices['store']['db'],
  timeoutMs: number,
): Promise<'ok' | 'timeout' | 'failed'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  try {
    return await Promise.race([
      sql`select 1`.execute(db).then(
        () => 'ok' as const,
        () => 'failed' as const,
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
