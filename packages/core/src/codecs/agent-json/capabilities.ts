/** Capability descriptors (§7) ↔ canonical operations, behavioural metadata included. */
import type { IssueCollector } from '../../issues.js';
import { ObjectReader } from '../../json/reader.js';
import { isObject, setOwn } from '../../json/values.js';
import { checkSchemaDocument } from '../../json-schema/validator.js';
import type { JsonObject, JsonSchema, JsonValue, Operation } from '../../model/agent.js';
import { isShorthand, shorthandToSchema, typeNameSchema } from './shorthand.js';

export const CAPABILITY_FIELDS: ReadonlySet<string> = new Set([
  'name',
  'version',
  'description',
  'input',
  'output',
  'isDeterministic',
  'expectedOutputVariability',
  'responseLatency',
  'requiresContext',
  'memoryEnabled',
  'confidenceEstimation',
  'contentTypes',
  'tags',
]);
const CONTENT_TYPE_FIELDS: ReadonlySet<string> = new Set(['inputFormat', 'outputFormat']);
const LATENCY_CLASSES: ReadonlySet<string> = new Set(['low', 'medium', 'high']);

export function readCapability(
  value: unknown,
  pointer: string,
  issues: IssueCollector,
): Operation | undefined {
  const capability = ObjectReader.of(value, pointer, issues, 'agent-json', 'A capability', '§7');
  if (capability === undefined) return undefined;
  const name = capability.text('name', { required: true });
  const extension: JsonObject = capability.rest(CAPABILITY_FIELDS) ?? {};
  const operation: Operation = { name: name ?? '' };
  const version = readVersion(capability, 'version', issues);
  if (version !== undefined) operation.version = version;
  const description = capability.string('description');
  if (description !== undefined) operation.description = description;
  const input = readSchema(capability, 'input', issues);
  if (input !== undefined) operation.input = input;
  const output = readSchema(capability, 'output', issues);
  if (output !== undefined) operation.output = output;

  const deterministic = capability.boolean('isDeterministic');
  if (deterministic !== undefined) operation.deterministic = deterministic;
  const variability = capability.string('expectedOutputVariability');
  if (variability !== undefined) operation.outputVariability = variability;
  const latency = capability.string('responseLatency');
  if (latency !== undefined) {
    if (!LATENCY_CLASSES.has(latency)) {
      issues.warning(
        capability.at('responseLatency'),
        'agent-json.latency.unknown',
        `responseLatency "${latency}" is not one of low, medium, high.`,
        '§7',
      );
    }
    operation.latency = latency;
  }
  for (const [field, key] of [
    ['requiresContext', 'requiresContext'],
    ['memoryEnabled', 'memoryEnabled'],
    ['confidenceEstimation', 'confidenceEstimation'],
  ] as const) {
    const flag = capability.boolean(field);
    if (flag !== undefined) operation[key] = flag;
  }
  const contentTypes = capability.child('contentTypes');
  if (contentTypes !== undefined) {
    const inputModes = contentTypes.stringArray('inputFormat');
    if (inputModes !== undefined) operation.inputModes = inputModes;
    const outputModes = contentTypes.stringArray('outputFormat');
    if (outputModes !== undefined) operation.outputModes = outputModes;
    const rest = contentTypes.rest(CONTENT_TYPE_FIELDS);
    if (rest !== undefined) extension['contentTypes'] = rest;
  }
  const tags = capability.stringArray('tags');
  if (tags !== undefined) operation.tags = tags;
  if (Object.keys(extension).length > 0) operation.extensions = { 'agent-json': extension };
  return name === undefined ? undefined : operation;
}

/** A version string; numbers (`3.1`) are tolerated, since publishers write them unquoted. */
export function readVersion(reader: ObjectReader, key: string, issues: IssueCollector): string | undefined {
  const raw = reader.raw(key);
  if (typeof raw === 'number') {
    issues.warning(
      reader.at(key),
      'agent-json.version.number',
      `"${key}" is the number ${raw}; versions are strings (SemVer), so it is read as "${raw}".`,
      '§7',
    );
    return String(raw);
  }
  return reader.string(key);
}

/** A capability's input or output: a JSON Schema, the shorthand field → type map, or a bare type name. */
function readSchema(
  capability: ObjectReader,
  key: 'input' | 'output',
  issues: IssueCollector,
): JsonSchema | undefined {
  const value = capability.raw(key);
  if (value === undefined) return undefined;
  const pointer = capability.at(key);
  if (typeof value === 'string') return typeNameSchema(value, pointer, issues);
  if (isShorthand(value)) return shorthandToSchema(value, pointer, issues);
  const valid = checkSchemaDocument(value, pointer, issues, {
    codePrefix: 'agent-json',
    what: `Capability ${key}`,
    section: '§7',
  });
  return valid && (typeof value === 'boolean' || isObject(value)) ? value : undefined;
}

export interface WrittenCapability {
  capability: JsonObject;
  losses: Array<{ field: string; message: string }>;
}

export function writeCapability(operation: Operation): WrittenCapability {
  const losses: WrittenCapability['losses'] = [];
  const extension = operation.extensions?.['agent-json'] ?? {};
  const capability: JsonObject = { name: operation.name };
  const set = (key: string, value: JsonValue | undefined): void => {
    if (value !== undefined) capability[key] = value;
  };
  set('version', operation.version);
  set('description', operation.description);
  for (const key of ['input', 'output'] as const) {
    const schema = operation[key];
    set(key, schema);
    // A schema that looks like the shorthand map would be read as one, and come back changed.
    if (isShorthand(schema)) {
      losses.push({ field: key, message: `This ${key} schema would read back as the agent:// shorthand.` });
    }
  }
  set('isDeterministic', operation.deterministic);
  set('expectedOutputVariability', operation.outputVariability);
  set('responseLatency', operation.latency);
  set('requiresContext', operation.requiresContext);
  set('memoryEnabled', operation.memoryEnabled);
  set('confidenceEstimation', operation.confidenceEstimation);
  const contentExtra = isObject(extension['contentTypes']) ? extension['contentTypes'] : {};
  if (
    operation.inputModes !== undefined ||
    operation.outputModes !== undefined ||
    extension['contentTypes']
  ) {
    const contentTypes: JsonObject = { ...contentExtra };
    if (operation.inputModes !== undefined) contentTypes['inputFormat'] = [...operation.inputModes];
    if (operation.outputModes !== undefined) contentTypes['outputFormat'] = [...operation.outputModes];
    capability['contentTypes'] = contentTypes;
  }
  if (operation.tags !== undefined) capability['tags'] = [...operation.tags];
  let clashed = false;
  for (const [key, value] of Object.entries(extension)) {
    if (key === 'contentTypes') continue;
    if (CAPABILITY_FIELDS.has(key)) clashed = true;
    else setOwn(capability, key, value);
  }
  if (clashed) {
    losses.push({
      field: 'extensions.agent-json',
      message: 'Extension fields named like capability fields cannot be written beside them.',
    });
  }
  return { capability, losses };
}
