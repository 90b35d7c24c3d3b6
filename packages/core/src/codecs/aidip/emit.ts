/** Writes one canonical agent as AIDIP agent metadata (§3), with the loss of every value that changes. */
import { IssueCollector } from '../../issues.js';
import { ObjectReader } from '../../json/reader.js';
import { isObject, jsonEqual, setOwn } from '../../json/values.js';
import { checkSchemaDocument } from '../../json-schema/validator.js';
import type {
  Agent,
  Binding,
  HttpBinding,
  JsonObject,
  JsonValue,
  Operation,
  OperationExample,
} from '../../model/agent.js';
import { encodeUriComponentSafe } from '../../uri-component.js';
import type { EmitOptions, Loss } from '../codec.js';
import type { EmitOne } from '../define.js';
import { isAbsoluteUrl, trimTrailingSlash } from '../urls.js';
import { readAuthentication, writeAuthentication } from './auth.js';
import { AGENT_FIELDS, AUTHENTICATION_EXTRAS_KEY, DEFAULT_OPERATION, OPERATION_FIELDS } from './fields.js';

const OBJECT_SCHEMA: JsonObject = { type: 'object' };

export function emitAidip(agent: Agent, options: EmitOptions): EmitOne {
  const issues = new IssueCollector('AIDIP');
  const losses: Loss[] = [];
  const lose = (field: string, message: string): void => {
    losses.push({ agent: agent.id, field, message });
  };

  const out: JsonObject = { id: agent.id, name: agent.name, description: agent.description };
  if (agent.version !== undefined) out['version'] = agent.version;
  if (agent.publisher !== undefined) {
    out['publisher'] = agent.publisher.name;
    if (agent.publisher.url !== undefined) {
      lose('publisher', `AIDIP names the publisher only; its URL ${agent.publisher.url} is not written.`);
    }
  }
  if (agent.capabilities !== undefined) out['capabilities'] = [...agent.capabilities];
  if (agent.tags !== undefined) out['tags'] = [...agent.tags];

  const endpoint = chooseEndpoint(agent, options, issues);
  if (endpoint !== undefined) out['endpoint'] = endpoint;
  reportBindingLosses(agent, endpoint, lose);

  if (agent.languages !== undefined) out['supported_languages'] = [...agent.languages];
  const extensions = agent.extensions?.['aidip'];
  const authentication = writeAuthentication(agent.auth, extensions?.[AUTHENTICATION_EXTRAS_KEY]);
  if (authentication !== undefined) out['authentication'] = authentication;
  const authReadBack = authentication === undefined ? {} : readAuthentication(scratchReader(authentication));
  reportAuthLosses(agent, authReadBack.auth, lose);
  if (agent.status?.state !== undefined) out['status'] = agent.status.state;

  if (isImpliedDefault(agent.operations)) {
    const op = agent.operations[0];
    out['inputs'] = op?.input ?? OBJECT_SCHEMA;
    out['outputs'] = op?.output ?? OBJECT_SCHEMA;
  } else {
    out['operations'] = agent.operations.map((op) => emitOperation(op, lose));
  }
  checkSchemas(out, issues);

  if (extensions !== undefined) {
    const readBack: JsonObject = {};
    for (const [key, value] of Object.entries(extensions)) {
      if (key === AUTHENTICATION_EXTRAS_KEY || Object.hasOwn(out, key)) continue;
      // Top-level inputs/outputs beside operations are read back as extensions; without operations they would not be.
      if (AGENT_FIELDS.has(key) && !((key === 'inputs' || key === 'outputs') && 'operations' in out))
        continue;
      setOwn(out, key, value);
      setOwn(readBack, key, value);
    }
    if (authReadBack.extras !== undefined) readBack[AUTHENTICATION_EXTRAS_KEY] = authReadBack.extras;
    if (!jsonEqual(extensions, Object.keys(readBack).length > 0 ? readBack : undefined)) {
      lose(
        'extensions.aidip',
        'Some AIDIP extension fields cannot be written back: they are named like AIDIP metadata fields.',
      );
    }
  }
  return { document: out, losses, issues: issues.issues };
}

/** A lone `default` operation with nothing but schemas is the top-level `inputs`/`outputs` style (§3.2). */
function isImpliedDefault(operations: readonly Operation[]): boolean {
  if (operations.length === 0) return true;
  if (operations.length > 1) return false;
  const op = operations[0]!;
  const extensions = op.extensions?.['aidip'];
  return (
    op.name === DEFAULT_OPERATION &&
    op.description === undefined &&
    op.examples === undefined &&
    (extensions === undefined || Object.keys(extensions).length === 0)
  );
}

function emitOperation(op: Operation, lose: (field: string, message: string) => void): JsonObject {
  // AIDIP operations always carry a description and both schemas; missing ones get stand-ins.
  const out: JsonObject = {
    name: op.name,
    description: op.description ?? op.title ?? op.name,
    inputs: op.input ?? OBJECT_SCHEMA,
    outputs: op.output ?? OBJECT_SCHEMA,
  };
  if (op.examples !== undefined) {
    const examples = op.examples.filter(hasPair).map(toAidipExample);
    if (examples.length > 0) out['examples'] = examples;
    const readBack = examples.length > 0 ? examples.map(fromAidipExample) : undefined;
    if (!jsonEqual(op.examples, readBack)) {
      lose(
        `operations[${op.name}].examples`,
        `AIDIP examples are input/output pairs; the plain-text examples of "${op.name}" are not written.`,
      );
    }
  }
  const extensions = op.extensions?.['aidip'];
  if (extensions !== undefined) {
    let readBack: JsonObject | undefined;
    for (const [key, value] of Object.entries(extensions)) {
      if (OPERATION_FIELDS.has(key)) continue;
      setOwn(out, key, value);
      readBack ??= {};
      setOwn(readBack, key, value);
    }
    if (!jsonEqual(extensions, readBack)) {
      lose(
        `operations[${op.name}].extensions.aidip`,
        `Extension fields of "${op.name}" named like AIDIP operation fields are not written.`,
      );
    }
  }
  return out;
}

