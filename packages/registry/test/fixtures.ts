/** Test data and temp directories, without loading the registry (the store tests stay light). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh directory under the OS temp dir, and a function that removes it. */
export function tempDir(): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), 'agentry-registry-'));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** An AIDIP metadata document (§3.3's shape) with the fields a test cares about. */
export function aidipAgent(fields: {
  id?: string;
  name: string;
  description?: string;
  capabilities?: string[];
  tags?: string[];
  languages?: string[];
  status?: string;
  endpoint?: string;
}): Record<string, unknown> {
  const document: Record<string, unknown> = {
    name: fields.name,
    description: fields.description ?? `${fields.name}: an agent used in tests.`,
    endpoint: fields.endpoint ?? 'https://agents.example.com/invoke',
    operations: [
      {
        name: 'run',
        description: 'Runs the agent.',
        inputs: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
        outputs: { type: 'object', properties: { result: { type: 'string' } } },
      },
    ],
  };
  if (fields.id !== undefined) document['id'] = fields.id;
  if (fields.capabilities !== undefined) document['capabilities'] = fields.capabilities;
  if (fields.tags !== undefined) document['tags'] = fields.tags;
  if (fields.languages !== undefined) document['supported_languages'] = fields.languages;
  if (fields.status !== undefined) document['status'] = fields.status;
  return document;
}
