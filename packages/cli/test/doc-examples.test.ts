/**
 * The documentation's code examples compile against the packages as built: the `@example` of each entry point and
 * the TypeScript of the READMEs and docs/*.md, but for fences tagged `ts no-check` (scripts/doc-examples.ts). It reads the packages' declarations, so `npx tsc -b`
 * comes first, as for the other CLI tests.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkDocExamples, collectDocExamples, type DocExample } from '../../../scripts/doc-examples.js';

/** The entry points a reader starts from; each shows itself in use. */
const ENTRY_POINTS = [
  'readDocument',
  'readDocumentText',
  'convertDocument',
  'parseAgentUri',
  'resolve',
  'createResolver',
  'invoke',
  'invokeStream',
  'registerLocalAgent',
  'createSecureFetcher',
  'createRegistryClient',
  'AgentryError',
  'createEmbeddingProvider',
  'createUseLiteProvider',
  'createOpenAIEmbeddingProvider',
  'VectorMatrix',
  'defineAgent',
  'createHost',
  'serveNode',
  'createRegistry',
  'serveRegistry',
  'loadAgents',
  'createCrawler',
];

const READMES = [
  'README.md',
  'packages/core/README.md',
  'packages/client/README.md',
  'packages/host/README.md',
  'packages/embeddings/README.md',
  'packages/registry/README.md',
];

test('every entry point has a TypeScript @example in its doc comment', () => {
  const documented = new Set(collectDocExamples().map((example) => example.documents));
  assert.deepEqual(
    ENTRY_POINTS.filter((name) => !documented.has(name)),
    [],
  );
});

test('every library README has TypeScript examples', () => {
  const files = new Set(collectDocExamples().map((example) => example.file));
  assert.deepEqual(
    READMES.filter((file) => !files.has(file)),
    [],
  );
});

test('every example type-checks, and one that does not is reported where it is written', () => {
  // A wrong example checked in the same program shows the check sees errors and locates them in the docs.
  const wrong: DocExample = {
    file: 'packages/host/README.md',
    line: 1000,
    documents: undefined,
    code: "import { createHost } from '@agentry/host';\n\nconst host = createHost({ agents: [] });",
  };
  const errors = checkDocExamples([...collectDocExamples(), wrong]);
  const unbuilt = errors.some((error) => error.message.includes("Cannot find module '@agentry/"));
  assert.ok(!unbuilt, 'the packages are not built: run npx tsc -b first');
  const [wrongError, ...others] = errors.filter((error) => error.where === 'packages/host/README.md:1002');
  assert.match(wrongError?.message ?? '', /TS2345: .*baseUrl/s);
  assert.deepEqual(others, []);
  assert.deepEqual(
    errors.filter((error) => error.where !== 'packages/host/README.md:1002'),
    [],
  );
});
