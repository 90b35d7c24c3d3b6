/**
 * Writes operations as AWP actions, and the dependency graph between them. Every part that passes through AWP's
 * narrower vocabulary (schemas through the type system, bindings through one endpoint per action) is read back
 * with the parser's own functions, so that the loss report names exactly what a reader will not get back.
 */
import { IssueCollector, optionMention } from '../../issues.js';
import { joinPointer } from '../../json/pointer.js';
import { ObjectReader } from '../../json/reader.js';
import { JsonValueSet, jsonEqual, setOwn } from '../../json/values.js';
import type {
  Agent,
  Binding,
  HttpBinding,
  HttpMethod,
  JsonObject,
  JsonSchema,
  Operation,
} from '../../model/agent.js';
import { encodeUriComponentSafe } from '../../uri-component.js';
import { trimTrailingSlash } from '../urls.js';
import { declaresProtocol, endpointFor, httpBinding, protocolBinding } from './bindings.js';
import { describeCycle, findCycles } from './dependencies.js';
import type { EntityTable } from './entities.js';
import { ACTION_LAYOUT, placeUnknownFields } from './layout.js';
import { CARRIED_BINDING_KINDS } from './rules.js';
import { changedProperties, readInputs, readOutputs, writeFields, writeInputs } from './schemas.js';
import { TypeReader } from './type-reader.js';

export interface ActionWriter {
  agent: Agent;
  /** `https://{domain}` of the file being written. */
  base: string | undefined;
  /** The 0.2 `protocols` being written, if any: actions may then delegate with `via`. */
  protocols: JsonObject | undefined;
  /** The entities as a reader of the written file will see them. */
  entities: EntityTable;
  baseUrl: string | undefined;
  issues: IssueCollector;
  lose(field: string, message: string): void;
}

export function writeActions(writer: ActionWriter): { actions: JsonObject[]; dependencies?: JsonObject } {
  const readBack: Binding[] = [];
  const written = new Set<string>();
  const actions = writer.agent.operations.map((operation, index) => {
    if (operation.name.trim() === '' || written.has(operation.name)) {
      writer.issues.error(
        joinPointer('/actions', index, 'id'),
        'awp.emit.operation-name',
        `Operation ${index} has ${operation.name.trim() === '' ? 'no name' : `the name "${operation.name}" of an earlier one`}; AWP action ids must be unique and not empty.`,
      );
    }
    written.add(operation.name);
    return writeAction(operation, index, writer, readBack);
  });
  reportBindingLosses(writer, readBack);
  const dependencies = writeDependencies(writer);
  return dependencies === undefined ? { actions } : { actions, dependencies };
}

function writeAction(
  operation: Operation,
  index: number,
  writer: ActionWriter,
  readBack: Binding[],
): JsonObject {
  const extension = operation.extensions?.['awp'];
  const via = typeof extension?.['via'] === 'string' ? extension['via'] : undefined;
  const delegated = via !== undefined && declaresProtocol(writer.protocols, via) ? via : undefined;
  // A 0.2 action delegated to a protocol needs only its id: write what the operation has and no more.
  const sparse = delegated !== undefined;
  const action: JsonObject = { id: operation.name };
  const description = operation.description ?? (sparse ? undefined : (operation.title ?? operation.name));
  if (description !== undefined) action['description'] = description;
  const authRequired =
    operation.authRequired ??
    (sparse ? undefined : (writer.agent.auth?.requiredFor?.includes(operation.name) ?? false));
  if (authRequired !== undefined) action['auth_required'] = authRequired;
  const inputs =
    operation.input !== undefined || !sparse ? writeInputs(operation.input, writer.entities) : undefined;
  if (inputs !== undefined) action['inputs'] = inputs;
  const outputs =
    operation.output !== undefined || !sparse ? writeFields(operation.output, writer.entities) : undefined;
  if (outputs !== undefined) action['outputs'] = outputs;
  writeCall(operation, index, writer, action, delegated, readBack);
  writeBehaviour(operation, action);
  if (extension !== undefined) {
    let fields = extension;
    const misplaced: string[] = [];
    if (writer.protocols !== undefined && extension['via'] !== undefined && delegated === undefined) {
      // In a 0.2 file a `via` naming no declared protocol is an error, so it is not written.
      const { via: _dropped, ...rest } = extension;
      fields = rest;
      misplaced.push('via');
    }
    misplaced.push(...placeUnknownFields(action, fields, ACTION_LAYOUT));
    if (misplaced.length > 0) {
      writer.lose(
        `operations[${operation.name}].extensions.awp`,
        `AWP action fields ${misplaced.join(', ')} cannot be written back where a reader keeps them.`,
      );
    }
  }
  checkSchemas(operation, inputs, outputs, writer);
  return action;
}

