/** Parses JSON text into a value, turning syntax errors into issues that say where (line and column). */
import * as jsonc from 'jsonc-parser';
import type { ValidationIssue } from '../issues.js';
import type { JsonValue } from '../model/agent.js';
import {
  depthIssue,
  MAX_JSON_DEPTH,
  markChecked,
  offsetPastDepth,
  pathPastDepth,
  treeNestsPast,
} from './depth.js';

export type JsonTextResult = { ok: true; value: JsonValue } | { ok: false; issue: ValidationIssue };

/**
 * JSON text as a value, or the issue that says why not: a syntax error (with line and column), or nesting deeper
 * than MAX_JSON_DEPTH (with the path), which nothing downstream could walk without overflowing its stack.
 */
export function parseJsonText(text: string): JsonTextResult {
  // A UTF-8 byte order mark is legal at the start of a file but not in JSON.parse.
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let value: JsonValue;
  try {
    // V8's JSON.parse is iterative: any depth parses; the depth is checked on the value.
    value = JSON.parse(source) as JsonValue;
  } catch (error) {
    return { ok: false, issue: syntaxIssue(source, error) };
  }
  if (treeNestsPast(value)) return { ok: false, issue: depthIssue(pathPastDepth(value) ?? []) };
  markChecked(value);
  return { ok: true, value };
}

/**
 * JSON.parse says what is wrong but not always where (V8's messages often carry no position). On this slow path,
 * a tolerant parser that reports offsets locates the first error.
 */
function syntaxIssue(source: string, error: unknown): ValidationIssue {
  const reason = (error instanceof Error ? error.message : String(error))
    .split('\n')[0]!
    .replace(/ in JSON at position \d+.*$/, '');
  // The tolerant parser recurses: text nested past the limit is reported as such, with where it goes too deep.
  const deepAt = offsetPastDepth(source);
  if (deepAt !== undefined) {
    const { line, column } = lineAndColumn(source, deepAt);
    return {
      severity: 'error',
      pointer: '',
      code: 'json.depth',
      message: `Not valid JSON, and nesting deeper than ${MAX_JSON_DEPTH} levels at line ${line}, column ${column}: objects and arrays may nest at most ${MAX_JSON_DEPTH} deep.`,
      spec: 'RFC 8259',
    };
  }
  const errors: jsonc.ParseError[] = [];
  jsonc.parse(source, errors, {
    disallowComments: true,
    allowTrailingComma: false,
    allowEmptyContent: false,
  });
  const first = errors[0];
  let where = '';
  let what = reason;
  if (first !== undefined) {
    const { line, column } = lineAndColumn(source, first.offset);
    where = ` at line ${line}, column ${column}`;
    what = describeParseError(first.error);
  }
  return {
    severity: 'error',
    pointer: '',
    code: 'json.syntax',
    message: `Not valid JSON${where}: ${what}.`,
    spec: 'RFC 8259',
  };
}

/** jsonc-parser's error names (from printParseErrorCode) in words. */
const PARSE_ERROR_WORDS: Readonly<Record<string, string>> = {
  InvalidSymbol: 'unexpected character',
  InvalidNumberFormat: 'malformed number',
  PropertyNameExpected: 'a property name was expected',
  ValueExpected: 'a value was expected',
  ColonExpected: 'a colon was expected',
  CommaExpected: 'a comma was expected',
  CloseBraceExpected: 'a closing } was expected',
  CloseBracketExpected: 'a closing ] was expected',
  EndOfFileExpected: 'the document should end here',
  InvalidCommentToken: 'comments are not allowed in JSON',
  UnexpectedEndOfComment: 'comments are not allowed in JSON',
  UnexpectedEndOfString: 'unterminated string',
  UnexpectedEndOfNumber: 'malformed number',
  InvalidUnicode: 'invalid \\u escape',
  InvalidEscapeCharacter: 'invalid escape character',
  InvalidCharacter: 'control character in a string',
};

function describeParseError(code: jsonc.ParseErrorCode): string {
  const name = jsonc.printParseErrorCode(code);
  return PARSE_ERROR_WORDS[name] ?? name;
}

export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}
