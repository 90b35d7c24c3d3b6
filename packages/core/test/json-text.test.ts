/** JSON text errors say where: line and column, for every kind of syntax error. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { parseJsonText } from '../src/index.js';

const cases: Array<[string, string, RegExp]> = [
  ['{\n  "woa_version": "1",\n  "agents": [}\n', 'line 3, column 14', /a value was expected/],
  ['{"version": 3.1.4}', 'line 1, column 16', /unexpected character/],
  ['{"a": 1,}', 'line 1, column 9', /property name/],
  ['[1 2]', 'line 1, column 4', /comma/],
  ['', 'line 1, column 1', /value was expected/],
  ['// note\n{}', 'line 1, column 1', /comments are not allowed/],
  ['{"a": "x\n"}', 'line 1, column 7', /string/],
];

for (const [text, where, what] of cases) {
  test(`syntax error located at ${where}: ${JSON.stringify(text)}`, () => {
    const result = parseJsonText(text);
    assert.equal(result.ok, false);
    if (result.ok) return;
    assert.equal(result.issue.code, 'json.syntax');
    assert.match(result.issue.message, new RegExp(`at ${where}:`));
    assert.match(result.issue.message, what);
  });
}

test('a byte order mark is accepted', () => {
  const result = parseJsonText('\uFEFF{"a": 1}');
  assert.deepEqual(result, { ok: true, value: { a: 1 } });
});

test('any text that JSON.parse rejects is located within the text', () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 40 }), (text) => {
      const result = parseJsonText(text);
      let valid = true;
      try {
        JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
      } catch {
        valid = false;
      }
      assert.equal(result.ok, valid);
      if (!result.ok) assert.match(result.issue.message, /^Not valid JSON( at line \d+, column \d+)?: /);
    }),
    { numRuns: 500 },
  );
});
