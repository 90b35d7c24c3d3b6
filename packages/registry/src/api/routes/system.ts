/** The registry about itself: health, metrics (admin: invocation series name agent ids) and its OpenAPI document. */

import { sql } from 'kysely';
import { EXPOSITION_CONTENT_TYPE } from '../../metrics/index.js';
import type { RegistryServices, RouteHandlers } from '../context.js';
import { problem } from '../problems.js';
import { jsonResponse } from '../respond.js';

export function systemHandlers(
  services: RegistryServices,
): RouteHandlers<'health' | 'metrics' | 'getOpenApi'> {
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
