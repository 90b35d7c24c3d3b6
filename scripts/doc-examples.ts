/**
 * The code examples of the documentation, type-checked so that they cannot drift from the code: every ```ts fence
 * in an `@example` of the packages' sources, and every ```ts fence of the READMEs (the root one and each package's)
 * and of the user guide (docs/*.md).
 * Each example is compiled as a module of its own, beside the file it comes from (so `@agentry/*`, `zod` and the
 * rest resolve as they would for a reader there), in one TypeScript program against the packages' built
 * declarations (`npx tsc -b` first). A fence tagged ```ts no-check is left out (a fragment, shown for its shape).
 *
 *   node --import tsx scripts/doc-examples.ts    # lists every example and any type error, exit 1 on an error
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..');

const LIBRARY_PACKAGES = ['core', 'client', 'host', 'embeddings', 'registry'];
/** The Markdown whose ```ts fences are checked: the READMEs and the user guide. */
function markdownFiles(): string[] {
  const guide = readdirSync(join(repoRoot, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return [
    'README.md',
    ...['core', 'client', 'host', 'embeddings', 'registry', 'cli'].map((p) => `packages/${p}/README.md`),
    ...guide,
  ];
}

export interface DocExample {
  /** The file it is written in, relative to the repository. */
  file: string;
  /** The line of that file where the example's code starts (1-based). */
  line: number;
  /** For an `@example` in a source file: the declaration it documents (`createHost`); else undefined. */
  documents: string | undefined;
  code: string;
}

export interface ExampleError {
  /** `file:line` in the documentation where the error is. */
  where: string;
  message: string;
}

/** Every example of the sources' doc comments, the READMEs and docs/*.md. */
export function collectDocExamples(): DocExample[] {
  const examples: DocExample[] = [];
  for (const pkg of LIBRARY_PACKAGES) {
    for (const file of sourceFiles(join(repoRoot, 'packages', pkg, 'src'))) {
      examples.push(...sourceExamples(relative(repoRoot, file), readFileSync(file, 'utf8')));
    }
  }
  for (const file of markdownFiles()) {
    let text: string;
    try {
      text = readFileSync(join(repoRoot, file), 'utf8');
    } catch {
      continue;
    }
    for (const fence of fences(text.split('\n'))) {
      examples.push({ file, line: fence.line, documents: undefined, code: fence.code });
    }
  }
  return examples;
}

/** Type-checks every example in one program; returns the errors, located in the documentation. */
export function checkDocExamples(examples: readonly DocExample[]): ExampleError[] {
  const base = ts.getParsedCommandLineOfConfigFile(
    join(repoRoot, 'tsconfig.base.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  if (base === undefined) throw new Error('tsconfig.base.json could not be read');
  const options: ts.CompilerOptions = {
    ...base.options,
    noEmit: true,
    composite: false,
    declaration: false,
    declarationMap: false,
    sourceMap: false,
    // An example names what it needs and leaves some of it unused, as a reader's first program does.
    noUnusedLocals: false,
    noUnusedParameters: false,
  };
  // Each example is a virtual module beside the file it comes from: `<dir>/__doc_example_<n>.ts`.
  const virtual = new Map<string, { example: DocExample; text: string }>();
  examples.forEach((example, index) => {
    const path = join(repoRoot, dirname(example.file), `__doc_example_${index}.ts`);
    // `export {}` makes every example a module, so top-level await and local names of the same spelling are fine.
    virtual.set(path, { example, text: `${example.code}\nexport {};\n` });
  });
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    const entry = virtual.get(fileName);
    if (entry !== undefined) return ts.createSourceFile(fileName, entry.text, languageVersion, true);
    return getSourceFile(fileName, languageVersion, onError, shouldCreate);
  };
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (fileName) => virtual.has(fileName) || fileExists(fileName);
  const readFile = host.readFile.bind(host);
  host.readFile = (fileName) => virtual.get(fileName)?.text ?? readFile(fileName);

  const program = ts.createProgram({ rootNames: [...virtual.keys()], options, host });
  const errors: ExampleError[] = [];
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    const entry = diagnostic.file === undefined ? undefined : virtual.get(diagnostic.file.fileName);
    if (diagnostic.file === undefined || entry === undefined) {
      errors.push({
        where: diagnostic.file?.fileName ?? 'compiler',
        message: `TS${diagnostic.code}: ${message}`,
      });
      continue;
    }
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
    const of = entry.example.documents === undefined ? '' : ` (@example of ${entry.example.documents})`;
    errors.push({
      where: `${entry.example.file}:${entry.example.line + line}${of}`,
      message: `TS${diagnostic.code}: ${message}`,
    });
  }
  return errors;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The ```ts fences inside the `@example` tags of a source file's doc comments. */
function sourceExamples(file: string, text: string): DocExample[] {
  const lines = text.split('\n');
  const examples: DocExample[] = [];
  for (let index = 0; index < lines.length; index++) {
    if (!/^\s*\/\*\*/.test(lines[index] ?? '')) continue;
    const start = index;
    while (index < lines.length && !(lines[index] ?? '').includes('*/')) index++;
    const comment = lines.slice(start, index + 1);
    const exampleAt = comment.findIndex((line) => /^\s*\*\s*@example\b/.test(line));
    if (exampleAt < 0) continue;
    const documents = declaredName(lines, index + 1);
    // The comment's lines without their leading ` * `, from the tag on.
    const body = comment.slice(exampleAt).map((line) => line.replace(/^\s*\*(?: |$)/, ''));
    for (const fence of fences(body)) {
      examples.push({ file, line: start + exampleAt + fence.line, documents, code: fence.code });
    }
  }
  return examples;
}

/** The name of the exported declaration starting at `lines[from]` (after the comment), if there is one. */
function declaredName(lines: readonly string[], from: number): string | undefined {
  const match =
    /^export\s+(?:declare\s+)?(?:default\s+)?(?:async\s+)?(?:function\*?|class|const|interface|type)\s+([A-Za-z_$][\w$]*)/.exec(
      lines[from] ?? '',
    );
  return match?.[1];
}

/** The ```ts fences of `lines` (not those tagged no-check), with the 1-based line their code starts on. */
function fences(lines: readonly string[]): Array<{ line: number; code: string }> {
  const found: Array<{ line: number; code: string }> = [];
  for (let index = 0; index < lines.length; index++) {
    const opening = /^\s*```(\S*)(.*)$/.exec(lines[index] ?? '');
    if (opening === null) continue;
    const end = lines.findIndex((line, at) => at > index && /^\s*```\s*$/.test(line));
    if (end < 0) break;
    const language = opening[1];
    if ((language === 'ts' || language === 'typescript') && !/\bno-check\b/.test(opening[2] ?? '')) {
      found.push({ line: index + 2, code: lines.slice(index + 1, end).join('\n') });
    }
    index = end;
  }
  return found;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const examples = collectDocExamples();
  for (const example of examples) {
    const of = example.documents === undefined ? '' : ` (@example of ${example.documents})`;
    process.stdout.write(`${example.file}:${example.line}${of}\n`);
  }
  const errors = checkDocExamples(examples);
  for (const error of errors) process.stderr.write(`${error.where}: ${error.message}\n`);
  process.stdout.write(`${examples.length} examples, ${errors.length} type errors\n`);
  process.exitCode = errors.length === 0 ? 0 : 1;
}
