/**
 * The regular-expression engine every Ajv instance in Agentry compiles `pattern` and `patternProperties` with
 * (`code.regExp`). Patterns come from strangers twice over: the official TD schema's own patterns run on untrusted
 * documents (its `scheme` pattern `.+:.*` backtracks quadratically: a 60k-character scheme froze the event loop
 * for seconds), and an agent's input/output schemas carry patterns of its choosing that host, client and registry
 * run on untrusted values. JavaScript's RegExp backtracks, so either can cost time exponential or quadratic in the
 * length of the string. RE2 (here re2js, pure JavaScript) matches in time linear in the input, whatever the pattern.
 *
 * RE2 lacks what needs backtracking: backreferences (`\1`, `\k<name>`) and lookaround (`(?=`, `(?!`, `(?<=`,
 * `(?<!`). Such a pattern does not compile here; the error names the construct and the pattern, and callers turn
 * it into an issue or a validation failure (never a crash, never a silent fallback to a backtracking engine).
 *
 * Ajv writes patterns in ECMAScript syntax with the `u` flag. They are translated to RE2 syntax (re2js's
 * translateRegExp: `\u{…}`, `\uXXXX`, `(?<name>`, `[^]`, `\cX`), and the few constructs whose meaning differs are
 * rewritten to keep ECMAScript's: `.` does not match any line terminator (RE2's excludes only `\n`) and `\s`/`\S`
 * are Unicode white space (RE2's are ASCII). `u` or no flag are both accepted (RE2 always reads code points).
 * Matching time is linear in the input with a factor bounded by the pattern's size, which is capped below.
 */
import { RE2JS } from 're2js';
import { AgentryError, type AgentryErrorCode } from '../protocol/errors.js';

/** What Ajv needs of a compiled pattern: `test`, and a `toString` it keys its cache of patterns by. */
export interface LinearRegExp {
  test(text: string): boolean;
  toString(): string;
}

/** A pattern the linear-time engine cannot run, with the reason in words. */
export class UnsupportedPatternError extends AgentryError {
  static override readonly code: AgentryErrorCode = 'UnsupportedPattern';
  override name = 'UnsupportedPatternError';
  constructor(
    readonly pattern: string,
    readonly reason: string,
  ) {
    super(`pattern ${JSON.stringify(shown(pattern))} ${reason}`);
  }
}

/** A pattern as messages show it: at most 120 characters. */
function shown(pattern: string): string {
  return pattern.length > 120 ? `${pattern.slice(0, 120)}…` : pattern;
}

/** Ajv's `RegExpEngine`: `(pattern, flags) => { test }`, with the `code` Ajv's standalone output would use. */
export const linearRegExp = Object.assign(
  (pattern: string, flags: string): LinearRegExp => compileLinearRegExp(pattern, flags),
  { code: 'linearRegExp' },
);

/** ECMAScript white space and line terminators (what `\s` means with or without the `u` flag), as RE2 class items. */
const JS_SPACE_ITEMS =
  '\\t\\n\\x{0B}\\f\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}';
/** What ECMAScript's `.` does not match without the `s` flag. */
const JS_LINE_TERMINATORS = '\\n\\r\\x{2028}\\x{2029}';

/**
 * Matching costs up to (instructions × input length) steps, so the program size bounds the work per character: a
 * thousand instructions hold real patterns (an IPv6 address, 700; the TD schema's language tag, 340) but not
 * `\p{L}{5000}`, which would cost thousands of steps per character of a megabyte input.
 */
const MAX_PROGRAM_SIZE = 1_000;
/** Longer patterns are refused before compiling: compiling costs time in the pattern's length too. */
const MAX_PATTERN_LENGTH = 2_000;

/**
 * Why `pattern` cannot run here, found without compiling it (a linear scan): too long, or a construct RE2 lacks.
 * Undefined when nothing is found; compiling can still refuse it (syntax, program size).
 */
export function patternSyntaxProblem(pattern: string): string | undefined {
  if (pattern.length > MAX_PATTERN_LENGTH)
    return `is ${pattern.length} characters long; Agentry's linear-time pattern engine takes at most ${MAX_PATTERN_LENGTH}`;
  const unsupported = unsupportedConstruct(pattern);
  if (unsupported !== undefined)
    return `uses ${unsupported}, which Agentry's linear-time pattern engine (RE2 syntax) does not support; rewrite the pattern without backreferences and lookaround`;
  return undefined;
}

