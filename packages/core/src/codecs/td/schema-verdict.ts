/**
 * A JSON Schema compiled to a function that only answers "valid or not", with Ajv's semantics (as configured for the
 * TD schema: draft-07, `strict: false`, no coercion, no defaults, Ajv's own type checks, `fast-deep-equal` for
 * `enum`/`const`/`uniqueItems`, and the very format functions Ajv is given).
 *
 * Why: the official TD schema is full of unions (security schemes, `@type`, `op`, data schema `items`...), and Ajv,
 * asked for every error with its data and schema (which the error explanations need), builds an error object for
 * each failed alternative of each union, and a path string for each nested value, even when the document is valid.
 * That is most of its cost on valid documents. A verdict costs none of it; only documents it rejects go through Ajv,
 * which stays the judge of what is wrong, so the issues reported are exactly Ajv's.
 *
 * Only the keywords the TD schema uses are supported; any other keyword (or a `$ref` other than
 * `#/definitions/...`) makes `compileVerdict` return undefined, and then every document goes through Ajv.
 */

export type Verdict = (data: unknown) => boolean;

/** A format as Ajv holds it: a RegExp, a function, or `{ type?, validate, async? }`; `true` means "ignore". */
export type FormatLookup = (name: string) => unknown;

export interface VerdictOptions {
  /** The formats Ajv validates with, by name (undefined: unknown format). */
  format: FormatLookup;
  /** The deep equality Ajv uses (`ajv/dist/runtime/equal`, i.e. fast-deep-equal). */
  equal: (a: unknown, b: unknown) => boolean;
}

class Unsupported extends Error {}

/** Annotations and keywords Ajv ignores here (no vocabulary, or `strict: false` lets unknown ones pass). */
const IGNORED = new Set([
  '$comment',
  '$schema',
  'title',
  'description',
  'examples',
  'default',
  'readOnly',
  'writeOnly',
  'version',
]);
const OBJECT_KEYWORDS = new Set(['properties', 'required', 'additionalProperties', 'minProperties']);
const ARRAY_KEYWORDS = new Set(['items', 'additionalItems', 'minItems', 'maxItems', 'uniqueItems']);
const NUMBER_LIMITS: Readonly<Record<string, string>> = {
  // Ajv's failure conditions (`vocabularies/validation/limitNumber`).
  minimum: '<',
  maximum: '>',
  exclusiveMinimum: '<=',
  exclusiveMaximum: '>=',
};
const ANY_KEYWORDS = new Set(['$ref', 'type', 'enum', 'const', 'not', 'allOf', 'anyOf', 'oneOf']);
const STRING_KEYWORDS = new Set(['pattern', 'format']);

/** Compiles `root`; undefined when it uses something the verdict does not implement. */
export function compileVerdict(root: unknown, options: VerdictOptions): Verdict | undefined {
  try {
    return new Generator(root, options).compile();
  } catch (error) {
    if (error instanceof Unsupported) return undefined;
    throw error;
  }
}

class Generator {
  private readonly functions: string[] = [];
  private readonly refs = new Map<string, string>();
  private readonly pending: Array<{ name: string; schema: unknown }> = [];
  private readonly constants: unknown[] = [];
  private counter = 0;

  constructor(
    private readonly root: unknown,
    private readonly options: VerdictOptions,
  ) {}

  compile(): Verdict {
    const entry = this.functionFor(this.root);
    for (let next = this.pending.shift(); next !== undefined; next = this.pending.shift()) {
      this.functions.push(
        `function ${next.name}(d) {\n${this.block(next.schema, 'd', 'return false;', next.schema === this.root)}return true;\n}`,
      );
    }
    const source = `'use strict';\n${this.functions.join('\n')}\nreturn ${entry};`;
    // The source is built from the schema only (names and literals through JSON.stringify, everything else as
    // constants), never from the data being validated, as Ajv's own code generation does.
    const factory = new Function('c', 'eq', source) as (
      constants: unknown[],
      equal: VerdictOptions['equal'],
    ) => Verdict;
    return factory(this.constants, this.options.equal);
  }

  private functionFor(schema: unknown): string {
    const name = this.fresh('f');
    this.pending.push({ name, schema });
    return name;
  }

  private refFunction(ref: string): string {
    let name = this.refs.get(ref);
    if (name === undefined) {
      name = this.functionFor(this.resolve(ref));
      this.refs.set(ref, name);
    }
    return name;
  }

