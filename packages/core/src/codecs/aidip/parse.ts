/** Reads AIDIP agent metadata (§3) into one canonical agent, checking what §3 and §9 require. */
import type { IssueCollector } from '../../issues.js';
import { ObjectReader } from '../../json/reader.js';
import { isObject } from '../../json/values.js';
import { checkSchemaDocument } from '../../json-schema/validator.js';
import type {
  Agent,
  JsonObject,
  JsonSchema,
  JsonValue,
  Operation,
  OperationExample,
} from '../../model/agent.js';
import type { ParseOptions } from '../codec.js';
import { nativeProvenance } from '../provenance.js';
import { slugify } from '../urls.js';
import { readAuthentication } from './auth.js';
import {
  AGENT_FIELDS,
  AUTHENTICATION_EXTRAS_KEY,
  DEFAULT_OPERATION,
  EXAMPLE_FIELDS,
  OPERATION_FIELDS,
  SECTION,
} from './fields.js';

export function parseAidip(document: unknown, issues: IssueCollector, options: ParseOptions): Agent[] {
  const reader = ObjectReader.of(document, '', issues, 'aidip', 'AIDIP agent metadata', SECTION.core);
  if (reader === undefined) return [];
  const idValue = reader.string('id');
  const name = reader.string('name', { required: true });
  const description = reader.string('description', { required: true });
  const version = reader.string('version');
  const publisher = reader.string('publisher');
  const capabilities = reader.stringArray('capabilities');
  const tags = reader.stringArray('tags');
  const endpoint = readEndpoint(reader, options);
  const languages = reader.stringArray('supported_languages');
  const authenticationReader = reader.child('authentication');
  const authentication = authenticationReader === undefined ? {} : readAuthentication(authenticationReader);
  const status = reader.string('status');
  const { operations, unusedTopLevel } = readOperations(reader);

  // The registry assigns ids to metadata registered without one (§4.2); until then the name stands in.
  const id = idValue !== undefined && idValue !== '' ? idValue : slugify(name ?? 'agent');
  const agent: Agent = {
    id,
    name: name ?? id,
    description: description ?? '',
    operations,
    bindings: endpoint === undefined ? [] : [{ kind: 'http', url: endpoint, method: 'POST' }],
    provenance: nativeProvenance('aidip', options),
  };
  if (version !== undefined) agent.version = version;
  if (publisher !== undefined) agent.publisher = { name: publisher };
  if (capabilities !== undefined) agent.capabilities = capabilities;
  if (tags !== undefined) agent.tags = tags;
  if (languages !== undefined) agent.languages = languages;
  if (status !== undefined) agent.status = { state: status };
  if (authentication.auth !== undefined) agent.auth = authentication.auth;

  let extensions = reader.rest(AGENT_FIELDS);
  if (unusedTopLevel !== undefined) extensions = { ...extensions, ...unusedTopLevel };
  if (authentication.extras !== undefined) {
    extensions = { ...extensions, [AUTHENTICATION_EXTRAS_KEY]: authentication.extras };
  }
  if (extensions !== undefined) agent.extensions = { aidip: extensions };
  return [agent];
}

/** The invocation endpoint, absolute; TLS is required for all invocation traffic (§9). */
function readEndpoint(reader: ObjectReader, options: ParseOptions): string | undefined {
  const endpoint = reader.text('endpoint');
  if (endpoint === undefined || endpoint.trim() === '') return undefined;
  let url = endpoint;
  if (!URL.canParse(endpoint)) {
    // A gateway path such as /agents/{id}/invoke (§3.1) is relative to where the metadata was read.
    if (options.sourceUrl !== undefined && URL.canParse(endpoint, options.sourceUrl)) {
      url = new URL(endpoint, options.sourceUrl).href;
    } else {
      reader.issues.warning(
        reader.at('endpoint'),
        'aidip.endpoint.relative',
        `"endpoint" "${endpoint}" is not an absolute URL and there is no document URL to resolve it against.`,
        SECTION.core,
      );
      return endpoint;
    }
  }
  if (new URL(url).protocol !== 'https:') {
    reader.issues.error(
      reader.at('endpoint'),
      'aidip.endpoint.insecure',
      `"endpoint" must be an https URL: AIDIP requires TLS for all invocation traffic; got "${endpoint}".`,
      SECTION.security,
    );
  }
  return url;
}

interface ReadOperations {
  operations: Operation[];
  /** Top-level `inputs`/`outputs` beside an `operations` array: not used, but kept. */
  unusedTopLevel?: JsonObject;
}

