/**
 * The registry's web app (`/`, its pages under `/app/`, and its scripts and stylesheet under `/ui/`): static files
 * shipped in the package's `ui/` folder, read once at start, served with a strict Content-Security-Policy (the app
 * shows untrusted agent text; nothing but our own script may run). Every `/app/...` path answers the same page,
 * whose script draws the view the path names (an agent at `/app/agents/<id>`, resolution, the operator console),
 * so such a URL can be shared and reloaded.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import type { RouteHandler, RouteHandlers } from '../context.js';

interface StaticFile {
  body: string;
  type: string;
  etag: string;
}

const TYPES: Readonly<Record<string, string>> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
};

const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

function loadFiles(): Map<string, StaticFile> {
  // dist/api/routes/ui.js (and src/api/routes/ui.ts under tsx) → the package's ui/ folder.
  const folder = new URL('../../../ui/', import.meta.url);
  const files = new Map<string, StaticFile>();
  for (const name of readdirSync(folder)) {
    const type = TYPES[name.slice(name.lastIndexOf('.') + 1)];
    if (type === undefined) continue;
    const body = readFileSync(new URL(name, folder), 'utf8');
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
    files.set(name, { body, type, etag });
  }
  return files;
}

export function uiHandlers(): RouteHandlers<'appHome' | 'appPage' | 'appView' | 'appAsset'> {
  const files = loadFiles();
  const serve = (name: string, ifNoneMatch: string | undefined): Response => {
    const file = files.get(name)!;
    const headers = {
      ...SECURITY_HEADERS,
      etag: file.etag,
      'cache-control': 'no-cache',
      'content-type': file.type,
    };
    if (ifNoneMatch === file.etag) return new Response(null, { status: 304, headers });
    return new Response(file.body, { headers });
  };
  const page: RouteHandler = (c) => serve('index.html', c.req.header('if-none-match'));
  return {
    appHome: page,
    appPage: page,
    appView: page,
    appAsset: (c) => {
      const name = c.req.param('file');
      if (!files.has(name)) return c.notFound();
      return serve(name, c.req.header('if-none-match'));
    },
  };
}