  private resolve(ref: string): unknown {
    const match = /^#\/definitions\/([^/]+)$/.exec(ref);
    if (match === null || !isSchemaObject(this.root)) throw new Unsupported(ref);
    const definitions = this.root['definitions'];
    let name: string;
    try {
      name = decodeURIComponent(match[1]!).replaceAll('~1', '/').replaceAll('~0', '~');
    } catch {
      throw new Unsupported(ref);
    }
    if (!isSchemaObject(definitions) || !Object.hasOwn(definitions, name)) throw new Unsupported(ref);
    return definitions[name];
  }

  private constant(value: unknown): string {
    this.constants.push(value);
    return `c[${this.constants.length - 1}]`;
  }

  private fresh(prefix: string): string {
    return `${prefix}${++this.counter}`;
  }

  /** Statements that run `fail` when the value in variable `d` does not satisfy `schema`. */
  private block(schema: unknown, d: string, fail: string, isRoot = false): string {
    if (schema === true) return '';
    if (schema === false) return `${fail}\n`;
    if (!isSchemaObject(schema)) throw new Unsupported('schema');
    let out = '';
    let objectPart = '';
    let arrayPart = '';
    let stringPart = '';
    let numberPart = '';
    for (const keyword of Object.keys(schema)) {
      const value = schema[keyword];
      if (IGNORED.has(keyword)) continue;
      if (isRoot && (keyword === '$id' || keyword === 'definitions')) continue;
      if (ANY_KEYWORDS.has(keyword)) out += this.anyKeyword(keyword, value, d, fail);
      else if (OBJECT_KEYWORDS.has(keyword))
        objectPart += this.objectKeyword(keyword, value, schema, d, fail);
      else if (ARRAY_KEYWORDS.has(keyword)) arrayPart += this.arrayKeyword(keyword, value, schema, d, fail);
      else if (STRING_KEYWORDS.has(keyword)) {
        const part = this.stringKeyword(keyword, value, d, fail);
        if (keyword === 'format' && part.type === 'number') numberPart += part.code;
        else stringPart += part.code;
      } else if (Object.hasOwn(NUMBER_LIMITS, keyword)) {
        if (typeof value !== 'number') throw new Unsupported(keyword);
        numberPart += `if (${d} ${NUMBER_LIMITS[keyword]} ${value} || isNaN(${d})) ${fail}\n`;
      } else throw new Unsupported(keyword);
    }
    // Ajv applies each group of keywords only to values of its type (`strictNumbers` is off with `strict: false`).
    if (objectPart !== '')
      out += `if (${d} && typeof ${d} == "object" && !Array.isArray(${d})) {\n${objectPart}}\n`;
    if (arrayPart !== '') out += `if (Array.isArray(${d})) {\n${arrayPart}}\n`;
    if (stringPart !== '') out += `if (typeof ${d} == "string") {\n${stringPart}}\n`;
    if (numberPart !== '') out += `if (typeof ${d} == "number") {\n${numberPart}}\n`;
    return out;
  }

  private anyKeyword(keyword: string, value: unknown, d: string, fail: string): string {
    switch (keyword) {
      case '$ref':
        if (typeof value !== 'string') throw new Unsupported(keyword);
        return `if (!${this.refFunction(value)}(${d})) ${fail}\n`;
      case 'type':
        return `if (!(${typeCondition(value, d)})) ${fail}\n`;
      case 'enum': {
        if (!Array.isArray(value) || value.length === 0) throw new Unsupported(keyword);
        return `if (!(${value.map((item) => this.equalTo(d, item)).join(' || ')})) ${fail}\n`;
      }
      case 'const':
        return `if (!(${this.equalTo(d, value)})) ${fail}\n`;
      case 'not': {
        const label = this.fresh('L');
        return `${label}: {\n${this.block(value, d, `break ${label};`)}${fail}\n}\n`;
      }
      case 'allOf':
        return this.list(keyword, value)
          .map((sub) => this.block(sub, d, fail))
          .join('');
      case 'anyOf': {
        const ok = this.fresh('ok');
        let code = `{\nlet ${ok} = false;\n`;
        this.list(keyword, value).forEach((sub, index) => {
          const label = this.fresh('L');
          const body = `${label}: {\n${this.block(sub, d, `break ${label};`)}${ok} = true;\n}\n`;
          code += index === 0 ? body : `if (!${ok}) {\n${body}}\n`;
        });
        return `${code}if (!${ok}) ${fail}\n}\n`;
      }
      case 'oneOf': {
        const count = this.fresh('n');
        let code = `{\nlet ${count} = 0;\n`;
        for (const sub of this.list(keyword, value)) {
          const label = this.fresh('L');
          code += `${label}: {\n${this.block(sub, d, `break ${label};`)}${count}++;\n}\n`;
        }
        return `${code}if (${count} !== 1) ${fail}\n}\n`;
      }
    }
    throw new Unsupported(keyword);
  }