function readOperations(reader: ObjectReader): ReadOperations {
  const list = reader.array('operations');
  const hasTopLevel = reader.has('inputs') || reader.has('outputs');
  if (list !== undefined && list.length > 0) {
    const out: ReadOperations = { operations: readOperationList(reader, list) };
    if (hasTopLevel) {
      reader.issues.warning(
        reader.has('inputs') ? reader.at('inputs') : reader.at('outputs'),
        'aidip.io.ignored',
        'Top-level "inputs"/"outputs" are ignored because the agent lists "operations"; describe each operation\'s schemas there.',
        SECTION.operations,
      );
      const unused: JsonObject = {};
      for (const key of ['inputs', 'outputs']) {
        const value = reader.raw(key);
        if (value !== undefined) unused[key] = value;
      }
      out.unusedTopLevel = unused;
    }
    return out;
  }
  if (hasTopLevel) {
    // The simple style: the agent has one implied operation (§3.2).
    const op: Operation = { name: DEFAULT_OPERATION };
    const input = readSchema(reader, 'inputs');
    const output = readSchema(reader, 'outputs');
    if (input !== undefined) op.input = input;
    if (output !== undefined) op.output = output;
    return { operations: [op] };
  }
  reader.issues.error(
    list === undefined ? '' : reader.at('operations'),
    'aidip.io.missing',
    'The agent must describe its inputs and outputs: list "operations" (each with "inputs" and "outputs" schemas), or give top-level "inputs" and "outputs".',
    SECTION.operations,
  );
  return { operations: [] };
}

function readOperationList(reader: ObjectReader, list: JsonValue[]): Operation[] {
  const operations: Operation[] = [];
  const seen = new Set<string>();
  list.forEach((value, index) => {
    const op = ObjectReader.of(
      value,
      reader.at('operations') + `/${index}`,
      reader.issues,
      'aidip',
      'An operation',
      SECTION.operations,
    );
    if (op === undefined) return;
    const name = op.text('name', { required: true });
    const description = op.string('description', { required: true, lenient: true });
    const input = readSchema(op, 'inputs');
    const output = readSchema(op, 'outputs');
    const examples = readExamples(op);
    if (name === undefined) return;
    if (seen.has(name)) {
      reader.issues.error(
        op.at('name'),
        'aidip.operation-name.duplicate',
        `Operation "${name}" is listed twice; operation names identify operations and must be unique.`,
        SECTION.operations,
      );
      return;
    }
    seen.add(name);
    const operation: Operation = { name };
    if (description !== undefined) operation.description = description;
    if (input !== undefined) operation.input = input;
    if (output !== undefined) operation.output = output;
    if (examples !== undefined) operation.examples = examples;
    const unknown = op.rest(OPERATION_FIELDS);
    if (unknown !== undefined) operation.extensions = { aidip: unknown };
    operations.push(operation);
  });
  return operations;
}

/** A required `inputs`/`outputs` JSON Schema: every agent MUST describe its input and output formats (§3.2). */
function readSchema(reader: ObjectReader, key: 'inputs' | 'outputs'): JsonSchema | undefined {
  const value = reader.raw(key);
  if (value === undefined) {
    reader.issues.error(
      reader.at(key),
      'aidip.missing-field',
      `Missing required field "${key}": the agent must describe its ${key === 'inputs' ? 'input' : 'output'} format as a JSON Schema.`,
      SECTION.operations,
    );
    return undefined;
  }
  const valid = checkSchemaDocument(value, reader.at(key), reader.issues, {
    codePrefix: 'aidip',
    section: SECTION.operations,
    what: `"${key}"`,
  });
  // A schema with errors inside is still kept, so that a partial agent shows what was written.
  return valid || isObject(value) ? (value as JsonSchema) : undefined;
}

function readExamples(op: ObjectReader): OperationExample[] | undefined {
  const list = op.array('examples');
  if (list === undefined) return undefined;
  const examples: OperationExample[] = [];
  list.forEach((value, index) => {
    const example = ObjectReader.of(value, op.at('examples') + `/${index}`, op.issues, 'aidip', 'An example');
    if (example === undefined) return;
    const unknown = example.rest(EXAMPLE_FIELDS);
    if (unknown !== undefined) {
      example.issues.warning(
        example.pointer,
        'aidip.example.unknown-field',
        `Example fields other than "input" and "output" are not kept: ${Object.keys(unknown).join(', ')}.`,
        SECTION.operations,
      );
    }
    const out: OperationExample = {};
    const input = example.raw('input');
    const output = example.raw('output');
    if (input !== undefined) out.input = input;
    if (output !== undefined) out.output = output;
    examples.push(out);
  });
  return examples;
}
