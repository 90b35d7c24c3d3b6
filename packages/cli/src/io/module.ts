/**
 * Loads a user's module by path: JavaScript as it is, TypeScript through tsx, so `agentry host agents.ts` works
 * without a build step. Errors say which file and why.
 */
import { existsSync } from 'node:fs';
import { extname, resolve as resolvePath } from 'node:path';
import { pathToFileURL } from 'node:url';
import { UsageError } from './errors.js';

const TYPESCRIPT = new Set(['.ts', '.mts', '.cts', '.tsx']);

export async function loadModule(path: string): Promise<Record<string, unknown>> {
  const absolute = resolvePath(path);
  if (!existsSync(absolute)) throw new UsageError(`no such module: ${path}`);
  const url = pathToFileURL(absolute).href;
  try {
    if (TYPESCRIPT.has(extname(absolute))) {
      const { tsImport } = await import('tsx/esm/api');
      return (await tsImport(url, import.meta.url)) as Record<string, unknown>;
    }
    return (await import(url)) as Record<string, unknown>;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new UsageError(`could not load ${path}: ${reason}`);
  }
}