  private objectKeyword(
    keyword: string,
    value: unknown,
    schema: Record<string, unknown>,
    d: string,
    fail: string,
  ): string {
    switch (keyword) {
      case 'required': {
        if (!Array.isArray(value) || !value.every((name) => typeof name === 'string'))
          throw new Unsupported(keyword);
        if (value.length === 0) return '';
        return `if (${value.map((name) => `${d}[${JSON.stringify(name)}] === undefined`).join(' || ')}) ${fail}\n`;
      }
      case 'minProperties':
        if (typeof value !== 'number') throw new Unsupported(keyword);
        return `if (Object.keys(${d}).length < ${value}) ${fail}\n`;
      case 'properties': {
        if (!isSchemaObject(value)) throw new Unsupported(keyword);
        let code = '';
        const checked = propertyNames(value).filter((name) => !alwaysValid(value[name]));
        for (const name of checked) {
          const v = this.fresh('v');
          code += `{\nconst ${v} = ${d}[${JSON.stringify(name)}];\nif (${v} !== undefined) {\n${this.block(value[name], v, fail)}}\n}\n`;
        }
        if (checked.length <= 8 || checked.some((name) => name in Object.prototype)) return code;
        const k = this.fresh('k');
        const v = this.fresh('v');
        let cases = '';
        for (const name of checked)
          cases += `case ${JSON.stringify(name)}: {\n${this.block(value[name], v, fail)}break;\n}\n`;
        const byKeys = `for (const ${k} in ${d}) {\nconst ${v} = ${d}[${k}];\nif (${v} === undefined) continue;\nswitch (${k}) {\n${cases}}\n}\n`;
        return `if (Object.getPrototypeOf(${d}) === Object.prototype) {\n${byKeys}} else {\n${code}}\n`;
      }
      case 'additionalProperties': {
        if (alwaysValid(value)) return '';
        if (schema['patternProperties'] !== undefined) throw new Unsupported('patternProperties');
        const defined = isSchemaObject(schema['properties']) ? propertyNames(schema['properties']) : [];
        const k = this.fresh('k');
        const isDefined =
          defined.length === 0
            ? 'false'
            : defined.length > 8
              ? `${this.constant(new Set(defined))}.has(${k})`
              : defined.map((name) => `${k} === ${JSON.stringify(name)}`).join(' || ');
        if (value === false) return `for (const ${k} in ${d}) {\nif (!(${isDefined})) ${fail}\n}\n`;
        const v = this.fresh('v');
        return `for (const ${k} in ${d}) {\nif (${isDefined}) continue;\nconst ${v} = ${d}[${k}];\n${this.block(value, v, fail)}}\n`;
      }
    }
    throw new Unsupported(keyword);
  }

  private arrayKeyword(
    keyword: string,
    value: unknown,
    schema: Record<string, unknown>,
    d: string,
    fail: string,
  ): string {
    switch (keyword) {
      case 'minItems':
      case 'maxItems':
        if (typeof value !== 'number') throw new Unsupported(keyword);
        return `if (${d}.length ${keyword === 'minItems' ? '<' : '>'} ${value}) ${fail}\n`;
      case 'uniqueItems': {
        if (typeof value !== 'boolean') throw new Unsupported(keyword);
        if (!value) return '';
        const i = this.fresh('i');
        const j = this.fresh('j');
        return `for (let ${i} = ${d}.length; ${i}-- > 1;) {\nfor (let ${j} = ${i}; ${j}--;) {\nif (eq(${d}[${i}], ${d}[${j}])) ${fail}\n}\n}\n`;
      }
      case 'items': {
        if (Array.isArray(value)) {
          let code = '';
          value.forEach((sub, index) => {
            if (alwaysValid(sub)) return;
            const v = this.fresh('v');
            code += `if (${d}.length > ${index}) {\nconst ${v} = ${d}[${index}];\n${this.block(sub, v, fail)}}\n`;
          });
          return code;
        }
        if (alwaysValid(value)) return '';
        return this.loop(d, '0', value, fail);
      }
      case 'additionalItems': {
        // Ignored unless `items` is a tuple, as in Ajv.
        const items = schema['items'];
        if (!Array.isArray(items) || alwaysValid(value)) return '';
        if (value === false) return `if (${d}.length > ${items.length}) ${fail}\n`;
        return this.loop(d, String(items.length), value, fail);
      }
    }
    throw new Unsupported(keyword);
  }

