import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { fts5Expression, parseLexicalQuery } from '../../src/search/index.js';
import { querySegments } from '../../src/search/semantic/query-segments.js';
import { mentionKind, withMentionKinds } from '../../src/search/text/mentions.js';
import {
  identifierParts,
  indexableText,
  readableIdentifier,
  readableText,
  wordsOf,
} from '../../src/search/text/words.js';

describe('words', () => {
  it('splits identifiers where a person would', () => {
    assert.deepEqual(identifierParts('createIssue'), ['create', 'Issue']);
    assert.deepEqual(identifierParts('HTTPServer2'), ['HTTP', 'Server', '2']);
    assert.deepEqual(identifierParts('weather'), ['weather']);
    assert.deepEqual(wordsOf('get_weather-v2.json'), ['get', 'weather', 'v2', 'json']);
    assert.equal(readableIdentifier('get_weatherForecast'), 'get weather Forecast');
  });

  it('adds the parts of split identifiers and spaces Han/Kana characters for indexing', () => {
    assert.equal(indexableText('createIssue tool'), 'createIssue tool create Issue');
    assert.equal(indexableText('plain words'), 'plain words');
    assert.equal(indexableText('必应搜索').trim(), '必 应 搜 索');
  });

  it('turns paths and file names in prose into words', () => {
    assert.equal(
      readableText('save it to /root/pdf/weekly_report.pdf now'),
      'save it to root pdf weekly report pdf now',
    );
    assert.equal(readableText('no identifiers here.'), 'no identifiers here.');
  });
});

describe('lexical query', () => {
  it('makes every word an alternative, dropping function words', () => {
    const query = parseLexicalQuery('Please find the weather in Paris');
    assert.deepEqual(query.words, ['find', 'weather', 'paris']);
    assert.equal(fts5Expression(query), '"find" OR "weather" OR "paris"');
  });

  it('adds the parts of an identifier as a phrase', () => {
    assert.equal(fts5Expression(parseLexicalQuery('createIssue')), '"createissue" OR "create issue"');
  });

  it('keeps quoted phrases (and their words) and word* prefixes, and nothing else of FTS5 syntax', () => {
    assert.equal(
      fts5Expression(parseLexicalQuery('"weather report" forec*')),
      '"weather report" OR "weather" OR "report" OR "forec"*',
    );
    // The words of a phrase are taken as if unquoted: function words dropped, identifiers split.
    assert.equal(
      fts5Expression(parseLexicalQuery('"Corridor in the Asylum"')),
      '"corridor in the asylum" OR "corridor" OR "asylum"',
    );
    assert.equal(
      fts5Expression(parseLexicalQuery('"call getForecast"')),
      '"call getforecast" OR "call" OR "getforecast" OR "get forecast"',
    );
    assert.equal(
      fts5Expression(parseLexicalQuery('a OR b AND NEAR(c, 2) x:y -z ^w')),
      '"b" OR "near" OR "c" OR "2" OR "x" OR "y" OR "z" OR "w"',
    );
    // An unclosed quote is a stray character.
    assert.equal(fts5Expression(parseLexicalQuery('"weather report')), '"weather" OR "report"');
    assert.equal(fts5Expression(parseLexicalQuery('*')), undefined);
  });

  it('matches Han text by neighbouring pairs', () => {
    assert.equal(fts5Expression(parseLexicalQuery('必应搜索')), '"必 应" OR "应 搜" OR "搜 索"');
    assert.equal(fts5Expression(parseLexicalQuery('MCP服务')), '"mcp" OR "服 务"');
  });

  it('bounds the number of clauses', () => {
    const long = Array.from({ length: 200 }, (_, i) => `word${i}x`).join(' ');
    assert.ok(parseLexicalQuery(long).clauses.length <= 48);
  });

  it('only ever produces quoted strings joined by OR (property)', () => {
    const clause = /^"(?:[^"]|"")*"\*?$/u;
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 80 }), (text) => {
        const expression = fts5Expression(parseLexicalQuery(text));
        if (expression === undefined) return;
        for (const part of expression.split(' OR '))
          assert.match(part, clause, `${JSON.stringify(text)} → ${expression}`);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('query clauses', () => {
  it('splits a request into its steps', () => {
    assert.deepEqual(querySegments('Find the weather in Paris, then book a table and send me the receipt.'), [
      'Find the weather in Paris',
      'book a table',
      'send me the receipt.',
    ]);
  });

  it('leaves a single need whole', () => {
    assert.deepEqual(querySegments('weather forecast for Paris'), []);
    assert.deepEqual(querySegments('weather, maps'), []);
  });

  it('merges neighbours into at most four clauses', () => {
    const segments = querySegments('one a, two b, three c, four d, five e, six f, seven g, eight h');
    assert.equal(segments.length, 4);
    assert.equal(segments[0], 'one a, two b');
  });
});

describe('mentions of files and links', () => {
  it('names a file path as a file and a link as a web page', () => {
    assert.equal(
      withMentionKinds('Save the summary to /root/notes/week_12.md, then email it'),
      'Save the summary to /root/notes/week_12.md file, then email it',
    );
    assert.equal(
      withMentionKinds('Summarise https://example.org/post?id=3 for me.'),
      'Summarise https://example.org/post?id=3 web page for me.',
    );
    // Quotes, brackets and sentence ends stay outside the mention.
    assert.equal(withMentionKinds('open ("C:\\Users\\me\\a.txt").'), 'open ("C:\\Users\\me\\a.txt file").');
    assert.equal(
      withMentionKinds('read ./data/.env and ~/x/report.PDF'),
      'read ./data/.env file and ~/x/report.PDF file',
    );
  });

  it('leaves alone what only looks like a path', () => {
    for (const text of [
      'convert km/h to m/s',
      'TCP/IP and React/TypeScript with shadcn/ui',
      'the /login route',
      'release notes/v1.2',
      'report.pdf without a folder',
      'ftp://files.example.org/a.txt',
      'plain words',
    ])
      assert.equal(withMentionKinds(text), text);
    assert.equal(mentionKind('docs/guide.md'), 'file');
    assert.equal(mentionKind('http://localhost:7420/agents'), 'web page');
    assert.equal(mentionKind(''), undefined);
  });

  it('only ever adds the kinds after mentions, keeping the text (property)', () => {
    const token = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.constantFrom('/root/a.md', 'https://x.io/p', '(dir/f.txt),', 'a/b', '"', 'file', 'web page'),
    );
    fc.assert(
      fc.property(fc.array(token, { maxLength: 8 }), fc.constantFrom(' ', '  ', '\n'), (tokens, space) => {
        const text = tokens.join(space);
        const annotated = withMentionKinds(text);
        // Taking every added " file" / " web page" back out gives the text again.
        assert.ok(
          isTextWithInsertions(text, annotated, [' file', ' web page']),
          `${JSON.stringify(annotated)}`,
        );
      }),
      { numRuns: 2000 },
    );
  });
});

/** Whether `annotated` is `text` with some of the `insertions` put in between its characters. */
function isTextWithInsertions(text: string, annotated: string, insertions: readonly string[]): boolean {
  const seen = new Set<string>();
  const walk = (i: number, j: number): boolean => {
    if (i === text.length && j === annotated.length) return true;
    const key = `${i},${j}`;
    if (seen.has(key)) return false;
    seen.add(key);
    if (i < text.length && text[i] === annotated[j] && walk(i + 1, j + 1)) return true;
    return insertions.some(
      (insertion) => annotated.startsWith(insertion, j) && walk(i, j + insertion.length),
    );
  };
  return walk(0, 0);
}
