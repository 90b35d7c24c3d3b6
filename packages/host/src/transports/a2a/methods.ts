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

/** The A2A methods the host runs, by what it does for them. */
const ACTIONS: ReadonlyArray<readonly [keyof (typeof A2A_METHODS)[WireVersion], MethodAction]> = [
  ['send', 'send'],
  ['stream', 'stream'],
  ['get', 'get-task'],
  ['cancel', 'cancel-task'],
];

/** The methods A2A defines that the host refuses, by version and by the error that says so. */
const REFUSED: Readonly<Record<WireVersion, Readonly<Record<RefusedMethod, readonly string[]>>>> = {
  '1.0': {
    unsupported: ['ListTasks', 'SubscribeToTask'],
    'push-notifications': [
      'CreateTaskPushNotificationConfig',
      'GetTaskPushNotificationConfig',
      'ListTaskPushNotificationConfigs',
      'DeleteTaskPushNotificationConfig',
    ],
    'extended-card': ['GetExtendedAgentCard'],
  },
  '0.3': {
    unsupported: ['tasks/resubscribe'],
    'push-notifications': ['set', 'get', 'list', 'delete'].map(
      (verb) => `tasks/pushNotificationConfig/${verb}`,
    ),
    'extended-card': ['agent/getAuthenticatedExtendedCard'],
  },
};

const ROUTES: ReadonlyMap<string, MethodRoute> = new Map<string, MethodRoute>(
  (['1.0', '0.3'] as const).flatMap((version) => [
    ...ACTIONS.map(([method, action]): [string, MethodRoute] => [
      A2A_METHODS[version][method],
      { version, action },
    ]),
    ...Object.entries(REFUSED[version]).flatMap(([refused, methods]) =>
      methods.map((method): [string, MethodRoute] => [
        method,
        { version, refused: refused as RefusedMethod },
      ]),
    ),
  ]),
);

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
