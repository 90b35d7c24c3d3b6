/**
 * AWP's type system (§8) and its mapping onto JSON Schema, both ways.
 *
 * A type string is parsed once into a small tree (`AwpType`) that maps to a schema; a schema maps back to the
 * nearest tree, which prints as a type string. Named custom types (`airport_code`) become strings annotated with
 * `x-awp-type`; entity references become the entity's schema inlined and annotated with `x-awp-entity`, so that a
 * validator needs no `$ref` resolution and the name survives the trip back.
 */
import { isObject } from '../../json/values.js';
import type { JsonObject, JsonValue } from '../../model/agent.js';
import { AgentryError } from '../../protocol/errors.js';

export type PrimitiveName = 'string' | 'integer' | 'float' | 'boolean' | 'ISO8601' | 'url';

export type AwpType =
  | { kind: 'primitive'; name: PrimitiveName }
  /** `enum[a, b]`: one of a set of strings. */
  | { kind: 'enum'; values: string[] }
  /** `array[T]`, or a bare `array` whose items are unconstrained. */
  | { kind: 'array'; items?: AwpType }
  /** `object[entity]`, or a bare `object` that is no entity. */
  | { kind: 'object'; entity?: string }
  /** A named custom type such as `airport_code`: a string with a meaning the name gives. */
  | { kind: 'named'; name: string };

export type TypeParse =
  /** `notes` name tolerated spellings (`iso8601`, `number`), for warnings. */
  { ok: true; type: AwpType; notes: string[] } | { ok: false; message: string };

/** Tells whether a name is a declared entity (a `Set` of names will do). */
export interface EntityNames {
  has(name: string): boolean;
}

/** Entities as the type mapping needs them: which names exist, and each one's schema to inline. */
export interface EntityScope extends EntityNames {
  /** A fresh copy of the entity's schema (callers may keep or change it). */
  inline(name: string): JsonObject;
}

const PRIMITIVE_SCHEMAS: Readonly<Record<PrimitiveName, Readonly<JsonObject>>> = {
  string: { type: 'string' },
  integer: { type: 'integer' },
  float: { type: 'number' },
  boolean: { type: 'boolean' },
  ISO8601: { type: 'string', format: 'date-time' },
  url: { type: 'string', format: 'uri' },
};

/** Lower-cased spelling → primitive, so that `iso8601` or `Integer` read (with a note) as the spec's types. */
const PRIMITIVES_BY_LOWER_NAME: ReadonlyMap<string, PrimitiveName> = new Map(
  (Object.keys(PRIMITIVE_SCHEMAS) as PrimitiveName[]).map((name) => [name.toLowerCase(), name]),
);
/** Spellings outside the spec's table that unambiguously mean one of its types. */
const PRIMITIVE_ALIASES: ReadonlyMap<string, PrimitiveName> = new Map([['number', 'float']]);
const BRACKET_TYPES: ReadonlySet<string> = new Set(['enum', 'array', 'object']);

/** Names a custom type may not take, because they already mean something (compared lower-cased). */
const RESERVED_NAMES: ReadonlySet<string> = new Set([
  ...PRIMITIVES_BY_LOWER_NAME.keys(),
  ...PRIMITIVE_ALIASES.keys(),
  ...BRACKET_TYPES,
]);