/** Text-only examples have no AIDIP form. */
function hasPair(example: OperationExample): boolean {
  return example.text === undefined || example.input !== undefined || example.output !== undefined;
}

function toAidipExample(example: OperationExample): JsonObject {
  const out: JsonObject = {};
  if (example.input !== undefined) out['input'] = example.input;
  if (example.output !== undefined) out['output'] = example.output;
  return out;
}

function fromAidipExample(example: JsonObject): OperationExample {
  const out: OperationExample = {};
  const input: JsonValue | undefined = example['input'];
  const output: JsonValue | undefined = example['output'];
  if (input !== undefined) out.input = input;
  if (output !== undefined) out.output = output;
  return out;
}

/**
 * AIDIP has one `endpoint` taking the raw input by POST (§5.1): the https binding that serves every operation, or
 * the one of a single operation, or (with a base URL) where an Agentry host serves that operation.
 */
function chooseEndpoint(agent: Agent, options: EmitOptions, issues: IssueCollector): string | undefined {
  const names = agent.operations.map((op) => op.name);
  // Clients POST to the endpoint (§5.1), so bindings taking another method are not candidates.
  const usable = agent.bindings.filter(
    (binding): binding is HttpBinding =>
      binding.kind === 'http' && binding.method === 'POST' && isAbsoluteUrl(binding.url, ['https']),
  );
  const servesAll = usable.filter(
    (binding) =>
      binding.operations === undefined || names.every((name) => binding.operations!.includes(name)),
  );
  // With a single operation, its own binding serves "every operation" too.
  const chosen = leastChanged(servesAll);
  if (chosen !== undefined) return chosen.url;
  const only = names.length === 1 ? names[0]! : undefined;
  if (only === undefined || options.baseUrl === undefined) return undefined;
  if (!isAbsoluteUrl(options.baseUrl, ['https'])) {
    issues.warning(
      '/endpoint',
      'aidip.emit.endpoint',
      `No endpoint written: AIDIP requires TLS, and the base URL "${options.baseUrl}" is not an absolute https URL.`,
    );
    return undefined;
  }
  return `${trimTrailingSlash(options.baseUrl)}/agents/${encodeUriComponentSafe(agent.id)}/operations/${encodeUriComponentSafe(only)}`;
}

/** The binding that changes least when read back: unrestricted, with nothing AIDIP cannot say. */
function leastChanged(bindings: readonly HttpBinding[]): HttpBinding | undefined {
  const cost = (binding: HttpBinding): number =>
    (binding.operations === undefined ? 0 : 2) +
    (binding.contentType === undefined && binding.op === undefined && binding.security === undefined ? 0 : 1);
  let best: HttpBinding | undefined;
  for (const binding of bindings) if (best === undefined || cost(binding) < cost(best)) best = binding;
  return best;
}

function reportBindingLosses(
  agent: Agent,
  endpoint: string | undefined,
  lose: (field: string, message: string) => void,
): void {
  const readBack: Binding | undefined =
    endpoint === undefined ? undefined : { kind: 'http', url: endpoint, method: 'POST' };
  const lost = agent.bindings.filter((binding) => binding.kind === 'http' && !jsonEqual(binding, readBack));
  if (lost.length === 0) return;
  const described = endpoint === undefined ? 'no endpoint is written' : `the endpoint is ${endpoint}`;
  lose(
    'bindings.http',
    `AIDIP has one POST endpoint serving every operation (${described}); ${lost.length} HTTP binding(s) cannot be written as they are.`,
  );
}

function reportAuthLosses(
  agent: Agent,
  readBack: Agent['auth'],
  lose: (field: string, message: string) => void,
): void {
  const auth = agent.auth;
  if (auth === undefined) return;
  const parts = ['schemes', 'security', 'instructions'] as const;
  for (const part of parts) {
    if (auth[part] !== undefined && !jsonEqual(auth[part], readBack?.[part])) {
      lose(
        `auth.${part}`,
        `AIDIP names one authentication type (api_key, oauth2_bearer, mtls or none) with optional scopes; the auth ${part} cannot be written as they are.`,
      );
    }
  }
}

/** Schemas that would not read back as JSON Schema documents make the metadata invalid; say so. */
function checkSchemas(document: JsonObject, issues: IssueCollector): void {
  const check = (schema: JsonValue | undefined, pointer: string): void => {
    const scratch = new IssueCollector('AIDIP');
    checkSchemaDocument(schema, pointer, scratch, { codePrefix: 'aidip', what: 'The schema' });
    for (const issue of scratch.issues) {
      if (issue.severity === 'error') issues.error(issue.pointer, 'aidip.emit.schema', issue.message);
    }
  };
  const operations = document['operations'];
  if (Array.isArray(operations)) {
    operations.forEach((op, index) => {
      if (!isObject(op)) return;
      check(op['inputs'], `/operations/${index}/inputs`);
      check(op['outputs'], `/operations/${index}/outputs`);
    });
  } else {
    check(document['inputs'], '/inputs');
    check(document['outputs'], '/outputs');
  }
}

function scratchReader(value: JsonObject): ObjectReader {
  return new ObjectReader(value, '', new IssueCollector('AIDIP'), 'aidip');
}