/** Compiled patterns by flags and text: schemas repeat patterns, and compiling one costs milliseconds. */
const compiledPatterns = new Map<string, LinearRegExp | UnsupportedPatternError>();
const MAX_COMPILED_PATTERNS = 256;

/** Compiles an ECMAScript `pattern` for linear-time matching; throws UnsupportedPatternError when it cannot. */
export function compileLinearRegExp(pattern: string, flags = 'u'): LinearRegExp {
  const key = `${flags}/${pattern}`;
  let compiled = compiledPatterns.get(key);
  if (compiled === undefined) {
    try {
      compiled = compileUncached(pattern, flags);
    } catch (error) {
      if (!(error instanceof UnsupportedPatternError)) throw error;
      compiled = error;
    }
    if (compiledPatterns.size >= MAX_COMPILED_PATTERNS) compiledPatterns.clear();
    compiledPatterns.set(key, compiled);
  }
  if (compiled instanceof UnsupportedPatternError) throw compiled;
  return compiled;
}

function compileUncached(pattern: string, flags: string): LinearRegExp {
  const problem = patternSyntaxProblem(pattern);
  if (problem !== undefined) throw new UnsupportedPatternError(pattern, problem);
  if (flags !== '' && flags !== 'u')
    throw new UnsupportedPatternError(pattern, `has flags "${flags}"; only "u" is supported`);
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(withEcmaScriptClasses(RE2JS.translateRegExp(pattern)));
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new UnsupportedPatternError(
      pattern,
      `is not a pattern Agentry's linear-time engine (RE2 syntax) accepts: ${detail}`,
    );
  }
  if (compiled.programSize() > MAX_PROGRAM_SIZE)
    throw new UnsupportedPatternError(
      pattern,
      `is too large for Agentry's linear-time pattern engine (${compiled.programSize()} instructions; at most ${MAX_PROGRAM_SIZE}); simplify it (fewer or smaller repetitions and alternatives)`,
    );
  const text = `/${pattern}/${flags}`;
  return { test: (input: string) => compiled.test(input), toString: () => text };
}

/** The first construct RE2 cannot run, named for a message; undefined when there is none. */
function unsupportedConstruct(pattern: string): string | undefined {
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === '\\') {
      const next = pattern[i + 1] ?? '';
      if (!inClass && next >= '1' && next <= '9') return `a backreference (\\${next})`;
      if (!inClass && next === 'k' && pattern[i + 2] === '<') return 'a named backreference (\\k<…>)';
      i++;
    } else if (inClass) {
      if (ch === ']') inClass = false;
    } else if (ch === '[') {
      inClass = true;
    } else if (ch === '(' && pattern[i + 1] === '?') {
      const opener = pattern.slice(i, i + 4);
      if (opener.startsWith('(?=')) return 'a lookahead ((?=…))';
      if (opener.startsWith('(?!')) return 'a negative lookahead ((?!…))';
      if (opener === '(?<=') return 'a lookbehind ((?<=…))';
      if (opener === '(?<!') return 'a negative lookbehind ((?<!…))';
    }
  }
  return undefined;
}

/**
 * Rewrites, in an RE2 pattern, `.` and `\s`/`\S` outside classes and `\s` inside them to their ECMAScript
 * meaning. `\S` inside a class keeps RE2's ASCII meaning (a class cannot hold a negated class).
 */
function withEcmaScriptClasses(pattern: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === '\\') {
      const next = pattern[i + 1] ?? '';
      i++;
      if (next === 's') out += inClass ? JS_SPACE_ITEMS : `[${JS_SPACE_ITEMS}]`;
      else if (next === 'S' && !inClass) out += `[^${JS_SPACE_ITEMS}]`;
      else out += ch + next;
    } else if (inClass) {
      if (ch === ']' && !out.endsWith('[') && !out.endsWith('[^')) inClass = false;
      out += ch;
    } else if (ch === '[') {
      inClass = true;
      out += ch;
    } else if (ch === '.') {
      out += `[^${JS_LINE_TERMINATORS}]`;
    } else {
      out += ch;
    }
  }
  return out;
}
