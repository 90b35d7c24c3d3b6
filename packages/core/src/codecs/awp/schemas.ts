/**
 * Action `inputs` and `outputs` (§9) as JSON Schemas, both ways. Inputs are parameter objects
 * (`{type, required, default, options, description}`) and become an object schema's properties and `required`
 * list; outputs are `{field: "type"}` and become properties. Writing goes through the nearest AWP types, so callers
 * read the result back (with the same functions) to learn whether the schema survived.
 */
import { ObjectReader } from '../../json/reader.js';
import { isObject, isStringArray, jsonEqual, setOwn } from '../../json/values.js';
import type { JsonObject, JsonSchema, JsonValue } from '../../model/agent.js';
import { pointerTo } from './pointers.js';
import { SECTION } from './rules.js';
import type { TypeReader } from './type-reader.js';
import { type EntityNames, formatAwpType, schemaToAwpType } from './types.js';

/** Reads an action's `inputs` into an object schema. */
export function readInputs(inputs: ObjectReader, types: TypeReader): JsonObject {
  const properties: JsonObject = {};
  const required: string[] = [];
  for (const name of Object.keys(inputs.value)) {
    const input = readInput(name, inputs.value[name], pointerTo(inputs.pointer, name), types);
    if (input === undefined) continue;
    setOwn(properties, name, input.schema);
    if (input.required) required.push(name);
  }
  const schema: JsonObject = { type: 'object', properties };
  if (required.length > 0) schema['required'] = required;
  return schema;
}

function readInput(
  name: string,
  value: JsonValue | undefined,
  pointer: string,
  types: TypeReader,
): { schema: JsonObject; required: boolean } | undefined {
  const issues = types.issues;
  let param = value;
  if (typeof param === 'string') {
    issues.warning(
      pointer,
      'awp.input.shorthand',
      `Input "${name}" is written as a bare type; write {"type": "${param}"} as the spec's input objects do.`,
      SECTION.actions,
    );
    param = { type: param };
  }
  const input = ObjectReader.of(param, pointer, issues, 'awp.input', `Input "${name}"`, SECTION.actions);
  if (input === undefined) return undefined;
  const typeText = input.text('type', { required: true });
  const required = input.boolean('required');
  const options = input.array('options');
  const description = input.string('description');
  let schema: JsonObject;
  if (typeText?.trim() === 'enum') {
    if (options === undefined || options.length === 0) {
      issues.error(
        input.at(options === undefined ? 'type' : 'options'),
        'awp.input.options-missing',
        `Input "${name}" is an enum but lists no "options"; add the values it accepts.`,
        SECTION.actions,
      );
    }
    schema = enumSchema(options ?? []);
  } else {
    schema = typeText === undefined ? {} : types.schema(typeText, () => input.at('type'));
    if (options !== undefined) schema['enum'] = options;
  }
  if (input.has('default')) {
    const fallback = input.raw('default')!;
    if (options !== undefined && !options.some((option) => jsonEqual(option, fallback))) {
      issues.warning(
        input.at('default'),
        'awp.input.default-not-an-option',
        `The default of input "${name}" is not one of its options.`,
        SECTION.actions,
      );
    }
    schema['default'] = fallback;
  }
  if (description !== undefined) schema['description'] = description;
  return { schema, required: required === true };
}

function enumSchema(options: JsonValue[]): JsonObject {
  return options.every((option) => typeof option === 'string')
    ? { type: 'string', enum: options }
    : { enum: options };
}

/** Reads an action's `outputs` into an object schema. */
export function readOutputs(outputs: ObjectReader, types: TypeReader): JsonObject {
  const properties: JsonObject = {};
  for (const field of Object.keys(outputs.value)) {
    const text = outputs.value[field];
    if (typeof text !== 'string') {
      types.issues.error(
        outputs.at(field),
        'awp.output.type',
        `Output "${field}" must be an AWP type string such as "string" or "array[flight]".`,
        SECTION.actions,
      );
      continue;
    }
    setOwn(
      properties,
      field,
      types.schema(text, () => outputs.at(field)),
    );
  }
  return { type: 'object', properties };
}

/** The `inputs` nearest to an object schema. */
export function writeInputs(schema: JsonSchema | undefined, entities: EntityNames): JsonObject {
  const inputs: JsonObject = {};
  if (!isObject(schema) || !isObject(schema['properties'])) return inputs;
  const required = new Set(isStringArray(schema['required']) ? schema['required'] : []);
  const properties = schema['properties'];
  for (const name of Object.keys(properties)) {
    setOwn(inputs, name, writeInput(properties[name], required.has(name), entities));
  }
  return inputs;
}

function writeInput(schema: JsonValue | undefined, required: boolean, entities: EntityNames): JsonObject {
  const { default: fallback, description, enum: values, ...rest } = isObject(schema) ? schema : {};
  const input: JsonObject = {};
  if (Array.isArray(values)) {
    // The `options` form carries any values, where enum[…] cannot write a comma or a number.
    const plainEnum = jsonEqual(rest, {}) || jsonEqual(rest, { type: 'string' });
    input['type'] = plainEnum ? 'enum' : formatAwpType(schemaToAwpType(rest, entities));
  } else {
    input['type'] = formatAwpType(schemaToAwpType(rest, entities));
  }
  if (required) input['required'] = true;
  if (fallback !== undefined) input['default'] = fallback;
  if (Array.isArray(values)) input['options'] = values;
  if (typeof description === 'string') input['description'] = description;
  return input;
}

/** The `outputs` (or entity `fields`) nearest to an object schema: one type string per property. */
export function writeFields(schema: JsonSchema | undefined, entities: EntityNames): JsonObject {
  const fields: JsonObject = {};
  if (!isObject(schema) || !isObject(schema['properties'])) return fields;
  const properties = schema['properties'];
  for (const name of Object.keys(properties)) {
    setOwn(fields, name, formatAwpType(schemaToAwpType(properties[name], entities)));
  }
  return fields;
}

/** Names of the properties whose schemas differ between two object schemas, for loss messages. */
export function changedProperties(before: JsonSchema | undefined, after: JsonSchema | undefined): string[] {
  const a = isObject(before) && isObject(before['properties']) ? before['properties'] : {};
  const b = isObject(after) && isObject(after['properties']) ? after['properties'] : {};
  return Object.keys(a).filter((name) => !jsonEqual(a[name], b[name]));
}
