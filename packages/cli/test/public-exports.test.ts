/**
 * Every entry of every library package exports exactly the names pinned in vectors/public-exports.json: types and
 * values, read from the built declarations an entry's package.json `exports` name (as TypeScript reads them for a
 * user), and the values again from the module itself (as Node loads it). A name that appears is a decision to
 * publish it, so an internal leaking back into an entry fails here; a name that disappears breaks users.
 * After a deliberate change: `PUBLIC_EXPORTS_WRITE=1 node scripts/run-tests.mjs packages/cli/test/public-exports.test.ts`
 * rewrites the file (then `npx biome check --write` it), whose diff is the change to review. `npx tsc -b` comes first,
 * as for the other CLI tests.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
// From the repository's root, not from beside this file: run-tests.mjs runs a copy of it (and of vectors/) in dist-test/.
const vectorsFile = join(repoRoot, 'packages', 'cli', 'test', 'vectors', 'public-exports.json');
const LIBRARY_PACKAGES = ['core', 'client', 'host', 'embeddings', 'registry'];

interface Entry {
  /** As a user imports it: `@agentry/host/node`. */
  specifier: string;
  /** The built declarations the `types` condition names. */
  declarations: string;
}

function entries(): Entry[] {
  const found: Entry[] = [];
  for (const pkg of LIBRARY_PACKAGES) {
    const dir = join(repoRoot, 'packages', pkg);
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      name: string;
      exports: Record<string, string | { types?: string; default?: string }>;
    };
    for (const [subpath, target] of Object.entries(manifest.exports)) {
      if (typeof target === 'string') continue; // ./package.json
      assert.ok(target.types !== undefined && target.default !== undefined, `${manifest.name} ${subpath}`);
      found.push({
        specifier: subpath === '.' ? manifest.name : `${manifest.name}/${subpath.slice(2)}`,
        declarations: join(dir, target.types),
      });
    }
  }
  return found;
}

/** Every name an entry's declarations export, types included, sorted. */
function declaredNames(list: readonly Entry[]): Record<string, string[]> {
  const program = ts.createProgram(
    list.map((entry) => entry.declarations),
    { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, noEmit: true },
  );
  const checker = program.getTypeChecker();
  const names: Record<string, string[]> = {};
  for (const entry of list) {
    const source = program.getSourceFile(entry.declarations);
    assert.ok(source !== undefined, `${entry.declarations} is built (npx tsc -b)`);
    const module = checker.getSymbolAtLocation(source);
    assert.ok(module !== undefined, `${entry.declarations} is a module`);
    names[entry.specifier] = checker
      .getExportsOfModule(module)
      .map((symbol) => symbol.name)
      .sort();
  }
  return names;
}

test("every entry's names are the ones pinned", async () => {
  const list = entries();
  const actual = declaredNames(list);
  if (process.env['PUBLIC_EXPORTS_WRITE'] === '1') {
    writeFileSync(vectorsFile, `${JSON.stringify(actual, null, 2)}\n`);
  }
  const pinned = JSON.parse(readFileSync(vectorsFile, 'utf8')) as Record<string, string[]>;
  assert.deepEqual(Object.keys(actual).sort(), Object.keys(pinned).sort(), 'the entries');
  for (const [specifier, names] of Object.entries(actual)) {
    const expected = new Set(pinned[specifier]);
    const added = names.filter((name) => !expected.has(name));
    const removed = [...expected].filter((name) => !names.includes(name));
    assert.deepEqual(
      { added, removed },
      { added: [], removed: [] },
      `${specifier}: names added to or removed from the entry (if deliberate, see this file's header)`,
    );
  }
  // The values Node loads are among the names declared (a value without a declaration would escape the pin).
  for (const { specifier } of list) {
    const loaded = Object.keys((await import(specifier)) as object);
    const declared = new Set(actual[specifier]);
    assert.deepEqual(
      loaded.filter((name) => !declared.has(name)),
      [],
      `${specifier}: values loaded that no declaration names`,
    );
  }
});

test('the pins hold every entry of the packages, and no entry exports nothing', () => {
  const pinned = JSON.parse(readFileSync(vectorsFile, 'utf8')) as Record<string, string[]>;
  for (const specifier of [
    '@agentry/host/node',
    '@agentry/host/express',
    '@agentry/host/hono',
    '@agentry/registry/crawler',
  ]) {
    assert.ok((pinned[specifier]?.length ?? 0) > 0, `${specifier} is pinned`);
  }
  for (const [specifier, names] of Object.entries(pinned)) assert.ok(names.length > 0, specifier);
});