const IDENTIFIER = /[A-Za-z_][A-Za-z0-9_.-]*/y;
const IDENTIFIER_WHOLE = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
/** An enum value `enum[...]` can write back: no separators, brackets or surrounding space or quotes. */
const WRITABLE_ENUM_VALUE = /^[^\s,[\]"'](?:[^,[\]]*[^\s,[\]"'])?$/;

/** Results for the plain primitive names, the common case, so they are parsed once per process. */
const PLAIN_PRIMITIVES: ReadonlyMap<string, TypeParse> = new Map(
  (Object.keys(PRIMITIVE_SCHEMAS) as PrimitiveName[]).map((name): [string, TypeParse] => [
    name,
    { ok: true, type: Object.freeze({ kind: 'primitive', name }), notes: [] },
  ]),
);

/**
 * Results for type strings seen before. Documents repeat a handful of types, so a small cache saves re-parsing;
 * it is emptied when full, so hostile input cannot grow it. Cached trees are shared: nothing may change them.
 */
const parsedTypes = new Map<string, TypeParse>();
const PARSED_TYPES_LIMIT = 512;

/** Parses an AWP type string (`string`, `enum[a, b]`, `array[flight]`, `object[flight]`, `airport_code`). */
export function parseAwpType(text: string): TypeParse {
  const known = PLAIN_PRIMITIVES.get(text) ?? parsedTypes.get(text);
  if (known !== undefined) return known;
  const result = parseUncached(text);
  if (parsedTypes.size >= PARSED_TYPES_LIMIT) parsedTypes.clear();
  parsedTypes.set(text, result);
  return result;
}

function parseUncached(text: string): TypeParse {
  const parser = new TypeParser(text);
  try {
    const type = parser.type();
    parser.skipSpace();
    if (!parser.atEnd()) parser.fail(`unexpected "${parser.rest()}" after the type`);
    return { ok: true, type, notes: parser.notes };
  } catch (error) {
    if (error instanceof TypeSyntaxError) return { ok: false, message: error.message };
    throw error;
  }
}

class TypeSyntaxError extends AgentryError {}

class TypeParser {
  readonly notes: string[] = [];
  private position = 0;

  constructor(private readonly text: string) {}

  type(): AwpType {
    this.skipSpace();
    const name = this.identifier();
    this.skipSpace();
    if (this.text[this.position] === '[') {
      this.position++;
      return this.bracketType(name);
    }
    return this.plainType(name);
  }

  private bracketType(name: string): AwpType {
    let type: AwpType;
    if (name === 'enum') {
      type = { kind: 'enum', values: this.enumValues() };
    } else if (name === 'array') {
      type = { kind: 'array', items: this.type() };
    } else if (name === 'object') {
      this.skipSpace();
      type = { kind: 'object', entity: this.identifier() };
    } else {
      this.fail(`"${name}[…]" is not an AWP type; only enum[…], array[…] and object[…] take brackets`);
    }
    this.skipSpace();
    if (this.text[this.position] !== ']') this.fail(`"${name}[" is not closed with "]"`);
    this.position++;
    return type;
  }

  private plainType(name: string): AwpType {
    if (name === 'enum') this.fail('"enum" needs its values, as in enum[a, b]');
    if (name === 'array') return { kind: 'array' };
    if (name === 'object') return { kind: 'object' };
    const lower = name.toLowerCase();
    const primitive = PRIMITIVES_BY_LOWER_NAME.get(lower) ?? PRIMITIVE_ALIASES.get(lower);
    if (primitive === undefined) return { kind: 'named', name };
    if (primitive !== name) this.notes.push(`"${name}" is read as "${primitive}"`);
    return { kind: 'primitive', name: primitive };
  }

  private enumValues(): string[] {
    const close = this.text.indexOf(']', this.position);
    if (close < 0) this.fail('"enum[" is not closed with "]"');
    const values = this.text
      .slice(this.position, close)
      .split(',')
      .map((value) => unquote(value.trim()));
    this.position = close;
    values.forEach((value, index) => {
      if (value === '') this.fail(`value ${index + 1} of the enum is empty`);
    });
    return values;
  }

  private identifier(): string {
    IDENTIFIER.lastIndex = this.position;
    const match = IDENTIFIER.exec(this.text);
    if (match === null) {
      this.fail(this.atEnd() ? 'a type name is missing' : `expected a type name at "${this.rest()}"`);
    }
    this.position += match[0].length;
    return match[0];
  }

  skipSpace(): void {
    while (this.position < this.text.length && /\s/.test(this.text[this.position]!)) this.position++;
  }

  atEnd(): boolean {
    return this.position >= this.text.length;
  }

  rest(): string {
    return this.text.slice(this.position);
  }

  fail(message: string): never {
    throw new TypeSyntaxError(message);
  }
}

function unquote(value: string): string {
  const first = value[0];
  if (value.length >= 2 && (first === '"' || first === "'") && value.at(-1) === first)
    return value.slice(1, -1);
  return value;
}

/** The type written as AWP writes it: `array[flight]` rather than `array[object[flight]]`. */
export function formatAwpType(type: AwpType): string {
  switch (type.kind) {
    case 'primitive':
      return type.name;
    case 'enum':
      return `enum[${type.values.join(', ')}]`;
    case 'array':
      if (type.items === undefined) return 'array';
      if (type.items.kind === 'object' && type.items.entity !== undefined)
        return `array[${type.items.entity}]`;
      return `array[${formatAwpType(type.items)}]`;
    case 'object':
      return type.entity === undefined ? 'object' : `object[${type.entity}]`;
    case 'named':
      return type.name;
  }
}

/** The JSON Schema of a type; entity references are inlined from `entities`. */
export function awpTypeToSchema(type: AwpType, entities: EntityScope): JsonObject {
  switch (type.kind) {
    case 'primitive':
      return { ...PRIMITIVE_SCHEMAS[type.name] };
    case 'enum':
      return { type: 'string', enum: [...type.values] };
    case 'array': {
      if (type.items === undefined) return { type: 'array' };
      // Inside array[…] a bare name is an entity when one is declared (`array[flight]`), else a custom type.
      const items =
        type.items.kind === 'named' && entities.has(type.items.name)
          ? entities.inline(type.items.name)
          : awpTypeToSchema(type.items, entities);
      return { type: 'array', items };
    }
    case 'object':
      return type.entity === undefined ? { type: 'object' } : entities.inline(type.entity);
    case 'named':
      return { type: 'string', 'x-awp-type': type.name };
  }
}

/** Entities a type names with `object[…]` that are not declared (array items fall back to custom types). */
export function unknownEntities(type: AwpType, entities: EntityNames): string[] {
  if (type.kind === 'object' && type.entity !== undefined && !entities.has(type.entity)) return [type.entity];
  if (type.kind === 'array' && type.items !== undefined) return unknownEntities(type.items, entities);
  return [];
}

/**
 * The AWP type nearest to a schema. Exact for every schema `awpTypeToSchema` produces; for others (a `minLength`,
 * an object that is no entity, a union) callers map the result back and compare to learn what was lost.
 */
export function schemaToAwpType(schema: JsonValue | undefined, entities: EntityNames): AwpType {
  if (!isObject(schema)) return { kind: 'primitive', name: 'string' };
  const entity = schema['x-awp-entity'];
  if (typeof entity === 'string' && IDENTIFIER_WHOLE.test(entity) && entities.has(entity)) {
    return { kind: 'object', entity };
  }
  switch (primaryType(schema['type'])) {
    case 'string':
      return stringType(schema);
    case 'integer':
      return { kind: 'primitive', name: 'integer' };
    case 'number':
      return { kind: 'primitive', name: 'float' };
    case 'boolean':
      return { kind: 'primitive', name: 'boolean' };
    case 'array':
      return arrayType(schema, entities);
    case 'object':
      return { kind: 'object' };
    case undefined:
      if (schema['enum'] !== undefined || schema['x-awp-type'] !== undefined) return stringType(schema);
      if (schema['properties'] !== undefined) return { kind: 'object' };
      if (schema['items'] !== undefined) return arrayType(schema, entities);
      return { kind: 'primitive', name: 'string' };
    default:
      return { kind: 'primitive', name: 'string' };
  }
}

function arrayType(schema: JsonObject, entities: EntityNames): AwpType {
  const items = schema['items'];
  return isObject(items) ? { kind: 'array', items: schemaToAwpType(items, entities) } : { kind: 'array' };
}

function stringType(schema: JsonObject): AwpType {
  const values = schema['enum'];
  if (Array.isArray(values) && values.length > 0 && values.every(isWritableEnumValue)) {
    return { kind: 'enum', values: values as string[] };
  }
  const name = schema['x-awp-type'];
  if (typeof name === 'string' && isCustomTypeName(name)) return { kind: 'named', name };
  const format = schema['format'];
  if (format === 'date-time') return { kind: 'primitive', name: 'ISO8601' };
  if (format === 'uri') return { kind: 'primitive', name: 'url' };
  return { kind: 'primitive', name: 'string' };
}

function isWritableEnumValue(value: JsonValue): boolean {
  return typeof value === 'string' && WRITABLE_ENUM_VALUE.test(value);
}

/** True when `name` can be written as a custom type and read back as one. */
export function isCustomTypeName(name: string): boolean {
  return IDENTIFIER_WHOLE.test(name) && !RESERVED_NAMES.has(name.toLowerCase());
}

/** The one type of a schema: `type: "string"`, or the one non-null member of `type: ["string", "null"]`. */
function primaryType(type: JsonValue | undefined): string | undefined {
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) {
    const members = type.filter((member) => member !== 'null');
    if (members.length === 1 && typeof members[0] === 'string') return members[0];
    return members.length === 0 ? undefined : 'union';
  }
  return undefined;
}
