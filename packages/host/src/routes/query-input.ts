/**
 * The input of a `GET` call to a safe operation, from its query string, as our client encodes it (HTTP binding,
 * docs/invocation.md): scalars as text, arrays as repeated parameters, objects as JSON text. Text has no types, so
 * the operation's input schema says what each parameter is; a parameter the schema does not describe stays text.
 */
import { isObject, type JsonObject, type JsonSchema, type JsonValue } from '@agentry/core';

export function inputFromQuery(params: URLSearchParams, schema: JsonSchema | undefined): JsonObject {
  const properties = propertiesOf(schema);
  const out: JsonObject = {};
  for (const name of new Set(params.keys())) {
    const values = params.getAll(name);
    const property = Object.hasOwn(properties, name) ? properties[name] : undefined;
    const types = typesOf(property);
    if (types.has('array')) {
      const items = isObject(property) ? property['items'] : undefined;
      out[name] = values.map((value) => decode(value, typesOf(items)));
    } else {
      // A scalar given several times keeps the last value, as most servers do.
      out[name] = decode(values[values.length - 1]!, types);
    }
  }
  return out;
}

/** One parameter's text as the JSON type its schema names; text the type cannot read stays text (validation says why). */
function decode(text: string, types: ReadonlySet<string>): JsonValue {
  if ((types.has('integer') || types.has('number')) && /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(text)) {
    return Number(text);
  }
  if (types.has('boolean') && (text === 'true' || text === 'false')) return text === 'true';
  if (types.has('null') && text === 'null') return null;
  if (types.has('object') || types.has('array')) {
    try {
      const parsed = JSON.parse(text) as JsonValue;
      if (typeof parsed === 'object' && parsed !== null) return parsed;
    } catch {
      // Not JSON: left as text, and the schema check reports the type.
    }
  }
  return text;
}

function propertiesOf(schema: JsonSchema | undefined): Record<string, JsonValue> {
  if (!isObject(schema)) return {};
  const properties = schema['properties'];
  return isObject(properties) ? properties : {};
}

function typesOf(schema: JsonValue | JsonSchema | undefined): ReadonlySet<string> {
  if (!isObject(schema)) return new Set();
  const type = schema['type'];
  if (typeof type === 'string') return new Set([type]);
  if (Array.isArray(type)) return new Set(type.filter((item): item is string => typeof item === 'string'));
  return new Set();
}
