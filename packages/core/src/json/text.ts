/** Parses JSON text into a value, turning syntax errors into issues that say where (line and column). */
import type { ValidationIssue } from '../issues.js';
import type { JsonValue } from '../model/agent.js';

export type JsonTextResult = { ok: true; value: JsonValue } | { ok: false; issue: ValidationIssue };

export function parseJsonText(text: string): JsonTextResult {
  // A UTF-8 byte order mark is legal at the start of a file but not in JSON.parse.
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    return { ok: true, value: JSON.parse(source) as JsonValue };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const position = /position (\d+)/.exec(reason);
    let where = '';
    if (position?.[1] !== undefined) {
      const { line, column } = lineAndColumn(source, Number(position[1]));
      where = ` at line ${line}, column ${column}`;
    }
    return {
      ok: false,
      issue: {
        severity: 'error',
        pointer: '',
        code: 'json.syntax',
        message: `Not valid JSON${where}: ${reason.replace(/ in JSON at position \d+.*$/, '')}.`,
        spec: 'RFC 8259',
      },
    };
  }
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