/** The endpoint and method of an action, or the protocol it delegates to; records what a reader will bind. */
function writeCall(
  operation: Operation,
  index: number,
  writer: ActionWriter,
  action: JsonObject,
  delegated: string | undefined,
  readBack: Binding[],
): void {
  const http = writer.agent.bindings.find(
    (binding): binding is HttpBinding =>
      binding.kind === 'http' &&
      (binding.operations === undefined || binding.operations.includes(operation.name)),
  );
  let url: string | undefined;
  let method: HttpMethod = 'POST';
  if (http !== undefined) {
    url = http.url;
    method = http.method;
  } else if (delegated === undefined && writer.baseUrl !== undefined) {
    url = `${trimTrailingSlash(writer.baseUrl)}/agents/${encodeUriComponentSafe(writer.agent.id)}/operations/${encodeUriComponentSafe(operation.name)}`;
  } else if (delegated === undefined) {
    writer.issues.error(
      joinPointer('/actions', index),
      'awp.emit.endpoint-missing',
      `Operation "${operation.name}" has no HTTP endpoint, and an AWP action needs one: give it an http binding or pass a base URL ${optionMention('baseUrl')}.`,
      undefined,
      'baseUrl',
    );
  }
  if (url !== undefined) {
    const endpoint = endpointFor(url, writer.base);
    action['endpoint'] = endpoint;
    action['method'] = method;
    const binding = httpBinding(operation.name, endpoint, method, writer.base);
    if (binding !== undefined) readBack.push(binding);
  }
  if (delegated !== undefined && writer.protocols !== undefined) {
    const binding = protocolBinding(operation.name, delegated, writer.protocols, writer.base);
    if ('binding' in binding) readBack.push(binding.binding);
  }
}

function writeBehaviour(operation: Operation, action: JsonObject): void {
  if (operation.rateLimit !== undefined) action['rate_limit'] = operation.rateLimit;
  const idempotency = operation.idempotency;
  if (idempotency !== undefined) {
    const contract: JsonObject = { supported: idempotency.supported };
    if (idempotency.keyField !== undefined) contract['key_field'] = idempotency.keyField;
    if (idempotency.window !== undefined) contract['window'] = idempotency.window;
    if (idempotency.header !== undefined) contract['header'] = idempotency.header;
    action['idempotency'] = contract;
  }
  if (operation.executionModel !== undefined) action['execution_model'] = operation.executionModel;
  if (operation.pollEndpoint !== undefined) action['poll_endpoint'] = operation.pollEndpoint;
  if (operation.sensitivity !== undefined) action['sensitivity'] = operation.sensitivity;
  if (operation.requiresConfirmation !== undefined)
    action['requires_human_confirmation'] = operation.requiresConfirmation;
  if (operation.reversible !== undefined) action['reversible'] = operation.reversible;
}

/** Reads the written inputs and outputs back and reports the schemas that did not survive. */
function checkSchemas(
  operation: Operation,
  inputs: JsonObject | undefined,
  outputs: JsonObject | undefined,
  writer: ActionWriter,
): void {
  const scratch = new IssueCollector('AWP');
  const types = new TypeReader(scratch, writer.entities);
  if (operation.input !== undefined && inputs !== undefined) {
    const back = readInputs(new ObjectReader(inputs, '', scratch, 'awp.input'), types);
    if (!jsonEqual(back, operation.input)) {
      writer.lose(`operations[${operation.name}].input`, schemaLoss('input', operation.input, back));
    }
  }
  if (operation.output !== undefined && outputs !== undefined) {
    const back = readOutputs(new ObjectReader(outputs, '', scratch, 'awp.output'), types);
    if (!jsonEqual(back, operation.output)) {
      writer.lose(`operations[${operation.name}].output`, schemaLoss('output', operation.output, back));
    }
  }
}

function schemaLoss(what: 'input' | 'output', before: JsonSchema, after: JsonSchema): string {
  const changed = changedProperties(before, after);
  if (changed.length > 0) {
    return `AWP's type system cannot express the ${what} schema of ${changed.map((name) => `"${name}"`).join(', ')} exactly; the nearest AWP types were written.`;
  }
  return `AWP writes an ${what} as named, typed fields only; the rest of this ${what} schema cannot be written.`;
}

function reportBindingLosses(writer: ActionWriter, readBack: readonly Binding[]): void {
  const reported = new Set<string>();
  const kept = new JsonValueSet(readBack);
  for (const binding of writer.agent.bindings) {
    if (!CARRIED_BINDING_KINDS.has(binding.kind) || reported.has(binding.kind)) continue;
    if (kept.has(binding)) continue;
    reported.add(binding.kind);
    writer.lose(
      `bindings.${binding.kind}`,
      binding.kind === 'http'
        ? 'AWP gives each action one endpoint and method; an HTTP binding shared by several operations, serving ' +
            'none, or carrying more (a content type, form operations) does not come back unchanged.'
        : `AWP 0.1 has no way to name a ${binding.kind} binding; a 0.2 file delegates actions to a protocol only ` +
            'when the agent was read from one that declares it.',
    );
  }
}

function writeDependencies(writer: ActionWriter): JsonObject | undefined {
  const operations = writer.agent.operations;
  const names = new Set(operations.map((operation) => operation.name));
  const dependencies: JsonObject = {};
  const graph = new Map<string, string[]>();
  for (const operation of operations) {
    if (operation.dependsOn === undefined) continue;
    const kept = operation.dependsOn.filter((name) => names.has(name));
    if (kept.length !== operation.dependsOn.length) {
      const dropped = operation.dependsOn.filter((name) => !names.has(name));
      writer.lose(
        `operations[${operation.name}].dependsOn`,
        `AWP dependencies may name only actions of the same file; ${dropped.join(', ')} were dropped.`,
      );
    }
    setOwn(dependencies, operation.name, kept);
    graph.set(operation.name, kept);
  }
  for (const cycle of findCycles(graph)) {
    writer.issues.error(
      joinPointer('/dependencies', cycle[0]!),
      'awp.emit.dependency-cycle',
      `Operations depend on each other in a cycle (${describeCycle(cycle)}); AWP dependencies must be acyclic.`,
    );
  }
  return Object.keys(dependencies).length > 0 ? dependencies : undefined;
}
