/** Shared by the store and API tests: temp databases, a registry on loopback, requests, and the shared corpora. */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { createRegistry, type Registry, type RegistryOptions, serveRegistry } from '../src/index.js';
import { leasePostgresDatabase } from './db/postgres-pool.js';
import { tempDir } from './fixtures.js';
import { assertDocumented } from './openapi-conformance.js';
import { testDialect } from './test-dialect.js';

export { aidipAgent, tempDir } from './fixtures.js';

const here = dirname(fileURLToPath(import.meta.url));
export const repoRoot = resolve(here, '../../..');
export const sharedDir = resolve(repoRoot, '../shared');

export function readJsonFile(...parts: string[]): unknown {
  return JSON.parse(readFileSync(join(...parts), 'utf8'));
}

export function readShared(...parts: string[]): unknown {
  return readJsonFile(sharedDir, ...parts);
}

export function readExample(name: string): unknown {
  return readJsonFile(repoRoot, 'examples', 'documents', name);
}

export const silentLogger = pino({ level: 'silent' });

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed as JSON; undefined when it is empty or not JSON. */
  json: unknown;
}

export interface RequestInit {
  method?: string;
  token?: string;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as is. */
  raw?: string | Uint8Array;
  headers?: Record<string, string>;
}

export interface TestRegistry {
  registry: Registry;
  url: string;
  dbPath: string;
  admin: string;
  request(path: string, init?: RequestInit): Promise<Answer>;
  /** A new token of `role` (made by the admin). */
  token(
    role: 'publisher' | 'client',
    spec?: { publisher?: string; groups?: string[] },
  ): Promise<{ id: string; token: string }>;
  close(): Promise<void>;
}

export async function startRegistry(
  options: Partial<RegistryOptions> = {},
  dir = tempDir(),
): Promise<TestRegistry> {
  // On PostgreSQL (test-dialect.ts) a registry of its own gets an empty database, given back when it closes.
  const postgres =
    options.databasePath === undefined && testDialect() === 'postgres'
      ? await leasePostgresDatabase()
      : undefined;
  const dbPath = options.databasePath ?? postgres?.url ?? join(dir.path, 'registry.db');
  let registry: Registry;
  try {
    registry = await createRegistry({
      embeddings: 'none',
      logger: silentLogger,
      adminToken: 'test-admin-token',
      ...options,
      databasePath: dbPath,
    });
  } catch (error) {
    postgres?.release();
    throw error;
  }
  const served = await serveRegistry(registry);
  const admin = options.adminToken ?? 'test-admin-token';
  const request = async (path: string, init: RequestInit = {}): Promise<Answer> => {
    const answer = await send(served.url, path, init);
    assertDocumented(methodOf(init), path, answer);
    return answer;
  };
  return {
    registry,
    url: served.url,
    dbPath,
    admin,
    request,
    async token(role, spec = {}) {
      const answer = await request('/admin/tokens', {
        method: 'POST',
        token: admin,
        body: { role, ...spec },
      });
      if (answer.status !== 201) throw new Error(`token: ${answer.status} ${answer.text}`);
      const body = answer.json as { id: string; token: string };
      return { id: body.id, token: body.token };
    },
    async close() {
      await served.close();
      await registry.close();
      postgres?.release();
      dir.remove();
    },
  };
}

export async function send(baseUrl: string, path: string, init: RequestInit = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.token !== undefined) headers['authorization'] = `Bearer ${init.token}`;
  let body: string | Uint8Array | undefined = init.raw;
  if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${baseUrl}${path}`, {
    method: methodOf(init),
    headers,
    ...(body === undefined ? {} : { body }),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

function methodOf(init: RequestInit): string {
  return init.method ?? (init.body === undefined && init.raw === undefined ? 'GET' : 'POST');
}

export function asObject(value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`expected an object, got ${JSON.stringify(value)}`);
  }
  return value as Record<string, unknown>;
}

export function asArray(value: unknown): Array<Record<string, unknown>> {
  if (!Array.isArray(value)) throw new Error(`expected an array, got ${JSON.stringify(value)}`);
  return value as Array<Record<string, unknown>>;
}
