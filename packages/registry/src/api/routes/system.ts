/** The registry about itself: health, metrics (admin: invocation series name agent ids) and its OpenAPI document. */

import type { Hono } from 'hono';
import { sql } from 'kysely';
import { EXPOSITION_CONTENT_TYPE } from '../../metrics/index.js';
import type { ApiEnv, RegistryServices } from '../context.js';
import { requireAdmin } from '../guards.js';
import { problem } from '../problems.js';
import { jsonResponse } from '../respond.js';

export function systemRoutes(app: Hono<ApiEnv>, services: RegistryServices): void {
  const { store, metrics, settings } = services;

  app.get('/healthz', async () => {
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
  });

  app.get('/metrics', async (c) => {
    const refusal = requireAdmin(c.get('caller'));
    if (refusal !== undefined) return refusal;
    return new Response(await metrics.render(), {
      headers: { 'content-type': EXPOSITION_CONTENT_TYPE, 'cache-control': 'no-store' },
    });
  });

  app.get('/openapi.json', (c) => {
    return new Response(JSON.stringify(services.openApi(c.get('baseUrl'))), {
      headers: { 'content-type': 'application/json', 'cache-control': 'public, max-age=300' },
    });
  });
}
