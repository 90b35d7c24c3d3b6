#!/usr/bin/env node
// Bundles the built CLI (packages/cli/dist/bin.js and what it imports) into packages/cli/dist/bundle/, which the
// `agentry` command (packages/cli/bin/agentry.js) runs. Why: Node 20's ESM loader resolves and reads each module
// file on its own, and the CLI's graph is over a thousand files (undici, ajv, kysely, the MCP SDK and our packages),
// so every command spent about a second of CPU loading before it did anything. One bundle (split at the commands'
// dynamic imports, so each command still loads only what it runs) starts in about a third of that.
//
// esbuild does the bundling. Left outside, loaded from node_modules as before:
// - native addons and what loads files beside itself: better-sqlite3, @agentry/embeddings (kernels, weights,
//   worker files), pg-native;
// - tsx, which registers loader hooks for agent modules written in TypeScript;
// - jsonc-parser, whose UMD build requires its parts by computed paths.
// Our packages' `import.meta.url` (the web page's assets, the demo's examples folder, createRequire) is rewritten
// to the URL of the file it was written in, relative to the bundle, so those paths mean what they meant in dist/.
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { build } from 'esbuild';

const root = resolve(import.meta.dirname, '..');
const outdir = join(root, 'packages/cli/dist/bundle');
const EXTERNAL = ['better-sqlite3', '@agentry/embeddings', 'pg-native', 'tsx', 'jsonc-parser'];

/** Our dist files' `import.meta.url`, as the URL of the file itself, computed from the bundle chunk's own URL. */
const ownFileUrls = {
  name: 'own-file-urls',
  setup(builder) {
    builder.onLoad({ filter: /[\\/]packages[\\/][^\\/]+[\\/]dist[\\/].*\.js$/ }, async (args) => {
      // The file is read once here and handed to esbuild whether it is rewritten or not.
      const contents = await readFile(args.path, 'utf8');
      if (!contents.includes('import.meta.url'))
        return { contents, loader: 'js', resolveDir: dirname(args.path) };
      const fromBundle = relative(outdir, args.path).split('\\').join('/');
      const own = `new URL(${JSON.stringify(fromBundle)}, import.meta.url).href`;
      return {
        contents: contents.replaceAll('import.meta.url', own),
        loader: 'js',
        resolveDir: dirname(args.path),
      };
    });
  },
};

const result = await build({
  absWorkingDir: root,
  entryPoints: { agentry: 'packages/cli/dist/bin.js' },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.10',
  external: EXTERNAL,
  // CommonJS dependencies inside an ES module bundle call `require` for Node's built-in modules.
  banner: {
    js: "import { createRequire as __agentryRequire } from 'node:module';\nconst require = __agentryRequire(import.meta.url);",
  },
  plugins: [ownFileUrls],
  logLevel: 'warning',
  legalComments: 'none',
  write: false,
});

// Each file is replaced whole (written beside, then renamed), and only when it changed, so that a command starting
// meanwhile (tests run while a build runs) reads either the old bundle or the new one. Chunks no build wrote for an
// hour are removed; younger ones may still be in use by a process started from an older bundle.
mkdirSync(outdir, { recursive: true });
const written = new Set();
for (const file of result.outputFiles) {
  written.add(file.path);
  if (existsSync(file.path) && Buffer.compare(readFileSync(file.path), file.contents) === 0) continue;
  const temporary = `${file.path}.${process.pid}.tmp`;
  writeFileSync(temporary, file.contents);
  renameSync(temporary, file.path);
}
const hourAgo = Date.now() - 60 * 60 * 1000;
for (const name of readdirSync(outdir)) {
  const path = join(outdir, name);
  if (!written.has(path) && statSync(path).mtimeMs < hourAgo) rmSync(path, { force: true });
}
