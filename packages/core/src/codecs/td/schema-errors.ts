/**
 * Turns Ajv's raw errors for the TD JSON Schema into one actionable message per location.
 *
 * The TD schema is full of unions (security schemes, `@context` shapes, `op` as string or array, links). When a
 * value fails a union, Ajv reports every alternative's complaint: a bearer scheme with a bad `in` yields "scheme must
 * be nosec", "scheme must be basic", ... and only one useful line. We re-check each alternative on its own, drop
 * the ones the value was plainly not meant for (wrong kind of value, or a mismatch on the member most alternatives
 * disagree about, like `scheme`), and report what is wrong with the one that was meant; when none was, we say which
 * values would have been accepted there.
 */
import type { ErrorObject } from 'ajv';
import { escapePointerToken } from '../../json/pointer.js';

export interface SchemaProblem {
  pointer: string;
  /** The JSON Schema keyword that failed, for the issue code. */
  keyword: string;
  message: string;
}

/** Validates `data` against one alternative of a union, returning its errors (paths relative to `data`). */
export type BranchValidator = (branch: unknown, data: unknown) => ErrorObject[];

const UNIONS = new Set(['oneOf', 'anyOf']);
/**
 * Keywords that say "this value is not one this alternative is about" rather than "this value is malformed". (A
 * wrong type at the union's own location says so too; a wrong type deeper down is just a malformed member.)
 */
const DISCRIMINATING = new Set(['enum', 'const', 'pattern', 'not']);
/** Unions nest (a data schema's `items` holds data schemas); past this depth we stop re-checking alternatives. */
const MAX_DEPTH = 6;

export function explainSchemaErrors(
  errors: readonly ErrorObject[],
  validate: BranchValidator,
): SchemaProblem[] {
  return bestPerLocation(explain(errors, validate, 0));
}

function explain(errors: readonly ErrorObject[], validate: BranchValidator, depth: number): SchemaProblem[] {
  // Outermost first: shorter paths, and at one path the later error (Ajv reports a union after its alternatives',
  // so an alternative's own union at the same location comes first).
  const unions =
    depth < MAX_DEPTH
      ? errors
          .map((error, index) => ({ error, index }))
          .filter(({ error }) => UNIONS.has(error.keyword))
          .sort((a, b) => a.error.instancePath.length - b.error.instancePath.length || b.index - a.index)
          .map(({ error }) => error)
      : [];
  // In the TD schema a union is the only keyword at its location, so every error at or under it is its own.
  // A set of explained locations, asked about each ancestor of a path: a list scanned for every error was
  // quadratic (a TD with 2,500 bad security schemes took 54 s).
  const explained = new Set<string>();
  const problems: SchemaProblem[] = [];
  for (const union of unions) {
    if (isWithinAny(union.instancePath, explained)) continue;
    explained.add(union.instancePath);
    problems.push(...explainUnion(union, validate, depth));
  }
  for (const error of errors) {
    if (isWithinAny(error.instancePath, explained)) continue;
    problems.push(describeError(error));
  }
  return problems;
}

function explainUnion(union: ErrorObject, validate: BranchValidator, depth: number): SchemaProblem[] {
  const base = union.instancePath;
  if (union.keyword === 'oneOf' && Array.isArray(union.params['passingSchemas'])) {
    return [
      {
        pointer: base,
        keyword: 'oneOf',
        message: `${describeValue(union.data)} matches more than one of the allowed forms; it must match exactly one.`,
      },
    ];
  }
  const alternatives = Array.isArray(union.schema) ? (union.schema as unknown[]) : [];
  const results = alternatives.map((branch) =>
    validate(branch, union.data).map((error) => ({ ...error, instancePath: base + error.instancePath })),
  );
  if (results.length === 0 || results.some((errors) => errors.length === 0)) return [describeError(union)];

  let live = results.filter((errors) => !errors.some((e) => e.keyword === 'type' && e.instancePath === base));
  if (live.length === 0) return [mergedAt(base, results.flat())];

  if (live.length > 1) {
    const discriminator = mostDisputedLocation(live);
    if (discriminator !== undefined) {
      const failsThere = (errors: ErrorObject[]): boolean =>
        errors.some((e) => e.instancePath === discriminator && DISCRIMINATING.has(e.keyword));
      const meant = live.filter((errors) => !failsThere(errors));
      if (meant.length === 0) {
        const there = live
          .flat()
          .filter((e) => e.instancePath === discriminator && DISCRIMINATING.has(e.keyword));
        return [mergedAt(discriminator, there)];
      }
      live = meant;
    }
  }
  let best: SchemaProblem[] | undefined;
  for (const errors of live) {
    const problems = bestPerLocation(explain(errors, validate, depth + 1));
    if (best === undefined || problems.length < best.length) best = problems;
  }
  return best ?? [describeError(union)];
}

