// The tests' JavaScript mirror: packages/<pkg>/test/ transpiled into packages/<pkg>/dist-test/ (git-ignored), so
// that Node runs the tests without a TypeScript loader (see run-tests.mjs for why).
//
// - The mirror sits at the same depth as test/, so paths a test builds from its own location (../../../docs,
//   ../vectors/x.json, ../../shared) mean the same there.
// - Each .ts file becomes a .js file (esbuild strips the types; `npm run typecheck` checks them). Its relative
//   imports that land in packages/<pkg>/src/ are pointed at packages/<pkg>/dist/ (tsc's output of the same file),
//   and those that land in another package's test/ at that package's mirror.
// - Every other file, .ts sources included, is copied as is: fixtures and vectors are read from beside the test,
//   and some tests start a .ts child with `node --import tsx` by its path beside them.
// - A test whose imports reach TypeScript outside the packages (examples/, scripts/, bench/) is returned in
//   `needsTsx`, to run under tsx.
// Work is incremental: a file is transpiled or copied again only when its source is newer, and mirror files whose
// source is gone are removed.
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { transformSync } from 'esbuild';

const MIRROR = 'dist-test';
// Written into each mirror; a mirror made by another version of this transform is made again from scratch.
// Bump it whenever the transform's output changes.
const MIRROR_VERSION = '2: node20.10 target (keeps import attributes)';
const VERSION_FILE = '.mirror-version';
const SPECIFIER = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])(\.{1,2}\/[^'"]*)\2/g;

/** Mirrors every package's test/ and sorts `testFiles` (test/ paths) into those that run plain and under tsx. */
export function mirrorTests(root, testFiles) {
  const packagesDir = join(root, 'packages');
  const imports = new Map();
  for (const pkg of readdirSync(packagesDir)) {
    const testDir = join(packagesDir, pkg, 'test');
    if (!existsSync(testDir)) continue;
    const mirrorDir = join(packagesDir, pkg, MIRROR);
    const versionFile = join(mirrorDir, VERSION_FILE);
    if (
      existsSync(mirrorDir) &&
      (!existsSync(versionFile) || readFileSync(versionFile, 'utf8') !== MIRROR_VERSION)
    ) {
      rmSync(mirrorDir, { recursive: true, force: true });
    }
    const kept = new Set([versionFile]);
    syncDirectory(root, testDir, mirrorDir, kept, imports);
    if (!existsSync(versionFile)) writeFileSync(versionFile, MIRROR_VERSION);
    removeStale(mirrorDir, kept);
  }
  const plain = [];
  const needsTsx = [];
  const verdicts = new Map();
  for (const file of testFiles) {
    const mirrored = toMirror(root, file);
    if (mirrored === undefined || !existsSync(mirrored)) {
      throw new Error(`run-tests: ${relative(root, file)} is not a test under packages/<pkg>/test/`);
    }
    (reachesOutsideTypeScript(mirrored, imports, verdicts, new Set()) ? needsTsx : plain).push(mirrored);
  }
  return { plain, needsTsx };
}

function toMirror(root, file) {
  const rel = relative(join(root, 'packages'), file).split(sep);
  if (rel.length < 3 || rel[1] !== 'test') return undefined;
  const path = join(root, 'packages', rel[0], MIRROR, ...rel.slice(2));
  return path.endsWith('.ts') ? `${path.slice(0, -3)}.js` : path;
}

function syncDirectory(root, sourceDir, mirrorDir, kept, imports) {
  mkdirSync(mirrorDir, { recursive: true });
  kept.add(mirrorDir);
  for (const entry of readdirSync(sourceDir, { withFileTypes: true })) {
    const source = join(sourceDir, entry.name);
    const target = join(mirrorDir, entry.name);
    if (entry.isDirectory()) {
      syncDirectory(root, source, target, kept, imports);
      continue;
    }
    const sourceTime = statSync(source).mtimeMs;
    kept.add(target);
    if (!isFresh(target, sourceTime)) copyFileSync(source, target);
    if (!entry.name.endsWith('.ts') || entry.name.endsWith('.d.ts')) continue;
    const js = `${target.slice(0, -3)}.js`;
    kept.add(js);
    let code;
    if (isFresh(js, sourceTime)) {
      code = readFileSync(js, 'utf8');
    } else {
      code = transpile(root, source, readFileSync(source, 'utf8'));
      writeFileSync(js, code);
    }
    imports.set(js, relativeImports(js, code));
  }
}

function isFresh(target, sourceTime) {
  return existsSync(target) && statSync(target).mtimeMs >= sourceTime;
}

function transpile(root, source, text) {
  const { code } = transformSync(text, {
    loader: 'ts',
    format: 'esm',
    // 20.10, the oldest Node the packages support: with plain node20 esbuild drops import attributes
    // (`with { type: 'json' }`), which Node then requires.
    target: 'node20.10',
    sourcemap: 'inline',
    sourcefile: source,
  });
  const sourceDir = dirname(source);
  return code.replace(SPECIFIER, (match, lead, quote, specifier) => {
    const target = retarget(root, resolve(sourceDir, specifier));
    if (target === undefined) return match;
    let rewritten = relative(toMirrorDir(root, sourceDir), target).split(sep).join('/');
    if (!rewritten.startsWith('.')) rewritten = `./${rewritten}`;
    return `${lead}${quote}${rewritten}${quote}`;
  });
}

/** Where an import of `path` (resolved against the test's source) goes from the mirror, or undefined: unchanged. */
function retarget(root, path) {
  const rel = relative(join(root, 'packages'), path).split(sep);
  if (rel.length < 3 || rel[0] === '..') return undefined;
  if (rel[1] === 'src') return join(root, 'packages', rel[0], 'dist', ...rel.slice(2));
  if (rel[1] === 'test') return join(root, 'packages', rel[0], MIRROR, ...rel.slice(2));
  return undefined;
}

function toMirrorDir(root, sourceDir) {
  const rel = relative(join(root, 'packages'), sourceDir).split(sep);
  return join(root, 'packages', rel[0], MIRROR, ...rel.slice(2));
}

function relativeImports(file, code) {
  const out = [];
  for (const match of code.matchAll(SPECIFIER)) out.push(resolve(dirname(file), match[3]));
  return out;
}

/** True when `file` or a mirror file it imports imports a .js path that exists only as .ts (outside the packages). */
function reachesOutsideTypeScript(file, imports, verdicts, visiting) {
  const known = verdicts.get(file);
  if (known !== undefined) return known;
  if (visiting.has(file)) return false;
  visiting.add(file);
  let verdict = false;
  for (const target of imports.get(file) ?? []) {
    if (imports.has(target)) {
      if (reachesOutsideTypeScript(target, imports, verdicts, visiting)) verdict = true;
    } else if (target.endsWith('.js') && !existsSync(target) && existsSync(`${target.slice(0, -3)}.ts`)) {
      verdict = true;
    }
    if (verdict) break;
  }
  verdicts.set(file, verdict);
  return verdict;
}

function removeStale(dir, kept) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (!kept.has(path)) rmSync(path, { recursive: true, force: true });
    else if (entry.isDirectory()) removeStale(path, kept);
  }
}
