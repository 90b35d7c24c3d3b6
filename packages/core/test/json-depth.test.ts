/**
 * Nesting past MAX_JSON_DEPTH is an issue that says where, whether the text is valid JSON or not and whether a
 * document arrives as text or as a value: readDocumentText never throws (it did at 10,000-deep invalid JSON, whose
 * syntax-error locator recursed), and no codec recurses into a document too deep to walk.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  codecs,
  convertDocumentText,
  FORMAT_NAMES,
  parseJsonText,
  readDocument,
  readDocumentText,
} from '../src/index.js';
import { MAX_JSON_DEPTH, pathPastDepth } from '../src/json/depth.js';

/** `{"a": {"a": … 1 …}}`, `depth` objects deep. */
function nestedObjects(depth: number): string {
  return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

describe('nesting past the limit', () => {
  test('100,000-deep invalid JSON is one issue with the line and column, not a throw', () => {
    for (const text of ['['.repeat(100_000), `{"tools": ${'[{"x":'.repeat(50_000)}`]) {
      const result = readDocumentText(text);
      assert.equal(result.valid, false);
      assert.equal(result.issues.length, 1);
      assert.equal(result.issues[0]!.code, 'json.depth');
      assert.match(result.issues[0]!.message, /nesting deeper than 256 levels at line 1, column \d+/);
    }
  });

  test('valid JSON nested 3,000 deep is refused with the path where it goes too deep', () => {
    const text = `{"name": "Deep", "tools": [${nestedObjects(3000)}]}`;
    const parsed = parseJsonText(text);
    assert.equal(parsed.ok, false);
    if (parsed.ok) return;
    assert.equal(parsed.issue.code, 'json.depth');
    assert.match(parsed.issue.message, /^Nesting deeper than 256 levels at \/tools\/0\/a\/a\/a\/.*\/…: /);
    assert.equal(parsed.issue.pointer.split('/').length - 1, MAX_JSON_DEPTH);
    for (const format of FORMAT_NAMES) {
      const converted = convertDocumentText(text, format);
      assert.equal(converted.source.issues[0]?.code, 'json.depth');
    }
  });

  test('a value handed over already parsed is checked too, by every codec', () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 20_000; i++) deep = { a: deep };
    for (const format of FORMAT_NAMES) {
      const result = codecs[format].parse({ name: 'Deep', tools: [deep], agents: [deep], skills: [deep] });
      assert.equal(result.valid, false);
      assert.deepEqual(
        result.issues.map((issue) => issue.code),
        ['json.depth'],
      );
    }
    assert.equal(readDocument({ tools: [deep] }).issues[0]?.code, 'json.depth');
  });

  test('exactly at the limit reads as usual', () => {
    assert.equal(parseJsonText(nestedObjects(MAX_JSON_DEPTH)).ok, true);
    assert.equal(parseJsonText(nestedObjects(MAX_JSON_DEPTH + 1)).ok, false);
    const atLimit = `{"tools": [{"name": "t", "description": "d", "inputSchema": ${nestedObjects(MAX_JSON_DEPTH - 3)}}]}`;
    assert.notEqual(readDocumentText(atLimit).issues[0]?.code, 'json.depth');
  });

  test('a cycle in a value built in code is too deep, not an endless walk; shared members are fine', () => {
    const cyclic: Record<string, unknown> = { name: 'Loop' };
    cyclic['tools'] = [cyclic];
    assert.ok(pathPastDepth(cyclic) !== undefined);
    assert.equal(readDocument(cyclic).issues[0]?.code, 'json.depth');
    const shared = { type: 'object' };
    const twice = {
      tools: [
        { name: 'a', description: 'A.', inputSchema: shared },
        { name: 'b', description: 'B.', inputSchema: shared },
      ],
    };
    assert.equal(pathPastDepth(twice), undefined);
    assert.equal(readDocument(twice).valid, true);
  });

  test('brackets inside strings do not count', () => {
    const text = JSON.stringify({ name: 'x', description: '['.repeat(10_000) });
    assert.equal(parseJsonText(text).ok, true);
    const broken = `${text.slice(0, -1)},`;
    const result = parseJsonText(broken);
    assert.equal(result.ok, false);
    if (!result.ok) assert.equal(result.issue.code, 'json.syntax');
  });
});