/** The location where the most alternatives reject the value's identity (shallowest first on ties). */
function mostDisputedLocation(alternatives: readonly ErrorObject[][]): string | undefined {
  const counts = new Map<string, number>();
  for (const errors of alternatives) {
    const paths = new Set(errors.filter((e) => DISCRIMINATING.has(e.keyword)).map((e) => e.instancePath));
    for (const path of paths) counts.set(path, (counts.get(path) ?? 0) + 1);
  }
  let best: string | undefined;
  let bestCount = 0;
  for (const [path, count] of counts) {
    if (count > bestCount || (count === bestCount && best !== undefined && path.length < best.length)) {
      best = path;
      bestCount = count;
    }
  }
  return best;
}

/** One message for a location where no alternative accepted the value: what would have been accepted. */
function mergedAt(pointer: string, errors: readonly ErrorObject[]): SchemaProblem {
  const allowed: unknown[] = [];
  const patterns: string[] = [];
  const types: string[] = [];
  const excluded: unknown[] = [];
  const addUnique = <T>(list: T[], value: T): void => {
    const key = JSON.stringify(value);
    if (!list.some((item) => JSON.stringify(item) === key)) list.push(value);
  };
  let data: unknown;
  for (const error of errors) {
    if (error.instancePath !== pointer) continue;
    data = error.data;
    if (error.keyword === 'enum') {
      for (const value of (error.params['allowedValues'] as unknown[] | undefined) ?? [])
        addUnique(allowed, value);
    } else if (error.keyword === 'const') addUnique(allowed, error.params['allowedValue']);
    else if (error.keyword === 'pattern') addUnique(patterns, String(error.params['pattern']));
    else if (error.keyword === 'type') {
      const type = error.params['type'];
      for (const name of Array.isArray(type) ? type : [type]) addUnique(types, String(name));
    } else if (error.keyword === 'not') {
      const forbidden = constOf(error.schema);
      if (forbidden !== undefined) addUnique(excluded, forbidden);
    }
  }
  const expected: string[] = [];
  if (allowed.length > 0) expected.push(`one of ${allowed.map(describeValue).join(', ')}`);
  for (const pattern of patterns) expected.push(`a value matching /${pattern}/`);
  if (expected.length === 0 && types.length > 0) expected.push(types.map(withArticle).join(' or '));
  if (expected.length > 0) {
    const keyword = allowed.length > 0 ? 'enum' : patterns.length > 0 ? 'pattern' : 'type';
    return {
      pointer,
      keyword,
      message: `${describeValue(data)} is not allowed here; expected ${expected.join(', or ')}.`,
    };
  }
  const others = excluded.filter((value) => JSON.stringify(value) !== JSON.stringify(data));
  const why = others.length > 0 ? ` (${others.map(describeValue).join(', ')} is excluded here)` : '';
  return { pointer, keyword: 'not', message: `${describeValue(data)} is not allowed here${why}.` };
}

