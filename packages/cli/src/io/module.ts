/**
 * Loads a user's module by path: JavaScript as it is, TypeScript through tsx, so `agentry host agents.ts` works
 * without a build step. Errors say which file and why.
 *
 * tsx is registered once for the process, not per module (tsImport's namespaces): a namespace loads its own copy
 * of every package the module imports, so each agent file loaded again @agentry/core and compiled its JSON
 * Schemas again (`serve --demo`'s three agents spent over a second of CPU on copies), and values crossed between
 * two copies of one package.
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
    if (TYPESCRIPT.has(extname(absolute))) await registerTypeScript();
    return (await import(url)) as Record<string, unknown>;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new UsageError(`could not load ${path}: ${reason}`);
  }
}

let typeScriptRegistered: Promise<void> | undefined;
function registerTypeScript(): Promise<void> {
  typeScriptRegistered ??= import('tsx/esm/api').then(({ register }) => {
    register();
  });
  return typeScriptRegistered;
}