  private stringKeyword(
    keyword: string,
    value: unknown,
    d: string,
    fail: string,
  ): { code: string; type: string } {
    if (typeof value !== 'string') throw new Unsupported(keyword);
    if (keyword === 'pattern') {
      // Ajv's default (`unicodeRegExp`): patterns are compiled with the "u" flag.
      return { code: `if (!${this.constant(new RegExp(value, 'u'))}.test(${d})) ${fail}\n`, type: 'string' };
    }
    const format = this.options.format(value);
    if (format === undefined || format === null || format === false) throw new Unsupported(`format ${value}`);
    if (format === true) return { code: '', type: 'string' };
    let type = 'string';
    let check: unknown = format;
    if (typeof format === 'object' && !(format instanceof RegExp)) {
      const definition = format as { type?: unknown; validate?: unknown; async?: unknown };
      if (definition.async) throw new Unsupported(`format ${value}`);
      type = typeof definition.type === 'string' ? definition.type : 'string';
      check = definition.validate;
    }
    if (type !== 'string' && type !== 'number') return { code: '', type };
    const ref = this.constant(check);
    if (typeof check === 'function') return { code: `if (!${ref}(${d})) ${fail}\n`, type };
    if (check instanceof RegExp) return { code: `if (!${ref}.test(${d})) ${fail}\n`, type };
    throw new Unsupported(`format ${value}`);
  }

  private loop(d: string, from: string, sub: unknown, fail: string): string {
    const i = this.fresh('i');
    const v = this.fresh('v');
    return `for (let ${i} = ${from}; ${i} < ${d}.length; ${i}++) {\nconst ${v} = ${d}[${i}];\n${this.block(sub, v, fail)}}\n`;
  }

  private list(keyword: string, value: unknown): unknown[] {
    if (!Array.isArray(value) || value.length === 0) throw new Unsupported(keyword);
    return value;
  }

  /** Ajv's equality: `===` against a primitive (what fast-deep-equal amounts to there), deep equality otherwise. */
  private equalTo(d: string, value: unknown): string {
    if (value === null || typeof value === 'string' || typeof value === 'boolean') {
      return `${d} === ${JSON.stringify(value)}`;
    }
    if (typeof value === 'number' && Number.isFinite(value)) return `${d} === ${JSON.stringify(value)}`;
    return `eq(${d}, ${this.constant(value)})`;
  }
}

/** Ajv's type checks (`compile/validate/dataType`, `strictNumbers` off). */
function typeCondition(type: unknown, d: string): string {
  const types = typeof type === 'string' ? [type] : type;
  if (!Array.isArray(types) || types.length === 0) throw new Unsupported('type');
  return types
    .map((name) => {
      switch (name) {
        case 'null':
          return `${d} === null`;
        case 'array':
          return `Array.isArray(${d})`;
        case 'object':
          return `(${d} && typeof ${d} == "object" && !Array.isArray(${d}))`;
        case 'integer':
          return `(typeof ${d} == "number" && !(${d} % 1) && !isNaN(${d}))`;
        case 'number':
        case 'string':
        case 'boolean':
          return `typeof ${d} == "${name}"`;
        default:
          throw new Unsupported(`type ${String(name)}`);
      }
    })
    .join(' || ');
}

/** The property names Ajv checks (`allSchemaProperties`: all but `__proto__`). */
function propertyNames(properties: Record<string, unknown>): string[] {
  return Object.keys(properties).filter((name) => name !== '__proto__');
}

/** A subschema every value satisfies: `true`, or an object with nothing but annotations. */
function alwaysValid(schema: unknown): boolean {
  if (schema === true) return true;
  return isSchemaObject(schema) && Object.keys(schema).every((key) => IGNORED.has(key));
}

function isSchemaObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
