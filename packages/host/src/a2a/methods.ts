/**
 * The A2A JSON-RPC methods the host answers, in both wire versions it serves. A2A v1.0 (what `@a2a-js/sdk` 1.x
 * clients speak) names methods in PascalCase (`SendMessage`); v0.3 (the card's top-level `protocolVersion`, and the
 * SDK's compat layer) with slashes (`message/send`). The names do not overlap, so the method alone says which wire
 * shapes (dialect.ts) a request and its answer use.
 */
import { A2A_METHODS } from '@agentry/core';
import type { WireVersion } from './dialect.js';

/** What the host does for a method. */
export type MethodAction = 'send' | 'stream' | 'get-task' | 'cancel-task';

/** Methods A2A defines that the host does not offer, with the A2A error that says so. */
export type RefusedMethod = 'unsupported' | 'push-notifications' | 'extended-card';

export type MethodRoute =
  | { version: WireVersion; action: MethodAction }
  | { version: WireVersion; refused: RefusedMethod };

const ROUTES: ReadonlyMap<string, MethodRoute> = new Map<string, MethodRoute>([
  [A2A_METHODS['1.0'].send, { version: '1.0', action: 'send' }],
  [A2A_METHODS['1.0'].stream, { version: '1.0', action: 'stream' }],
  [A2A_METHODS['1.0'].get, { version: '1.0', action: 'get-task' }],
  [A2A_METHODS['1.0'].cancel, { version: '1.0', action: 'cancel-task' }],
  ['ListTasks', { version: '1.0', refused: 'unsupported' }],
  ['SubscribeToTask', { version: '1.0', refused: 'unsupported' }],
  ['CreateTaskPushNotificationConfig', { version: '1.0', refused: 'push-notifications' }],
  ['GetTaskPushNotificationConfig', { version: '1.0', refused: 'push-notifications' }],
  ['ListTaskPushNotificationConfigs', { version: '1.0', refused: 'push-notifications' }],
  ['DeleteTaskPushNotificationConfig', { version: '1.0', refused: 'push-notifications' }],
  ['GetExtendedAgentCard', { version: '1.0', refused: 'extended-card' }],
  [A2A_METHODS['0.3'].send, { version: '0.3', action: 'send' }],
  [A2A_METHODS['0.3'].stream, { version: '0.3', action: 'stream' }],
  [A2A_METHODS['0.3'].get, { version: '0.3', action: 'get-task' }],
  [A2A_METHODS['0.3'].cancel, { version: '0.3', action: 'cancel-task' }],
  ['tasks/resubscribe', { version: '0.3', refused: 'unsupported' }],
  ['tasks/pushNotificationConfig/set', { version: '0.3', refused: 'push-notifications' }],
  ['tasks/pushNotificationConfig/get', { version: '0.3', refused: 'push-notifications' }],
  ['tasks/pushNotificationConfig/list', { version: '0.3', refused: 'push-notifications' }],
  ['tasks/pushNotificationConfig/delete', { version: '0.3', refused: 'push-notifications' }],
  ['agent/getAuthenticatedExtendedCard', { version: '0.3', refused: 'extended-card' }],
]);

export function routeOf(method: string): MethodRoute | undefined {
  return ROUTES.get(method);
}

/** The `A2A-Version` request header (A2A v1.0 §3.6): absent means 0.3. */
export { A2A_VERSION_HEADER as VERSION_HEADER } from '@agentry/core';

/**
 * Whether an `A2A-Version` header names a version the endpoint serves (`1.0`, `1`, `0.3`, `0.3.0`): the major and
 * minor numbers are compared, as A2A says patch levels never change the wire.
 */
export function isServedVersion(header: string | null): boolean {
  if (header === null || header.trim() === '') return true;
  const match = /^(\d+)(?:\.(\d+))?(?:\.\d+)?$/.exec(header.trim());
  if (match === null) return false;
  const version = `${Number(match[1])}.${Number(match[2] ?? 0)}`;
  return version === '1.0' || version === '0.3';
}