/** Why a required member matters, for the members people most often leave out. */
const REQUIRED_HINTS: Readonly<Record<string, string>> = {
  forms: 'every interaction affordance needs at least one form saying where and how to invoke it',
  href: 'a form needs the URI it submits to',
  op: 'forms at the Thing level must name the operations they serve, e.g. "readallproperties"',
  security: 'name the security scheme(s) that apply, e.g. "nosec_sc"',
  securityDefinitions: 'declare the security schemes used, e.g. {"nosec_sc": {"scheme": "nosec"}}',
  title: 'a Thing needs a human-readable title',
  '@context': 'a TD names the TD context, e.g. "https://www.w3.org/2022/wot/td/v1.1"',
  contentType: 'an expected response must name its media type',
  instance: 'a version object must give the instance version',
  scheme: 'a security scheme must name its mechanism, e.g. "bearer"',
};

function describeError(error: ErrorObject): SchemaProblem {
  const at = error.instancePath;
  const value = describeValue(error.data);
  switch (error.keyword) {
    case 'required': {
      const property = String(error.params['missingProperty']);
      const hint = REQUIRED_HINTS[property];
      return {
        pointer: `${at}/${escapePointerToken(property)}`,
        keyword: 'required',
        message: `Missing required member "${property}"${hint === undefined ? '' : `: ${hint}`}.`,
      };
    }
    case 'additionalProperties': {
      const property = String(error.params['additionalProperty']);
      return {
        pointer: `${at}/${escapePointerToken(property)}`,
        keyword: 'additionalProperties',
        message: `Member "${property}" is not allowed here.`,
      };
    }
    case 'enum':
    case 'const':
    case 'pattern':
    case 'not':
      return mergedAt(at, [error]);
    case 'type':
      return {
        pointer: at,
        keyword: 'type',
        message: `Must be ${[error.params['type']].flat().map(String).map(withArticle).join(' or ')}, got ${value}.`,
      };
    case 'format':
      return {
        pointer: at,
        keyword: 'format',
        message: `${value} is not a valid ${error.params['format'] === 'uri' ? 'absolute URI' : String(error.params['format'])}.`,
      };
    case 'oneOf':
    case 'anyOf':
      return {
        pointer: at,
        keyword: error.keyword,
        message: `${value} does not match any of the allowed forms.`,
      };
    default:
      return {
        pointer: at,
        keyword: error.keyword,
        message: `${capitalise(error.message ?? error.keyword)}.`,
      };
  }
}

const RANK: Readonly<Record<string, number>> = {
  required: 0,
  additionalProperties: 0,
  enum: 1,
  format: 2,
  pattern: 2,
  type: 3,
  not: 4,
  oneOf: 6,
  anyOf: 6,
};

/** Keeps the most specific problem at each location, in the order locations were first reported. */
function bestPerLocation(problems: readonly SchemaProblem[]): SchemaProblem[] {
  const best = new Map<string, SchemaProblem>();
  for (const problem of problems) {
    const current = best.get(problem.pointer);
    if (current === undefined || (RANK[problem.keyword] ?? 5) < (RANK[current.keyword] ?? 5)) {
      best.set(problem.pointer, problem);
    }
  }
  return [...best.values()];
}

/** Whether `path` is one of `ancestors` or lies under one (pointer tokens never hold a raw `/`). */
function isWithinAny(path: string, ancestors: ReadonlySet<string>): boolean {
  if (ancestors.size === 0) return false;
  for (let end = path.length; end >= 0; end = path.lastIndexOf('/', end - 1)) {
    if (ancestors.has(path.slice(0, end))) return true;
    if (end === 0) break;
  }
  return false;
}

function constOf(schema: unknown): unknown {
  if (typeof schema === 'object' && schema !== null && 'const' in schema)
    return (schema as { const: unknown }).const;
  return undefined;
}

/** A short rendering of an untrusted value for messages (never throws, whatever the value is). */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') {
    const text = JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value);
    return text;
  }
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return typeof value === 'undefined' ? 'nothing' : `a ${typeof value}`;
}

function withArticle(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
